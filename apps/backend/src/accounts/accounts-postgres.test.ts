import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, templateWorkflow, type TestServer } from "../testing/test-server.ts";
import { createTestDatabase, startPostgres, type TestPostgres } from "../testing/postgres-server.ts";
import { call } from "../testing/http-call.ts";
import { createTestUser } from "../testing/users.ts";

let pg: TestPostgres;
let first: TestServer;
let second: TestServer;
beforeAll(async () => {
  pg = await startPostgres();
  const databaseUrl = await createTestDatabase(pg.url);
  // Two API processes on one database, as behind a load balancer.
  first = await startTestServer({ databaseUrl });
  second = await startTestServer({ databaseUrl });
});
afterAll(async () => {
  await first?.stop();
  await second?.stop();
  await pg?.stop();
});

describe("accounts on PostgreSQL", () => {
  it("a session and a token opened on one API process work on another, with the user's role, until ended", async () => {
    expect(first.server.storage.sql.engine).toBe("postgres");
    const vic = await createTestUser(first, "vic", "viewer");
    const onSecond = (headers: Record<string, string>, method = "GET", path = "/api/workflows", body?: unknown) => call(second.url, method, path, body, headers);
    expect((await onSecond(vic.session)).status).toBe(200);
    expect((await onSecond(vic.bearer)).status).toBe(200);
    expect((await onSecond(vic.session, "POST", "/api/workflows", { workflow: templateWorkflow("by-vic") })).status).toBe(403);
    expect((await second.call("GET", "/api/workflows/by-vic")).status).toBe(404);

    // Promoted on the second process: the first sees it at the next request.
    const users = await second.call("GET", "/api/users");
    expect(JSON.stringify(users.body)).toContain('"username":"vic"');
    expect((await second.call("PUT", `/api/users/${vic.id}`, { role: "editor" })).status).toBe(200);
    expect((await vic.call("POST", "/api/workflows", { workflow: templateWorkflow("by-vic") })).status).toBe(201);

    // Signed out on the first process: the second refuses the cookie too.
    expect((await vic.call("DELETE", "/api/auth/session")).status).toBe(200);
    expect((await onSecond(vic.session)).status).toBe(401);
  });
});

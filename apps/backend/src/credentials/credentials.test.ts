import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { startTestServer, waitForRun, type TestServer } from "../testing/test-server.ts";
import { z } from "zod";
import { ErrorBodySchema } from "../testing/error-body.ts";
import { StartedRunSchema } from "../testing/answers.ts";

/** A credential as the API shows it, kept whole (loose) so a returned secret would show. */
const CredentialAnswer = z.object({ credential: z.looseObject({ description: z.string().optional() }) });
import { capturingLogger, dbBytes } from "../testing/leak-probes.ts";

const SECRET = "cred-Secret-7Hq2Lm9Pz4Wx8Ty1Echoed";

/** A real local API that echoes the Authorization header it gets back in its body. */
const echo = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (r) => Response.json({ authorization: r.headers.get("authorization") }) });
const origin = `http://127.0.0.1:${echo.port}`;
let t: TestServer;
const logLines: string[] = [];

beforeAll(async () => {
  t = await startTestServer({ logger: capturingLogger(logLines), demoLlm: false });
});
afterAll(async () => {
  await t.stop();
  echo.stop(true);
});

describe("/api/credentials", () => {
  it("stores a credential without ever returning its secret, keeps it on an update without one, and deletes it", async () => {
    const created = await t.call("POST", "/api/credentials", { name: "echo-api", kind: "bearer", secret: SECRET, description: "the echo server", hosts: [origin] });
    expect(created.status).toBe(201);
    expect(CredentialAnswer.parse(created.body).credential).toMatchObject({ name: "echo-api", kind: "bearer", hasSecret: true, hosts: [origin], roles: ["owner"] });
    expect((await t.call("POST", "/api/credentials", { name: "echo-api", kind: "bearer", secret: "x".repeat(12), hosts: [origin] })).status).toBe(409);
    const updated = await t.call("PUT", "/api/credentials/echo-api", { name: "echo-api", kind: "bearer", description: "renamed" });
    expect(CredentialAnswer.parse(updated.body).credential.description).toBe("renamed");
    const listed = await t.call("GET", "/api/credentials");
    expect(
      z
        .object({ credentials: z.array(z.object({ name: z.string() })) })
        .parse(listed.body)
        .credentials.map((c) => c.name),
    ).toEqual(["echo-api"]);
    for (const body of [created.body, updated.body, listed.body]) expect(JSON.stringify(body)).not.toContain(SECRET);
    expect(dbBytes(t.dataDir).includes(Buffer.from(SECRET))).toBe(false);
  });

  it("refuses a header credential without its header name, with the fix", async () => {
    const refused = await t.call("POST", "/api/credentials", { name: "keyed", kind: "header", secret: "s".repeat(16), hosts: [origin] });
    expect(refused.status).toBe(400);
    expect(ErrorBodySchema.parse(refused.body).error.message).toContain("needs `header`");
  });

  it("http:request sends it, and the secret echoed back is redacted from the run, its events, logs and the database", async () => {
    await t.call("PUT", "/api/settings/permissions", { defaultAction: "allow", rules: [{ action: "allow", tool: "http.request", target: `${origin}/**` }] });
    await t.call("POST", "/api/workflows", {
      workflow: { id: "call-echo", name: "Call echo", nodes: [{ id: "req", type: "http:request", inputs: { url: `${origin}/me`, credential: "echo-api" } }], edges: [] },
    });
    const started = await t.call("POST", "/api/workflows/call-echo/runs", {});
    const answer = await waitForRun(t, StartedRunSchema.parse(started.body).runId);
    expect(answer.run.status).toBe("completed");
    const observation = answer.observations.find((o: { nodeId: string }) => o.nodeId === "req");
    // The server did get the secret: the echo proves it, redacted.
    expect(observation?.outputs, JSON.stringify(observation)).toMatchObject({ ok: true });
    expect(observation?.outputs.body).toEqual({ authorization: "Bearer [redacted:credential echo-api]" });
    await t.call("GET", "/api/health");
    const answers = [answer, (await t.call("GET", `/api/runs/${StartedRunSchema.parse(started.body).runId}/events`)).body];
    for (const body of answers) expect(JSON.stringify(body)).not.toContain(SECRET);
    expect(dbBytes(t.dataDir).includes(Buffer.from(SECRET))).toBe(false);
    expect(logLines.join("\n")).not.toContain(SECRET);
  });

  it("a deleted credential is gone for http:request too", async () => {
    expect((await t.call("DELETE", "/api/credentials/echo-api")).status).toBe(200);
    expect((await t.call("DELETE", "/api/credentials/echo-api")).status).toBe(404);
    const started = await t.call("POST", "/api/workflows/call-echo/runs", {});
    const answer = await waitForRun(t, StartedRunSchema.parse(started.body).runId);
    expect(answer.observations.find((o) => o.nodeId === "req")?.outputs).toMatchObject({ result: { error: { code: "E_UNKNOWN_CREDENTIAL" } } });
  });
});

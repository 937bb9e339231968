import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { startTestServer, templateWorkflow, waitForRun, type TestServer } from "../testing/test-server.ts";
import { StartedRunSchema } from "../testing/answers.ts";
import { call } from "../testing/http-call.ts";
import { createTestUser, signInWithPassword } from "../testing/users.ts";
import { ErrorBodySchema } from "../testing/error-body.ts";
import { requireSqlite } from "../testing/storage.ts";
import { dbBytes } from "../testing/leak-probes.ts";
import { TokenViewSchema, UserViewSchema } from "./account-records.ts";

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
});
afterAll(() => t.stop());

const Users = z.object({ users: z.array(UserViewSchema) });
const Tokens = z.object({ tokens: z.array(TokenViewSchema) });
const CreatedToken = z.object({ token: TokenViewSchema, secret: z.string() });
const Session = z.object({ principal: z.object({ kind: z.string(), userId: z.string(), username: z.string(), name: z.string(), role: z.string() }) });

const db = () => requireSqlite(t.server.storage.sql, "accounts test").db;

describe("users", () => {
  it("are created by owners with a role and an argon2id password hash; the answer never holds the hash", async () => {
    const created = await t.call("POST", "/api/users", { username: "Alice", name: "Alice A.", role: "editor", password: "correct horse battery" });
    expect(created.status).toBe(201);
    const user = UserViewSchema.strict().parse(z.object({ user: z.unknown() }).parse(created.body).user);
    expect(user).toMatchObject({ username: "alice", name: "Alice A.", role: "editor", hasPassword: true });
    const row = db().query("SELECT password_hash FROM users WHERE id = ?").get(user.id) as { password_hash: string };
    expect(row.password_hash).toMatch(/^\$argon2id\$/);
    expect(dbBytes(t.dataDir).includes("correct horse battery")).toBe(false);
    const listed = Users.parse((await t.call("GET", "/api/users")).body).users;
    expect(listed.map((u) => [u.username, u.role])).toEqual([
      ["owner", "owner"],
      ["alice", "editor"],
    ]);
    expect(JSON.stringify((await t.call("GET", "/api/users")).body)).not.toContain("argon2");
  });

  it("refuses a taken username, a short password and an unknown role, creating nothing", async () => {
    const taken = await t.call("POST", "/api/users", { username: "ALICE", role: "viewer", password: "another long one" });
    expect(taken.status).toBe(409);
    expect(ErrorBodySchema.parse(taken.body).error.message).toContain('"alice" exists already');
    expect((await t.call("POST", "/api/users", { username: "bob", role: "viewer", password: "short" })).status).toBe(400);
    expect((await t.call("POST", "/api/users", { username: "bob", role: "admin", password: "long enough pw" })).status).toBe(400);
    expect(Users.parse((await t.call("GET", "/api/users")).body).users.map((u) => u.username)).toEqual(["owner", "alice"]);
  });

  it("keep the bootstrap owner: never deleted or demoted", async () => {
    expect((await t.call("DELETE", "/api/users/owner")).status).toBe(409);
    expect((await t.call("PUT", "/api/users/owner", { role: "viewer" })).status).toBe(409);
    expect(Users.parse((await t.call("GET", "/api/users")).body).users[0]).toMatchObject({ id: "owner", role: "owner" });
  });
});

describe("signing in with a password", () => {
  it("opens a session naming the user; a wrong password or unknown user gets the same clear refusal and no cookie", async () => {
    for (const [username, password] of [
      ["alice", "wrong password here"],
      ["nobody", "correct horse battery"],
    ]) {
      const res = await fetch(`${t.url}/api/auth/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ username, password }) });
      expect(res.status).toBe(401);
      expect(res.headers.get("set-cookie")).toBeNull();
      expect(ErrorBodySchema.parse(await res.json()).error.message).toBe("Wrong username or password.");
    }
    const session = await signInWithPassword(t.url, "Alice", "correct horse battery");
    expect(session?.cookie).toMatch(/^weft_session=s1\./);
    const me = Session.parse((await call(t.url, "GET", "/api/auth/session", undefined, session)).body).principal;
    expect(me).toMatchObject({ kind: "session", username: "alice", name: "Alice A.", role: "editor" });
    // The cookie's secret is stored only as its hash.
    const secret = session?.cookie.split("=")[1] ?? "";
    expect(db().query("SELECT count(*) AS n FROM user_sessions WHERE hash = ?").get(secret)).toEqual({ n: 0 });
    expect(db().query("SELECT count(*) AS n FROM user_sessions WHERE hash = ?").get(createHash("sha256").update(secret).digest("hex"))).toEqual({ n: 1 });
  });

  it("refuses a username after 10 wrong passwords with 429, even the right one, and leaves other users alone", async () => {
    const tom = await createTestUser(t, "tom", "viewer");
    const other = await createTestUser(t, "ola", "viewer");
    for (let i = 0; i < 10; i++) expect(await signInWithPassword(t.url, "tom", `wrong guess ${i}`)).toBeUndefined();
    const res = await fetch(`${t.url}/api/auth/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ username: "TOM", password: tom.password }) });
    expect(res.status).toBe(429);
    expect(res.headers.get("set-cookie")).toBeNull();
    const error = ErrorBodySchema.parse(await res.json()).error;
    expect(error.code).toBe("TOO_MANY_REQUESTS");
    expect(error.message).toMatch(/Too many wrong passwords for "tom"; try again in 15 minutes/);
    expect(await signInWithPassword(t.url, "ola", other.password)).toBeDefined();
    // Sessions already open are not affected.
    expect((await tom.call("GET", "/api/workflows")).status).toBe(200);
  });

  it("counts guesses sent at once: of 25 parallel wrong passwords at most 10 are checked, the rest get 429", async () => {
    await createTestUser(t, "pat", "viewer");
    const statuses = await Promise.all(
      Array.from({ length: 25 }, (_, i) =>
        fetch(`${t.url}/api/auth/session`, { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ username: "pat", password: `parallel guess ${i}` }) }).then(
          (r) => r.status,
        ),
      ),
    );
    expect(statuses.filter((s) => s === 401)).toHaveLength(10);
    expect(statuses.filter((s) => s === 429)).toHaveLength(15);
  });

  it("ends sessions on sign-out, on a password change by an owner, and when the user is deleted", async () => {
    const kim = await createTestUser(t, "kim", "viewer");
    expect((await kim.call("GET", "/api/workflows")).status).toBe(200);
    const second = await signInWithPassword(t.url, "kim", kim.password);
    expect((await call(t.url, "DELETE", "/api/auth/session", undefined, second)).status).toBe(200);
    expect((await call(t.url, "GET", "/api/workflows", undefined, second)).status).toBe(401);
    expect((await kim.call("GET", "/api/workflows")).status).toBe(200);

    expect((await t.call("PUT", `/api/users/${kim.id}`, { password: "a brand new password" })).status).toBe(200);
    expect((await kim.call("GET", "/api/workflows")).status).toBe(401);
    expect(await signInWithPassword(t.url, "kim", kim.password)).toBeUndefined();
    const fresh = await signInWithPassword(t.url, "kim", "a brand new password");
    expect((await call(t.url, "GET", "/api/workflows", undefined, fresh)).status).toBe(200);

    expect((await t.call("DELETE", `/api/users/${kim.id}`)).status).toBe(200);
    expect((await call(t.url, "GET", "/api/workflows", undefined, fresh)).status).toBe(401);
    expect((await call(t.url, "GET", "/api/workflows", undefined, kim.bearer)).status).toBe(401);
    expect((await t.call("DELETE", `/api/users/${kim.id}`)).status).toBe(404);
  });

  it("applies a role change at the next request of an open session", async () => {
    const lee = await createTestUser(t, "lee", "viewer");
    expect((await lee.call("POST", "/api/workflows", { workflow: templateWorkflow("by-lee") })).status).toBe(403);
    expect((await t.call("PUT", `/api/users/${lee.id}`, { role: "editor" })).status).toBe(200);
    expect((await lee.call("POST", "/api/workflows", { workflow: templateWorkflow("by-lee") })).status).toBe(201);
    expect((await t.call("PUT", `/api/users/${lee.id}`, { role: "viewer" })).status).toBe(200);
    expect((await lee.call("DELETE", "/api/workflows/by-lee")).status).toBe(403);
    expect((await t.call("GET", "/api/workflows/by-lee")).status).toBe(200);
  });

  it("lets a user change their own password only with the current one; other sessions end, this one goes on", async () => {
    const mo = await createTestUser(t, "mo", "editor");
    const other = await signInWithPassword(t.url, "mo", mo.password);
    const wrong = await mo.call("PUT", "/api/auth/password", { currentPassword: "not it at all", newPassword: "mo's second password" });
    expect(wrong.status).toBe(400);
    expect(ErrorBodySchema.parse(wrong.body).error.message).toContain("current password is not right");
    const res = await fetch(`${t.url}/api/auth/password`, {
      method: "PUT",
      headers: { "content-type": "application/json", ...mo.session },
      body: JSON.stringify({ currentPassword: mo.password, newPassword: "mo's second password" }),
    });
    expect(res.status).toBe(200);
    const renewed = { cookie: (res.headers.get("set-cookie") ?? "").split(";")[0] };
    expect((await call(t.url, "GET", "/api/workflows", undefined, renewed)).status).toBe(200);
    expect((await call(t.url, "GET", "/api/workflows", undefined, other)).status).toBe(401);
    expect((await mo.call("GET", "/api/workflows")).status).toBe(401);
    expect(await signInWithPassword(t.url, "mo", "mo's second password")).toBeDefined();
  });
});

describe("personal API tokens", () => {
  it("are shown once, stored hashed, act with the user's role, and stop working when revoked", async () => {
    const ana = await createTestUser(t, "ana", "editor");
    const res = await ana.call("POST", "/api/auth/tokens", { name: "laptop script" });
    expect(res.status).toBe(201);
    const { token, secret } = CreatedToken.parse(res.body);
    expect(secret).toMatch(/^weft_pat_[A-Za-z0-9_-]{40,}$/);
    const listed = await ana.call("GET", "/api/auth/tokens");
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    expect(
      Tokens.parse(listed.body)
        .tokens.map((t) => t.name)
        .sort(),
    ).toEqual(["laptop script", "test"]);
    expect(dbBytes(t.dataDir).includes(secret)).toBe(false);

    const bearer = { authorization: `Bearer ${secret}` };
    const me = Session.parse((await call(t.url, "GET", "/api/auth/session", undefined, bearer)).body).principal;
    expect(me).toMatchObject({ kind: "personal-token", username: "ana", role: "editor" });
    expect((await call(t.url, "PUT", "/api/settings/permissions", { defaultAction: "allow", rules: [] }, bearer)).status).toBe(403);
    expect(Tokens.parse((await ana.call("GET", "/api/auth/tokens")).body).tokens.find((t) => t.id === token.id)?.lastUsedAt).toEqual(expect.any(Number));

    // Another user cannot revoke it; its owner can.
    const other = await createTestUser(t, "ben", "owner");
    expect((await other.call("DELETE", `/api/auth/tokens/${token.id}`)).status).toBe(404);
    expect((await call(t.url, "GET", "/api/workflows", undefined, bearer)).status).toBe(200);
    expect((await ana.call("DELETE", `/api/auth/tokens/${token.id}`)).status).toBe(200);
    expect((await call(t.url, "GET", "/api/workflows", undefined, bearer)).status).toBe(401);
    expect((await call(t.url, "GET", "/api/workflows", undefined, { authorization: "Bearer weft_pat_guessed" })).status).toBe(401);
  });

  it("are listed and revoked by an owner for another user, never with their secrets", async () => {
    const kim = await createTestUser(t, "kim", "editor");
    const { token, secret } = CreatedToken.parse((await kim.call("POST", "/api/auth/tokens", { name: "ci job" })).body);
    const kimId = Session.parse((await kim.call("GET", "/api/auth/session")).body).principal.userId;
    const bearer = { authorization: `Bearer ${secret}` };

    const listed = await t.call("GET", `/api/users/${kimId}/tokens`);
    expect(listed.status).toBe(200);
    expect(Tokens.parse(listed.body).tokens.map((x) => x.name)).toContain("ci job");
    expect(JSON.stringify(listed.body)).not.toContain(secret);
    // Only owners: an editor sees neither another user's tokens nor can end them.
    expect((await kim.call("GET", `/api/users/owner/tokens`)).status).toBe(403);
    expect((await kim.call("DELETE", `/api/users/${kimId}/tokens/${token.id}`)).status).toBe(403);
    expect((await t.call("GET", "/api/users/nobody/tokens")).status).toBe(404);
    expect((await t.call("DELETE", `/api/users/owner/tokens/${token.id}`)).status).toBe(404);

    expect((await call(t.url, "GET", "/api/workflows", undefined, bearer)).status).toBe(200);
    expect((await t.call("DELETE", `/api/users/${kimId}/tokens/${token.id}`)).status).toBe(200);
    expect((await call(t.url, "GET", "/api/workflows", undefined, bearer)).status).toBe(401);
    expect(Tokens.parse((await t.call("GET", `/api/users/${kimId}/tokens`)).body).tokens.map((x) => x.id)).not.toContain(token.id);
  });
});

describe("the tool audit log", () => {
  it("names the user whose run made each tool call", async () => {
    const eve = await createTestUser(t, "eve", "editor");
    const workflow = { id: "writer", name: "Writer", nodes: [{ id: "w", type: "fs:write", inputs: { path: "@project/by-eve.txt", content: "hello" } }], edges: [] };
    const started = await eve.call("POST", "/api/workflows/writer/runs", { workflow });
    expect(started.status).toBe(202);
    const { runId } = StartedRunSchema.parse(started.body);
    await waitForRun(t, runId);
    const lines = readFileSync(join(t.dataDir, "audit", "tools.jsonl"), "utf8")
      .trim()
      .split("\n");
    const records = lines.map((line) => z.object({ status: z.string(), runId: z.string().optional(), userId: z.string().optional(), tool: z.string() }).parse(JSON.parse(line)));
    const ofRun = records.filter((r) => r.runId === runId);
    expect(ofRun.map((r) => [r.status, r.tool, r.userId])).toEqual([
      ["started", "fs.write", eve.id],
      ["completed", "fs.write", eve.id],
    ]);
  });
});

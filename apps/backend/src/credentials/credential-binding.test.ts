import { Database } from "bun:sqlite";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { StartedRunSchema } from "../testing/answers.ts";
import { ErrorBodySchema } from "../testing/error-body.ts";
import { capturingLogger, dbBytes } from "../testing/leak-probes.ts";
import { startTestServer, waitForRun, type RunAnswer, type TestServer } from "../testing/test-server.ts";
import { createTestUser, type TestUser } from "../testing/users.ts";

/** Characters that percent-encoding changes, so its forms differ from the literal. */
const SECRET = "svc-Secret/9Kq+2Lm=Wx8 Ty1?&Zp";
const OWNERS_SECRET = "own-Secret-4Rt7Yu1Io3Pa6Sd";

/** A real HTTP listener that keeps every header of every request it gets. */
function listener(handle: (request: Request, url: URL) => Response) {
  const received: { path: string; headers: string }[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (request) => {
      const url = new URL(request.url);
      const headers: string[] = [];
      request.headers.forEach((value, name) => headers.push(`${name}: ${value}`));
      received.push({ path: url.pathname, headers: headers.join("\n") });
      return handle(request, url);
    },
  });
  return { server, received, origin: `http://127.0.0.1:${server.port}` };
}

/** Not bound: where an editor would like the secret to go. */
const unbound = listener(() => new Response("thanks"));
/** Bound: echoes the Authorization header it gets; `/away` redirects to the unbound listener. */
const bound = listener((request, url) => (url.pathname === "/away" ? Response.redirect(`${unbound.origin}/landed`, 302) : Response.json({ authorization: request.headers.get("authorization") })));
const everyHeader = (l: typeof bound) => l.received.map((r) => r.headers).join("\n");

let t: TestServer;
let editor: TestUser;
const logLines: string[] = [];

beforeAll(async () => {
  t = await startTestServer({ logger: capturingLogger(logLines), demoLlm: false });
  editor = await createTestUser(t, "edna", "editor");
  // Both listeners are loopback: the owner allows them, so the private-address guard is not what stops anything here.
  const rules = [bound.origin, unbound.origin].map((origin) => ({ action: "allow", tool: "http.request", target: `${origin}/**` }));
  expect((await t.call("PUT", "/api/settings/permissions", { defaultAction: "allow", rules })).status).toBe(200);
  expect((await t.call("POST", "/api/credentials", { name: "svc", kind: "bearer", secret: SECRET, hosts: [bound.origin], roles: ["owner", "editor"] })).status).toBe(201);
  expect((await t.call("POST", "/api/credentials", { name: "owners-only", kind: "bearer", secret: OWNERS_SECRET, hosts: [bound.origin] })).status).toBe(201);
});
afterAll(async () => {
  await t.stop();
  bound.server.stop(true);
  unbound.server.stop(true);
});

/** Saves a one-node workflow calling `url` with `credential` (as the editor) and runs it as `who`; the request node's outputs. */
async function requestAs(who: TestUser | "owner", id: string, url: string, credential: string): Promise<{ answer: RunAnswer; outputs: Record<string, unknown> }> {
  const workflow = { id, name: id, nodes: [{ id: "req", type: "http:request", inputs: { url, credential, retries: 0 } }], edges: [] };
  expect((await editor.call("POST", "/api/workflows", { workflow })).status).toBe(201);
  const started = who === "owner" ? await t.call("POST", `/api/workflows/${id}/runs`, {}) : await who.call("POST", `/api/workflows/${id}/runs`, {});
  expect(started.status).toBe(202);
  const answer = await waitForRun(t, StartedRunSchema.parse(started.body).runId);
  return { answer, outputs: answer.observations.find((o) => o.nodeId === "req")?.outputs ?? {} };
}

const errorOf = (outputs: Record<string, unknown>) => (outputs.result as { error?: { code: string; message: string } } | undefined)?.error;

describe("a credential bound to hosts, used by an editor's run", () => {
  it("never reaches a listener outside its hosts: the call is refused before anything is sent, naming the credential and its hosts", async () => {
    const before = unbound.received.length;
    const { outputs } = await requestAs(editor, "to-unbound", `${unbound.origin}/collect`, "svc");
    expect(unbound.received.length).toBe(before);
    expect(everyHeader(unbound)).not.toContain(SECRET);
    expect(errorOf(outputs)?.code).toBe("E_CREDENTIAL_HOST_NOT_ALLOWED");
    expect(errorOf(outputs)?.message).toContain(`"svc" may only be sent to ${bound.origin}`);
    // The bound listener under another name (localhost, not 127.0.0.1) is not the bound host either.
    const port = bound.server.port;
    const { outputs: renamed } = await requestAs(editor, "to-renamed", `http://localhost:${port}/`, "svc");
    expect(errorOf(renamed)?.code).toBe("E_CREDENTIAL_HOST_NOT_ALLOWED");
    expect(everyHeader(bound)).not.toContain(SECRET);
  });

  it("reaches the bound listener, and a redirect from there to an unbound one arrives without it", async () => {
    const { outputs } = await requestAs(editor, "to-bound", `${bound.origin}/me`, "svc");
    expect(outputs.ok).toBe(true);
    expect(everyHeader(bound)).toContain(`Bearer ${SECRET}`);
    const { outputs: moved } = await requestAs(editor, "bound-redirects", `${bound.origin}/away`, "svc");
    expect(moved.ok).toBe(true);
    expect(unbound.received.map((r) => r.path)).toContain("/landed");
    expect(everyHeader(unbound)).not.toContain(SECRET);
  });

  it("is not used in a run of a role its owner did not allow; the owner's run uses it", async () => {
    const { outputs } = await requestAs(editor, "editor-owners-only", `${bound.origin}/me`, "owners-only");
    expect(errorOf(outputs)?.code).toBe("E_CREDENTIAL_ROLE_NOT_ALLOWED");
    expect(errorOf(outputs)?.message).toContain("editor");
    expect(everyHeader(bound)).not.toContain(OWNERS_SECRET);
    const { outputs: owners } = await requestAs("owner", "owner-owners-only", `${bound.origin}/me`, "owners-only");
    expect(owners.ok).toBe(true);
    expect(everyHeader(bound)).toContain(`Bearer ${OWNERS_SECRET}`);
  });

  it("follows the owner's change at once: taking editors off the list stops the editor's next run", async () => {
    const put = await t.call("PUT", "/api/credentials/svc", { name: "svc", kind: "bearer", roles: ["owner"] });
    expect(put.status).toBe(200);
    const mark = bound.received.length;
    const { outputs } = await requestAs(editor, "after-narrowing", `${bound.origin}/me`, "svc");
    expect(errorOf(outputs)?.code).toBe("E_CREDENTIAL_ROLE_NOT_ALLOWED");
    expect(bound.received.length).toBe(mark);
    expect((await t.call("PUT", "/api/credentials/svc", { name: "svc", kind: "bearer", roles: ["owner", "editor"] })).status).toBe(200);
  });
});

describe("credentials stored before binding", () => {
  it("are refused until an owner binds them, with how; then they work", async () => {
    expect((await t.call("POST", "/api/credentials", { name: "legacy", kind: "bearer", secret: "legacy-Secret-8Hj3Kl5Zx", hosts: [bound.origin], roles: ["owner", "editor"] })).status).toBe(201);
    // As a Weft before binding left it: no hosts.
    const db = new Database(join(t.dataDir, "weft.sqlite"));
    db.query("UPDATE credentials SET hosts = '[]' WHERE name = 'legacy'").run();
    db.close();
    const listed = (await t.call("GET", "/api/credentials")).body as { credentials: { name: string; hosts: string[] }[] };
    expect(listed.credentials.find((c) => c.name === "legacy")?.hosts).toEqual([]);
    const { outputs } = await requestAs(editor, "legacy-unbound", `${bound.origin}/me`, "legacy");
    expect(errorOf(outputs)?.code).toBe("E_CREDENTIAL_NOT_BOUND");
    expect(errorOf(outputs)?.message).toContain("Settings → Credentials");
    expect(everyHeader(bound)).not.toContain("legacy-Secret-8Hj3Kl5Zx");
    expect((await t.call("PUT", "/api/credentials/legacy", { name: "legacy", kind: "bearer", hosts: [bound.origin] })).status).toBe(200);
    const { outputs: bound2 } = await requestAs(editor, "legacy-bound", `${bound.origin}/me`, "legacy");
    expect(bound2.ok).toBe(true);
    expect(everyHeader(bound)).toContain("legacy-Secret-8Hj3Kl5Zx");
  });

  it("a new credential needs hosts, and a malformed host is refused with how to write it", async () => {
    const missing = await t.call("POST", "/api/credentials", { name: "nohosts", kind: "bearer", secret: "s".repeat(16) });
    expect(missing.status).toBe(400);
    expect(ErrorBodySchema.parse(missing.body).error.message).toContain("hosts");
    const bad = await t.call("POST", "/api/credentials", { name: "badhost", kind: "bearer", secret: "s".repeat(16), hosts: ["api.example.com"] });
    expect(bad.status).toBe(400);
    expect(JSON.stringify(bad.body)).toContain("https://api.example.com");
    const byEditor = await editor.call("PUT", "/api/credentials/svc", { name: "svc", kind: "bearer", hosts: [unbound.origin] });
    expect(byEditor.status).toBe(403);
  });
});

/** A base64 encoder in the code node's JavaScript (QuickJS has no btoa). */
const BASE64 = `const A = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/";
function b64(s) { let o = ""; for (let i = 0; i < s.length; i += 3) { const n = (s.charCodeAt(i) << 16) | ((s.charCodeAt(i + 1) || 0) << 8) | (s.charCodeAt(i + 2) || 0);
  o += A[(n >> 18) & 63] + A[(n >> 12) & 63] + (i + 1 < s.length ? A[(n >> 6) & 63] : "=") + (i + 2 < s.length ? A[n & 63] : "="); } return o; }`;

describe("encoded forms of a secret", () => {
  it("base64 (standard, URL-safe) and percent-encoded forms a code node makes are redacted from the run, its events, errors, logs and the database", async () => {
    const header = `Bearer ${SECRET}`;
    const forms = {
      std: Buffer.from(header).toString("base64"),
      url: Buffer.from(header).toString("base64url"),
      pct: encodeURIComponent(header),
      bare: Buffer.from(SECRET).toString("base64"),
    };
    const code = `${BASE64}
const h = input.authorization;
const std = b64(h);
if (input.fail) throw new Error("leaked " + std);
return { std, url: std.replace(/\\+/g, "-").replace(/\\//g, "_").replace(/=+$/, ""), pct: encodeURIComponent(h), bare: b64(h.slice(7)) };`;
    const ids: string[] = [];
    for (const fail of [false, true]) {
      const id = fail ? "derive-fail" : "derive";
      const workflow = {
        id,
        name: id,
        nodes: [
          { id: "req", type: "http:request", inputs: { url: `${bound.origin}/me`, credential: "svc", retries: 0 } },
          { id: "derive", type: "code:javascript", inputs: { code: fail ? code.replace("input.fail", "true") : code } },
        ],
        edges: [{ id: "e1", source: "req", sourceHandle: "body", target: "derive", targetHandle: "input" }],
      };
      expect((await editor.call("POST", "/api/workflows", { workflow })).status).toBe(201);
      const started = await editor.call("POST", `/api/workflows/${id}/runs`, {});
      const runId = StartedRunSchema.parse(started.body).runId;
      ids.push(runId);
      const answer = await waitForRun(t, runId);
      const derived = answer.observations.find((o) => o.nodeId === "derive");
      // The forms were made (each now the placeholder), not merely absent.
      if (fail) expect(JSON.stringify(derived?.error)).toContain("[redacted:credential svc]");
      else expect(JSON.stringify(derived?.outputs)).toContain("[redacted:credential svc]");
    }
    await t.call("GET", "/api/health");
    const seen = [
      ...(await Promise.all(ids.map(async (id) => JSON.stringify((await t.call("GET", `/api/runs/${id}`)).body)))),
      ...(await Promise.all(ids.map(async (id) => JSON.stringify((await t.call("GET", `/api/runs/${id}/events`)).body)))),
      JSON.stringify((await t.call("GET", "/api/runs?limit=20")).body),
      logLines.join("\n"),
    ].join("\n");
    const stored = dbBytes(t.dataDir);
    for (const [name, form] of Object.entries(forms)) {
      // A base64 form is cut where the secret's bytes start and end: its middle is what must be gone.
      const core = name === "pct" ? encodeURIComponent(SECRET) : form.slice(3, -3);
      expect(seen, name).not.toContain(core);
      expect(stored.includes(Buffer.from(core)), name).toBe(false);
    }
  });
});

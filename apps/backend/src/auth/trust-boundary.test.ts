import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { existsSync, statSync } from "node:fs";
import { connect } from "node:net";
import fc from "fast-check";
import { join } from "node:path";
import type { WorkflowInput } from "@weft/types";
import { startTestServer, tempDir, waitFor, type TestServer } from "../testing/test-server.ts";
import { BunWebSocket } from "../testing/bun-websocket.ts";
import { plainPath } from "./trust-boundary.ts";

let t: TestServer;
let project: string;
beforeAll(async () => {
  project = tempDir("weft-boundary-project-");
  t = await startTestServer({ projectDir: project });
});
afterAll(() => t.stop());

/** An unsaved draft that writes a file into @project/: what a hostile page would post. */
const writer = (file: string): WorkflowInput => ({
  id: "pwn",
  name: "Pwn",
  nodes: [{ id: "w", type: "fs:write", inputs: { path: `@project/${file}`, content: "pwned" } }],
  edges: [],
});

/** Raw requests, so each test says exactly which headers an attacker sends. */
function send(path: string, init: { method?: string; headers?: Record<string, string>; body?: string } = {}) {
  return fetch(t.url + path, { method: init.method ?? "GET", headers: init.headers ?? {}, body: init.body, redirect: "manual" });
}
const bearer = () => ({ authorization: `Bearer ${t.server.accessToken}` });
const runDraft = (file: string, headers: Record<string, string>) => send("/api/workflows/pwn/runs", { method: "POST", headers, body: JSON.stringify({ workflow: writer(file) }) });

async function codeOf(res: Response): Promise<string> {
  return ((await res.json()) as { error: { code: string } }).error.code;
}

describe("who may call", () => {
  it("answers 401 without a token on every route but the health probe, and says where the token is", async () => {
    expect((await send("/api/health")).status).toBe(200);
    for (const path of ["/api/workflows", "/api/runs", "/api/llm-profiles", "/api/settings/permissions", "/api/nodes", "/api/no-such-route"]) {
      const res = await send(path);
      expect(res.status, path).toBe(401);
      const body = (await res.json()) as { error: { code: string; message: string } };
      expect(body.error.code).toBe("UNAUTHENTICATED");
      expect(body.error.message).toContain("Authorization: Bearer");
    }
    expect((await send("/api/workflows", { headers: { authorization: "Bearer not-the-token-at-all" } })).status).toBe(401);
    expect((await send("/api/workflows", { headers: bearer() })).status).toBe(200);
  });

  it("runs nothing for a request without the token: the file is never written", async () => {
    const res = await runDraft("no-token.txt", { "content-type": "application/json" });
    expect(res.status).toBe(401);
    await Bun.sleep(300);
    expect(existsSync(join(project, "no-token.txt"))).toBe(false);
    // The same request with the token does write it: the check above can fail.
    const allowed = await runDraft("with-token.txt", { "content-type": "application/json", ...bearer() });
    expect(allowed.status).toBe(202);
    await waitFor(async () => (existsSync(join(project, "with-token.txt")) ? true : undefined), 60_000, "the allowed write");
  });

  it("trades the printed link's token for an HttpOnly SameSite=Strict session cookie and drops the token from the URL", async () => {
    const res = await send(`/workflows?tab=2&token=${encodeURIComponent(t.server.accessToken)}`);
    expect(res.status).toBe(303);
    expect(res.headers.get("location")).toBe("/workflows?tab=2");
    const cookie = res.headers.get("set-cookie") ?? "";
    expect(cookie).toMatch(/^weft_session=s1\.[^;]+; Path=\/; HttpOnly; SameSite=Strict; Max-Age=\d+/);
    const session = cookie.split(";")[0];
    expect((await send("/api/workflows", { headers: { cookie: session } })).status).toBe(200);
    expect(await (await send("/api/auth/session", { headers: { cookie: session } })).json()).toEqual({
      principal: { kind: "session", userId: "owner", username: "owner", name: "Owner", role: "owner" },
    });
    // A forged or altered cookie opens nothing.
    const forged = session.replace(/.$/, (c) => (c === "A" ? "B" : "A"));
    expect((await send("/api/workflows", { headers: { cookie: forged } })).status).toBe(401);
    expect((await send("/api/workflows", { headers: { cookie: "weft_session=v1.zzzzzz.abc" } })).status).toBe(401);
    expect((await send("/api/workflows", { headers: { cookie: "weft_session=s1.not-a-session-anyone-opened" } })).status).toBe(401);
    // A wrong token in the link signs nothing in.
    const wrong = await send("/?token=wrong-token-wrong-token");
    expect(wrong.headers.get("set-cookie")).toBeNull();
  });

  it("signs in through POST /api/auth/session and out through DELETE", async () => {
    const refused = await send("/api/auth/session", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token: "guess-guess-guess-guess" }) });
    expect(refused.status).toBe(401);
    expect(refused.headers.get("set-cookie")).toBeNull();
    const ok = await send("/api/auth/session", { method: "POST", headers: { "content-type": "application/json" }, body: JSON.stringify({ token: t.server.accessToken }) });
    expect(ok.status).toBe(200);
    const session = (ok.headers.get("set-cookie") ?? "").split(";")[0];
    expect((await send("/api/runs", { headers: { cookie: session } })).status).toBe(200);
    const out = await send("/api/auth/session", { method: "DELETE", headers: { cookie: session, "content-type": "application/json" } });
    expect(out.headers.get("set-cookie")).toContain("Max-Age=0");
    // Ended on the server too: the same cookie, kept by someone, opens nothing any more.
    expect((await send("/api/runs", { headers: { cookie: session } })).status).toBe(401);
  });

  it("keeps the token in a 0600 file that survives a restart, and sessions with it", async () => {
    const dataDir = tempDir();
    const first = await startTestServer({ dataDir, authToken: undefined });
    const file = join(dataDir, "access-token");
    expect(statSync(file).mode & 0o777).toBe(0o600);
    const token = first.server.accessToken;
    expect(token.length).toBeGreaterThanOrEqual(32);
    expect(first.server.editorUrl).toBe(`${first.url}/?token=${token}`);
    const cookie = ((await fetch(first.server.editorUrl, { redirect: "manual" })).headers.get("set-cookie") ?? "").split(";")[0];
    await first.stop();
    const second = await startTestServer({ dataDir, authToken: undefined });
    try {
      expect(second.server.accessToken).toBe(token);
      expect((await fetch(`${second.url}/api/workflows`, { headers: { cookie } })).status).toBe(200);
    } finally {
      await second.stop();
    }
  });

  it("refuses a WEFT_AUTH_TOKEN too short to be a secret", async () => {
    await expect(startTestServer({ authToken: "short" })).rejects.toThrow(/WEFT_AUTH_TOKEN is shorter than 16 characters/);
  });
});

/** One request line sent as written (fetch would normalise the path first), and the status line of the answer. */
function rawStatus(target: string): Promise<number> {
  return new Promise((resolve, reject) => {
    const socket = connect(t.port(), "127.0.0.1", () => socket.write(`GET ${target} HTTP/1.1\r\nHost: 127.0.0.1:${t.port()}\r\nConnection: close\r\n\r\n`));
    let text = "";
    socket.on("data", (chunk) => {
      text += chunk.toString();
      const status = /^HTTP\/1\.1 (\d{3})/.exec(text);
      if (status) {
        resolve(Number(status[1]));
        socket.destroy();
      }
    });
    socket.on("error", reject);
  });
}

describe("the webhooks' way past the session check", () => {
  it("is only for paths under /hooks/ once normalised: a dot segment or an escape leading out of it still needs a token", async () => {
    for (const target of ["/hooks/../api/workflows", "/hooks/%2e%2e/api/workflows", "/hooks/./../api/workflows", "/hooks/x/%2E%2E/%2e%2e/api/workflows"]) {
      expect(await rawStatus(target), target).toBe(401);
    }
    // The same way, with a plain path under /hooks/, reaches the hooks (no such hook: 404), so the check above can fail.
    expect(await rawStatus("/hooks/none/in")).toBe(404);
  });

  it("reads a plain path as URL parsing would, and declines every other", () => {
    const part = fc.constantFrom("hooks", "api", "..", ".", "%2e", "%2E%2e", "a.b", "x\\y", "q?x=/hooks/", "#f", "@", "", "workflows");
    fc.assert(
      fc.property(fc.array(part, { maxLength: 6 }), fc.constantFrom("localhost:3000", "127.0.0.1", "a@b", "h?x", "[::1]:8"), (parts, host) => {
        const url = `http://${host}/${parts.join("/")}`;
        const path = plainPath(url);
        let parsed: string | undefined;
        try {
          parsed = new URL(url).pathname;
        } catch {
          parsed = undefined;
        }
        if (path !== undefined) expect(path, url).toBe(parsed);
      }),
      { numRuns: 2000 },
    );
    expect(plainPath("http://localhost:3000/hooks/wf/in?x=1")).toBe("/hooks/wf/in");
    expect(plainPath("http://localhost:3000/hooks/../api")).toBeUndefined();
  });
});

describe("from where", () => {
  it("refuses a cross-site simple request (text/plain) with 415, and the draft never runs", async () => {
    const res = await runDraft("text-plain.txt", { "content-type": "text/plain", ...bearer() });
    expect(res.status).toBe(415);
    expect(await codeOf(res)).toBe("UNSUPPORTED_MEDIA_TYPE");
    for (const type of ["application/x-www-form-urlencoded", "multipart/form-data; boundary=x"]) {
      expect((await runDraft("form.txt", { "content-type": type, ...bearer() })).status).toBe(415);
    }
    // A body without any Content-Type (a typeless Blob) is no JSON either; a request without a body needs none (bodyless-requests.test.ts).
    expect((await fetch(`${t.url}/api/runs/x/cancel`, { method: "POST", headers: bearer(), body: new TextEncoder().encode("{}") })).status).toBe(415);
    await Bun.sleep(300);
    expect(existsSync(join(project, "text-plain.txt"))).toBe(false);
    expect(existsSync(join(project, "form.txt"))).toBe(false);
  });

  it("refuses a foreign Origin with 403 even with a valid credential, and the draft never runs", async () => {
    for (const origin of ["http://evil.example", "null", `http://127.0.0.1:${t.port() + 1}`]) {
      const res = await runDraft("origin.txt", { "content-type": "application/json", origin, ...bearer() });
      expect(res.status, origin).toBe(403);
      expect(await codeOf(res)).toBe("FORBIDDEN_ORIGIN");
    }
    await Bun.sleep(300);
    expect(existsSync(join(project, "origin.txt"))).toBe(false);
    // The editor's own origin passes.
    const own = await send("/api/workflows", { headers: { origin: t.url, ...bearer() } });
    expect(own.status).toBe(200);
  });

  it("refuses a foreign Host with 421 (DNS rebinding), on reads too", async () => {
    const res = await send("/api/workflows", { headers: { host: `attacker.example:${t.port()}`, ...bearer() } });
    expect(res.status).toBe(421);
    expect(await codeOf(res)).toBe("MISDIRECTED_HOST");
    const write = await runDraft("rebind.txt", { host: "attacker.example", "content-type": "application/json", ...bearer() });
    expect(write.status).toBe(421);
    for (const host of [`localhost:${t.port()}`, `127.0.0.1:${t.port()}`, `[::1]:${t.port()}`]) {
      expect((await send("/api/health", { headers: { host } })).status, host).toBe(200);
    }
    await Bun.sleep(300);
    expect(existsSync(join(project, "rebind.txt"))).toBe(false);
  });

  it("lets WEFT_ALLOWED_HOSTS and WEFT_ALLOWED_ORIGINS name a proxy's host and site", async () => {
    const proxied = await startTestServer({ allowedHosts: ["weft.example.com"], allowedOrigins: ["https://tools.example.com"] });
    try {
      const headers = { authorization: `Bearer ${proxied.server.accessToken}` };
      expect((await fetch(`${proxied.url}/api/workflows`, { headers: { ...headers, host: "weft.example.com" } })).status).toBe(200);
      expect((await fetch(`${proxied.url}/api/workflows`, { headers: { ...headers, host: "weft.example.com", origin: "https://weft.example.com" } })).status).toBe(200);
      expect((await fetch(`${proxied.url}/api/workflows`, { headers: { ...headers, origin: "https://tools.example.com" } })).status).toBe(200);
      expect((await fetch(`${proxied.url}/api/workflows`, { headers: { ...headers, host: "other.example.com" } })).status).toBe(421);
    } finally {
      await proxied.stop();
    }
  });

  it("checks the /ws upgrade too: token, Origin and Host", async () => {
    const ws = t.url.replace(/^http/, "ws") + "/ws";
    const opens = (headers: Record<string, string>) =>
      new Promise<boolean>((resolve) => {
        const socket = new BunWebSocket(ws, { headers });
        socket.onopen = () => {
          socket.close();
          resolve(true);
        };
        socket.onerror = () => resolve(false);
      });
    expect(await opens({})).toBe(false);
    expect(await opens({ ...bearer(), origin: "http://evil.example" })).toBe(false);
    expect(await opens({ ...bearer(), host: "attacker.example" })).toBe(false);
    expect(await opens({ ...bearer(), origin: t.url })).toBe(true);
  });

  it("sends the security headers on pages, API answers and refusals", async () => {
    for (const res of [await send("/"), await send("/api/health"), await send("/api/workflows"), await send("/api/health", { headers: { origin: "http://evil.example" } })]) {
      expect(res.headers.get("content-security-policy")).toContain("frame-ancestors 'none'");
      expect(res.headers.get("x-content-type-options")).toBe("nosniff");
      expect(res.headers.get("referrer-policy")).toBe("no-referrer");
    }
  });
});

import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, describe, expect, it, onTestFinished } from "vitest";
import type { CredentialResolver, HttpRequestOk, PermissionRuleInput, ToolResult } from "@weft/types";
import { AuditLog } from "../audit/audit-log.ts";
import { createFixture, type Fixture } from "../testing/fixture.ts";

/** A real local server that counts the requests it gets, by path. */
function countingServer(handle: (request: Request, url: URL, hits: number) => Response | Promise<Response>) {
  const seen: string[] = [];
  const server = Bun.serve({
    port: 0,
    hostname: "127.0.0.1",
    fetch: (request) => {
      const url = new URL(request.url);
      seen.push(url.pathname);
      return handle(request, url, seen.filter((p) => p === url.pathname).length);
    },
  });
  return { server, seen, origin: `http://127.0.0.1:${server.port}`, localhost: `http://localhost:${server.port}` };
}

const inside = countingServer(() => new Response("inside secret"));

const BIG = 300 * 1024;
/** Opens the second part of `/big-in-parts`: called when the client reports progress on the first. */
let sendRest = () => {};

/** 128 KiB, then the rest once the client has reported progress: progress is reported before the end, however the bytes are chunked. */
function bodyInParts(): Response {
  const rest = new Promise<void>((resolve) => (sendRest = resolve));
  const bytes = (n: number) => new TextEncoder().encode("x".repeat(n));
  const stream = new ReadableStream<Uint8Array>({
    async start(controller) {
      controller.enqueue(bytes(128 * 1024));
      await rest;
      controller.enqueue(bytes(BIG - 128 * 1024));
      controller.close();
    },
  });
  return new Response(stream, { headers: { "content-type": "text/plain", "content-length": String(BIG) } });
}
const api = countingServer(async (request, url, hits) => {
  switch (url.pathname) {
    case "/json":
      return Response.json({ hello: "world" });
    case "/echo":
      return Response.json({ method: request.method, type: request.headers.get("content-type"), body: await request.text(), auth: request.headers.get("authorization"), query: url.search });
    case "/hop1":
      return Response.redirect(`${api.origin}/hop2`, 302);
    case "/hop2":
      return Response.redirect("/json", 301);
    case "/to-inside":
      return Response.redirect(`${inside.localhost}/x`, 302);
    case "/to-mapped":
      return Response.redirect(`http://[::ffff:127.0.0.1]:${inside.server.port}/x`, 307);
    case "/v1/to-echo":
      return Response.redirect(`${api.origin}/echo`, 302);
    case "/to-other-origin":
      return Response.redirect(`${other.origin}/whoami`, 302);
    case "/busy":
      return hits === 1 ? new Response("slow down", { status: 429, headers: { "retry-after": "0" } }) : Response.json({ served: hits });
    case "/busy-long":
      return new Response("come back in an hour", { status: 429, headers: { "retry-after": "3600" } });
    case "/flaky":
      return hits < 3 ? new Response("oops", { status: 503 }) : new Response("fine");
    case "/big":
      return new Response("x".repeat(BIG), { headers: { "content-type": "text/plain" } });
    case "/big-in-parts":
      return bodyInParts();
    case "/loop":
      return Response.redirect(`${api.origin}/loop`, 302);
    default:
      return new Response("not found", { status: 404 });
  }
});
const other = countingServer((request) => Response.json({ auth: request.headers.get("authorization") }));

afterAll(() => {
  for (const s of [inside, api, other]) s.server.stop(true);
});

const allow = (target: string): PermissionRuleInput => ({ action: "allow", tool: "http.request", target });
/** One credential, bound to the api server and usable by editors; the role check itself is the backend's (credentials/). */
const credentials: CredentialResolver = {
  resolve: async (name) =>
    name === "api-token"
      ? { ok: true, credential: { kind: "bearer", secret: "tok-0123456789abcdef" }, hosts: [api.origin] }
      : name === "v1-token"
        ? { ok: true, credential: { kind: "bearer", secret: "v1-tok-0123456789abcdef" }, hosts: [`${api.origin}/v1`] }
        : { ok: false, code: "E_UNKNOWN_CREDENTIAL", message: `There is no credential named "${name}". Known: api-token.` },
};

// Every fixture of a test, removed after it: a test may make more than one (each hostWith() call makes one).
const fixtures: Fixture[] = [];
function hostWith(rules: PermissionRuleInput[]) {
  const fixture = createFixture({ permissions: { rules }, credentials });
  fixtures.push(fixture);
  return fixture.host;
}
afterEach(() => {
  for (const fixture of fixtures.splice(0)) fixture.cleanup();
  for (const s of [inside, api, other]) s.seen.length = 0;
});

function ok(result: ToolResult): HttpRequestOk {
  if (!result.ok) throw new Error(`expected success, got ${result.error.code}: ${result.error.message}`);
  return result as HttpRequestOk;
}
function errorCode(result: ToolResult): string | undefined {
  return result.ok ? undefined : result.error.code;
}

describe("http.request: SSRF defence", () => {
  it("refuses a loopback address by default, and the server gets nothing", async () => {
    const result = await hostWith([]).call("http.request", { url: `${inside.origin}/x` });
    expect(errorCode(result)).toBe("E_PRIVATE_ADDRESS");
    expect(inside.seen).toEqual([]);
  });

  it("refuses a name resolving to loopback (localhost) by default, and a rule for the host allows it", async () => {
    const refused = await hostWith([]).call("http.request", { url: `${inside.localhost}/x` });
    expect(errorCode(refused)).toBe("E_PRIVATE_ADDRESS");
    expect(refused.ok ? "" : refused.error.message).toContain(`allow http.request on ${inside.localhost}/**`);
    expect(inside.seen).toEqual([]);
    const allowed = await hostWith([allow(`${inside.localhost}/**`)]).call("http.request", { url: `${inside.localhost}/x` });
    expect(ok(allowed).body).toBe("inside secret");
    expect(inside.seen).toEqual(["/x"]);
  });

  it("checks every redirect: an allowed server redirecting to a private one is refused before the request", async () => {
    const host = hostWith([allow(`${api.origin}/**`)]);
    expect(errorCode(await host.call("http.request", { url: `${api.origin}/to-inside` }))).toBe("E_PRIVATE_ADDRESS");
    expect(errorCode(await host.call("http.request", { url: `${api.origin}/to-mapped` }))).toBe("E_PRIVATE_ADDRESS");
    expect(inside.seen).toEqual([]);
  });

  it("refuses IPv6 loopback, IPv4-mapped, unspecified and numeric-form literals by default", async () => {
    const host = hostWith([]);
    for (const form of ["0.0.0.0", "2130706433", "0x7f.1", "017700000001"]) {
      expect(errorCode(await host.call("http.request", { url: `http://${form}:${inside.server.port}/` })), form).toBe("E_PRIVATE_ADDRESS");
    }
    expect(errorCode(await host.call("http.request", { url: `http://[::1]:${inside.server.port}/` }))).toBe("E_PRIVATE_ADDRESS");
    expect(errorCode(await host.call("http.request", { url: `http://[::ffff:7f00:1]:${inside.server.port}/` }))).toBe("E_PRIVATE_ADDRESS");
    expect(inside.seen).toEqual([]);
  });

  it("a deny rule on a URL pattern stops the call before anything is sent", async () => {
    const host = hostWith([allow(`${api.origin}/**`), { action: "deny", tool: "http.request", target: `${api.origin}/ech*` }]);
    expect(errorCode(await host.call("http.request", { url: `${api.origin}/echo` }))).toBe("E_PERMISSION_DENIED");
    expect(api.seen).toEqual([]);
    expect(ok(await host.call("http.request", { url: `${api.origin}/json` })).body).toEqual({ hello: "world" });
  });
});

describe("http.request: audit", () => {
  it("records every call from its start, the refused ones too, without the credential's secret", async () => {
    const auditDir = mkdtempSync(join(tmpdir(), "weft-http-audit-"));
    onTestFinished(() => rmSync(auditDir, { recursive: true, force: true }));
    const file = join(auditDir, "audit.jsonl");
    const fixture = createFixture({ permissions: { rules: [allow(`${api.origin}/**`)] }, credentials, audit: new AuditLog({ file }) });
    fixtures.push(fixture);
    await fixture.host.call("http.request", { url: `${api.origin}/echo`, credential: "api-token" }, { runId: "run-audit" });
    await fixture.host.call("http.request", { url: `${inside.origin}/x` }, { runId: "run-audit" });
    const records = readFileSync(file, "utf8")
      .trim()
      .split("\n")
      .map((line) => JSON.parse(line));
    expect(records.map((r) => [r.status, r.tool, r.target])).toEqual([
      ["started", "http.request", `${api.origin}/echo`],
      ["completed", "http.request", `${api.origin}/echo`],
      ["started", "http.request", `${inside.origin}/x`],
      ["completed", "http.request", `${inside.origin}/x`],
    ]);
    expect(records[1].result).toMatchObject({ ok: true, status: 200, attempts: 1 });
    expect(records[3].result).toMatchObject({ ok: false, code: "E_PRIVATE_ADDRESS" });
    expect(readFileSync(file, "utf8")).not.toContain("tok-0123456789abcdef");
  });
});

describe("http.request: requests and responses", () => {
  it("follows redirects by hand and reports them", async () => {
    const result = ok(await hostWith([allow(`${api.origin}/**`)]).call("http.request", { url: `${api.origin}/hop1` }));
    expect(result.redirects).toEqual([`${api.origin}/hop2`, `${api.origin}/json`]);
    expect(result).toMatchObject({ status: 200, url: `${api.origin}/json`, bodyType: "json", body: { hello: "world" } });
  });

  it("stops a redirect loop", async () => {
    const result = await hostWith([allow(`${api.origin}/**`)]).call("http.request", { url: `${api.origin}/loop`, maxRedirects: 3 });
    expect(errorCode(result)).toBe("E_TOO_MANY_REDIRECTS");
    expect(api.seen).toHaveLength(4);
  });

  it("sends query, JSON, text and form bodies", async () => {
    const host = hostWith([allow(`${api.origin}/**`)]);
    const json = ok(await host.call("http.request", { method: "POST", url: `${api.origin}/echo`, query: { page: 2 }, body: { a: 1 } }));
    expect(json.body).toMatchObject({ method: "POST", type: "application/json", body: '{"a":1}', query: "?page=2" });
    const form = ok(await host.call("http.request", { method: "PUT", url: `${api.origin}/echo`, body: { q: "weft loom" }, bodyType: "form" }));
    expect(form.body).toMatchObject({ type: "application/x-www-form-urlencoded", body: "q=weft+loom" });
    const text = ok(await host.call("http.request", { method: "POST", url: `${api.origin}/echo`, body: "plain", bodyType: "text" }));
    expect(text.body).toMatchObject({ type: "text/plain; charset=utf-8", body: "plain" });
  });

  it("retries a 429 after its Retry-After, and a 5xx with backoff", async () => {
    const host = hostWith([allow(`${api.origin}/**`)]);
    const busy = ok(await host.call("http.request", { url: `${api.origin}/busy` }));
    expect(busy).toMatchObject({ status: 200, attempts: 2, body: { served: 2 } });
    const flaky = ok(await host.call("http.request", { url: `${api.origin}/flaky`, retries: 2 }));
    expect(flaky).toMatchObject({ status: 200, attempts: 3, body: "fine" });
  });

  it("does not wait longer than allowed: a Retry-After of an hour ends the retries", async () => {
    const result = ok(await hostWith([allow(`${api.origin}/**`)]).call("http.request", { url: `${api.origin}/busy-long` }));
    expect(result).toMatchObject({ status: 429, attempts: 1 });
    expect(api.seen).toEqual(["/busy-long"]);
  });

  it("cuts the body at the size cap and reports download progress, while the body comes and at its end", async () => {
    const host = hostWith([allow(`${api.origin}/**`)]);
    const capped = ok(await host.call("http.request", { url: `${api.origin}/big`, maxResponseBytes: 100_000 }));
    expect(capped).toMatchObject({ truncated: true, bytes: 100_000 });
    const known: Record<string, unknown>[] = [];
    ok(await host.call("http.request", { url: `${api.origin}/big` }, { onProgress: (p) => known.push(p) }));
    expect(known.at(-1)).toEqual({ receivedBytes: BIG, totalBytes: BIG });
    const progress: Array<{ receivedBytes: number }> = [];
    const onProgress = (p: Record<string, unknown>) => {
      progress.push(p as { receivedBytes: number });
      sendRest();
    };
    const whole = ok(await host.call("http.request", { url: `${api.origin}/big-in-parts` }, { onProgress }));
    expect(whole).toMatchObject({ truncated: false, bytes: BIG });
    // Reported while the body was still coming (the server held the rest until then), growing, and at the end.
    expect(progress[0]!.receivedBytes).toBeLessThan(BIG);
    expect(progress.map((p) => p.receivedBytes)).toEqual([...progress.map((p) => p.receivedBytes)].sort((a, b) => a - b));
    expect(progress.at(-1)).toEqual({ receivedBytes: BIG });
  });

  it("adds a named credential, only for the first origin and its bound hosts, and names the known ones when it is unknown", async () => {
    const host = hostWith([allow(`${api.origin}/**`), allow(`${other.origin}/**`)]);
    const same = ok(await host.call("http.request", { url: `${api.origin}/echo`, credential: "api-token" }));
    expect(same.body).toMatchObject({ auth: "Bearer tok-0123456789abcdef" });
    const moved = ok(await host.call("http.request", { url: `${api.origin}/to-other-origin`, credential: "api-token" }));
    expect(moved.body).toEqual({ auth: null });
    const elsewhere = await host.call("http.request", { url: `${other.origin}/whoami`, credential: "api-token" });
    expect(errorCode(elsewhere)).toBe("E_CREDENTIAL_HOST_NOT_ALLOWED");
    expect(elsewhere.ok ? "" : elsewhere.error.message).toContain(`"api-token" may only be sent to ${api.origin}`);
    expect(other.seen).toEqual(["/whoami"]);
    // Bound to a path: a redirect on the same origin out of that path goes on without it.
    const outOfPath = ok(await host.call("http.request", { url: `${api.origin}/v1/to-echo`, credential: "v1-token" }));
    expect(outOfPath).toMatchObject({ url: `${api.origin}/echo`, body: { auth: null } });
    const unknown = await host.call("http.request", { url: `${api.origin}/echo`, credential: "api-tokn" });
    expect(errorCode(unknown)).toBe("E_UNKNOWN_CREDENTIAL");
    expect(unknown.ok ? "" : unknown.error.message).toContain("api-token");
  });

  it("refuses user info in the URL and headers Weft sets itself", async () => {
    const host = hostWith([allow(`${api.origin}/**`)]);
    expect(errorCode(await host.call("http.request", { url: `http://me:pw@127.0.0.1:${api.server.port}/json` }))).toBe("E_SCHEMA_VALIDATION");
    expect(errorCode(await host.call("http.request", { url: `${api.origin}/json`, headers: { Host: "internal" } }))).toBe("E_SCHEMA_VALIDATION");
    expect(api.seen).toEqual([]);
  });
});

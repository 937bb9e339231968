import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { brotliDecompressSync, gunzipSync } from "node:zlib";
import { startTestServer, tempDir, type TestServer } from "../testing/test-server.ts";

const SCRIPT = `export const lines = [${Array.from({ length: 400 }, (_, i) => `"line ${i}"`).join(",")}];\n`;

/** The bytes as sent: Bun's fetch would otherwise undo the encoding before the test sees it. */
async function raw(t: TestServer, path: string, headers: Record<string, string>) {
  const init: RequestInit & { decompress: boolean } = { headers, decompress: false };
  const res = await t.fetch(path, init);
  return { res, body: new Uint8Array(await res.arrayBuffer()) };
}

/** The file's answer once the server has its encoding (waits for the background encoding of a first request). */
async function encodedAnswer(t: TestServer, path: string, acceptEncoding: string) {
  const deadline = Date.now() + 30_000;
  for (;;) {
    const answer = await raw(t, path, { "accept-encoding": acceptEncoding });
    if (answer.res.headers.get("content-encoding") !== null || Date.now() > deadline) return answer;
    await Bun.sleep(20);
  }
}

describe("compressed answers and ETags", () => {
  let t: TestServer;
  beforeAll(async () => {
    const dist = tempDir("weft-dist-");
    mkdirSync(join(dist, "assets"));
    writeFileSync(join(dist, "index.html"), `<!doctype html><title>editor</title>${"<!-- padding -->".repeat(100)}`);
    writeFileSync(join(dist, "assets", "app.js"), SCRIPT);
    t = await startTestServer({ frontendDir: dist });
  });
  afterAll(() => t.stop());

  it("sends the editor's script as brotli, or gzip when that is all the client takes, and keeps the security headers", async () => {
    // The first answer after a start is the file as is (it is encoded once asked for again), whole and correct.
    const first = await raw(t, "/assets/app.js", { "accept-encoding": "gzip, deflate, br" });
    const firstEncoding = first.res.headers.get("content-encoding");
    expect(firstEncoding === null ? new TextDecoder().decode(first.body) : brotliDecompressSync(first.body).toString()).toBe(SCRIPT);
    const br = await encodedAnswer(t, "/assets/app.js", "gzip, deflate, br");
    expect(br.res.headers.get("content-encoding")).toBe("br");
    expect(br.res.headers.get("vary")).toContain("Accept-Encoding");
    expect(br.res.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(br.res.headers.get("x-content-type-options")).toBe("nosniff");
    expect(br.res.headers.get("cache-control")).toContain("immutable");
    expect(br.body.byteLength).toBeLessThan(SCRIPT.length / 3);
    expect(brotliDecompressSync(br.body).toString()).toBe(SCRIPT);

    const gz = await encodedAnswer(t, "/assets/app.js", "gzip");
    expect(gz.res.headers.get("content-encoding")).toBe("gzip");
    expect(gunzipSync(gz.body).toString()).toBe(SCRIPT);

    const plain = await raw(t, "/assets/app.js", { "accept-encoding": "identity" });
    expect(plain.res.headers.get("content-encoding")).toBeNull();
    expect(new TextDecoder().decode(plain.body)).toBe(SCRIPT);
  });

  it("answers an unchanged index.html with a bodyless 304 that still carries the security headers", async () => {
    const first = await raw(t, "/", { "accept-encoding": "br" });
    const etag = first.res.headers.get("etag");
    expect(etag).toBeTruthy();
    const again = await raw(t, "/", { "if-none-match": etag ?? "" });
    expect(again.res.status).toBe(304);
    expect(again.body.byteLength).toBe(0);
    expect(again.res.headers.get("etag")).toBe(etag);
    expect(again.res.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect((await raw(t, "/", { "if-none-match": '"something-else"' })).res.status).toBe(200);
  });

  it("compresses the node catalogue and revalidates it by ETag", async () => {
    const first = await raw(t, "/api/nodes", { "accept-encoding": "br" });
    expect(first.res.status).toBe(200);
    expect(first.res.headers.get("content-encoding")).toBe("br");
    expect(first.res.headers.get("cache-control")).toBe("private, no-cache");
    const catalogue: unknown = JSON.parse(brotliDecompressSync(first.body).toString());
    expect(catalogue).toMatchObject({ nodes: expect.any(Array) });
    const etag = first.res.headers.get("etag") ?? "";
    const again = await raw(t, "/api/nodes", { "accept-encoding": "br", "if-none-match": etag });
    expect(again.res.status).toBe(304);
    expect(again.res.headers.get("x-frame-options")).toBe("DENY");
  });

  it("leaves small answers unencoded", async () => {
    const health = await raw(t, "/api/health", { "accept-encoding": "br" });
    expect(health.res.status).toBe(200);
    expect(health.res.headers.get("content-encoding")).toBeNull();
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { brotliCompressSync, brotliDecompressSync, constants as zlib, gunzipSync, gzipSync } from "node:zlib";
import { startTestServer, tempDir, type TestServer } from "../testing/test-server.ts";

const SCRIPT = `export const lines = [${Array.from({ length: 400 }, (_, i) => `"line ${i}"`).join(",")}];\n`;
const STYLE = `.a { color: red; }\n${Array.from({ length: 200 }, (_, i) => `.c${i} { margin: ${i}px; }`).join("\n")}\n`;

/** The bytes as sent: Bun's fetch would otherwise undo the encoding before the test sees it. */
async function raw(t: TestServer, path: string, acceptEncoding: string) {
  const init: RequestInit & { decompress: boolean } = { headers: { "accept-encoding": acceptEncoding }, decompress: false };
  const res = await t.fetch(path, init);
  return { res, body: new Uint8Array(await res.arrayBuffer()) };
}

describe("the editor's files as the build encoded them", () => {
  let t: TestServer;
  let dist: string;
  beforeAll(async () => {
    dist = tempDir("weft-dist-");
    mkdirSync(join(dist, "assets"));
    writeFileSync(join(dist, "index.html"), "<!doctype html><title>editor</title>");
    // As apps/frontend/vite-precompress.ts writes them: brotli 11 and gzip 9 beside the file.
    for (const [name, text] of [
      ["app-1a2b3c.js", SCRIPT],
      ["app-1a2b3c.css", STYLE],
    ]) {
      writeFileSync(join(dist, "assets", name), text);
      writeFileSync(join(dist, "assets", `${name}.br`), brotliCompressSync(text, { params: { [zlib.BROTLI_PARAM_QUALITY]: 11 } }));
      writeFileSync(join(dist, "assets", `${name}.gz`), gzipSync(text, { level: 9 }));
    }
    // A build from before precompression: the answer hooks encode it (http-caching.test.ts).
    writeFileSync(join(dist, "assets", "old-4d5e6f.js"), SCRIPT);
    t = await startTestServer({ frontendDir: dist });
  });
  afterAll(() => t.stop());

  it("sends the brotli file from the first request on, byte for byte, typed as the script, kept for good, with the security headers", async () => {
    const { res, body } = await raw(t, "/assets/app-1a2b3c.js", "gzip, deflate, br, zstd");
    expect(res.status).toBe(200);
    expect(res.headers.get("content-encoding")).toBe("br");
    expect(body).toEqual(new Uint8Array(readFileSync(join(dist, "assets", "app-1a2b3c.js.br"))));
    expect(brotliDecompressSync(body).toString()).toBe(SCRIPT);
    expect(res.headers.get("content-type")).toMatch(/^text\/javascript/);
    expect(res.headers.get("vary")).toContain("Accept-Encoding");
    expect(res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
    expect(res.headers.get("content-security-policy")).toContain("default-src 'self'");
    expect(res.headers.get("x-content-type-options")).toBe("nosniff");

    const sheet = await raw(t, "/assets/app-1a2b3c.css", "br");
    expect(sheet.res.headers.get("content-encoding")).toBe("br");
    expect(sheet.res.headers.get("content-type")).toMatch(/^text\/css/);
    expect(brotliDecompressSync(sheet.body).toString()).toBe(STYLE);
  });

  it("sends the gzip file to a client without brotli (or refusing it), and the file itself to one taking neither", async () => {
    for (const accepted of ["gzip, deflate", "br;q=0, gzip"]) {
      const { res, body } = await raw(t, "/assets/app-1a2b3c.js", accepted);
      expect(res.headers.get("content-encoding")).toBe("gzip");
      expect(body).toEqual(new Uint8Array(readFileSync(join(dist, "assets", "app-1a2b3c.js.gz"))));
      expect(gunzipSync(body).toString()).toBe(SCRIPT);
    }
    const plain = await raw(t, "/assets/app-1a2b3c.js", "identity");
    expect(plain.res.headers.get("content-encoding")).toBeNull();
    expect(new TextDecoder().decode(plain.body)).toBe(SCRIPT);
    expect(plain.res.headers.get("cache-control")).toBe("public, max-age=31536000, immutable");
  });

  it("leaves a file the build did not encode to the answer hooks: its first answer is the file as is", async () => {
    const { res, body } = await raw(t, "/assets/old-4d5e6f.js", "br");
    expect(res.headers.get("content-encoding")).toBeNull();
    expect(new TextDecoder().decode(body)).toBe(SCRIPT);
    expect(res.headers.get("etag")).toBeTruthy();
  });
});

import { createHash } from "node:crypto";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFixture, type Fixture } from "../testing/fixture.ts";

let fx: Fixture;
beforeEach(() => {
  fx = createFixture({ limits: { maxReadBytes: 100, maxFileBytes: 10_000 } });
});
afterEach(() => fx.cleanup());

const sha = (data: string | Uint8Array) => createHash("sha256").update(data).digest("hex");
const read = (args: Record<string, unknown>) => fx.host.call("fs.read", args, { runId: "r" });

describe("fs.read", () => {
  it("returns the whole file with its size and sha256 (seed 000 §6.2)", async () => {
    const text = "alpha\nbeta\r\ngamma";
    fx.put("project/a.txt", text);
    expect(await read({ path: "@project/a.txt" })).toEqual({
      ok: true,
      path: "@project/a.txt",
      bytes: Buffer.byteLength(text),
      sha256: sha(text),
      truncated: false,
      content: text,
      lineStart: 1,
      lineEnd: 3,
      totalLines: 3,
    });
  });

  it("reads a line window, keeping line endings, with the sha256 of the whole file", async () => {
    const text = "l1\nl2\r\nl3\nl4\n";
    fx.put("project/a.txt", text);
    expect(await read({ path: "@project/a.txt", offset: 2, limit: 2 })).toMatchObject({ ok: true, content: "l2\r\nl3\n", lineStart: 2, lineEnd: 3, totalLines: 4, sha256: sha(text) });
    expect(await read({ path: "@project/a.txt", offset: 4, limit: 10 })).toMatchObject({ ok: true, content: "l4\n", lineEnd: 4 });
    const past = await read({ path: "@project/a.txt", offset: 9 });
    expect(past).toMatchObject({ ok: false, error: { code: "E_SCHEMA_VALIDATION" } });
    if (!past.ok) expect(past.error.message).toContain("has 4 lines");
  });

  it("reads an empty file", async () => {
    fx.put("project/empty.txt", "");
    expect(await read({ path: "@project/empty.txt" })).toMatchObject({ ok: true, content: "", totalLines: 0, bytes: 0 });
  });

  it("truncates a selection over the size limit, with a preview of whole lines and a hint to read on", async () => {
    const lines = Array.from({ length: 30 }, (_, i) => `line number ${String(i + 1).padStart(2, "0")}`);
    fx.put("project/long.txt", lines.join("\n") + "\n");
    const result = await read({ path: "@project/long.txt" });
    expect(result).toMatchObject({ ok: true, truncated: true, lineStart: 1, totalLines: 30 });
    if (!result.ok || result.truncated !== true) throw new Error("expected a truncated read");
    const preview = result.contentPreview as string;
    expect(Buffer.byteLength(preview)).toBeLessThanOrEqual(100);
    expect(preview).toBe(lines.slice(0, result.lineEnd as number).join("\n") + "\n");
    expect(result.hint).toContain(`"offset":${(result.lineEnd as number) + 1}`);
    expect("content" in result).toBe(false);
    // Following the hint reads on from the next line.
    const next = await read({ path: "@project/long.txt", offset: (result.lineEnd as number) + 1, limit: 3 });
    expect(next).toMatchObject({ ok: true, truncated: false, content: lines.slice(result.lineEnd as number, (result.lineEnd as number) + 3).join("\n") + "\n" });
  });

  it("cuts a single overlong line without splitting a character", async () => {
    fx.put("project/wide.txt", "é".repeat(80) + "\n");
    const result = await read({ path: "@project/wide.txt" });
    expect(result).toMatchObject({ ok: true, truncated: true, lineEnd: 1 });
    if (result.ok) {
      expect(result.contentPreview).toBe("é".repeat(50));
      expect(result.hint).toContain("fs.search");
    }
  });

  it("refuses binary files with a clear code, and files over the hard limit", async () => {
    fx.put("project/img.png", new Uint8Array([0x89, 0x50, 0x4e, 0x47, 0, 0, 1, 2]));
    fx.put("project/latin1.txt", new Uint8Array([0x63, 0x61, 0x66, 0xe9]));
    expect(await read({ path: "@project/img.png" })).toMatchObject({ ok: false, error: { code: "E_BINARY_FILE", details: { bytes: 8 } } });
    expect(await read({ path: "@project/latin1.txt" })).toMatchObject({ ok: false, error: { code: "E_BINARY_FILE" } });
    fx.put("project/huge.txt", "x".repeat(10_001));
    const huge = await read({ path: "@project/huge.txt" });
    expect(huge).toMatchObject({ ok: false, error: { code: "E_READ_LIMIT", details: { bytes: 10_001, limit: 10_000 } } });
  });

  it("says what is missing, and that a folder is not a file", async () => {
    fx.put("project/docs/a.md", "x");
    expect(await read({ path: "@project/docs/b.md" })).toMatchObject({ ok: false, error: { code: "ENOENT", message: expect.stringContaining("@project/docs/b.md does not exist") } });
    expect(await read({ path: "@project/nope/b.md" })).toMatchObject({ ok: false, error: { code: "ENOENT", details: { missing: "@project/nope" } } });
    expect(await read({ path: "@project/docs" })).toMatchObject({ ok: false, error: { code: "EISDIR" } });
    expect(await read({ path: "@project/docs/a.md/x" })).toMatchObject({ ok: false, error: { code: "ENOTDIR" } });
  });

  it("validates its arguments", async () => {
    const result = await read({ path: "@project/a.txt", offset: 0, lines: 3 });
    expect(result).toMatchObject({ ok: false, error: { code: "E_SCHEMA_VALIDATION" } });
    if (!result.ok) {
      expect(result.error.message).toContain("offset");
      expect(result.error.message).toContain("lines");
    }
  });
});

import { afterEach, beforeEach, describe, expect, it, onTestFinished } from "vitest";
import { createFixture, type Fixture } from "../testing/fixture.ts";

let fx: Fixture;
beforeEach(() => {
  fx = createFixture({ limits: { maxSearchMatches: 50, maxSearchFileBytes: 1000 } });
  fx.put("project/src/a.ts", "const a = 1;\n// TODO: rename\nexport { a };\n");
  fx.put("project/src/b.ts", "// todo lower\nconst TODO_LIST = [];\n");
  fx.put("project/docs/guide.md", "# Guide\nintro\nTODO: write\noutro\n");
  fx.put("project/.git/COMMIT_EDITMSG", "TODO in git\n");
  fx.put("project/node_modules/dep/index.js", "// TODO dep\n");
  fx.put("project/bin/tool", new Uint8Array([0x54, 0x4f, 0x44, 0x4f, 0, 1]));
  fx.put("project/big.txt", "TODO\n" + "x".repeat(2000));
});
afterEach(() => fx.cleanup());

const search = (args: Record<string, unknown>) => fx.host.call("fs.search", args, { runId: "r" });

describe("fs.search", () => {
  it("finds a literal text with line and column, skipping binaries, big files, .git and node_modules (seed 000 §6.3)", async () => {
    expect(await search({ pattern: "TODO" })).toEqual({
      ok: true,
      matches: [
        { path: "@project/docs/guide.md", line: 3, column: 1, text: "TODO: write" },
        { path: "@project/src/a.ts", line: 2, column: 4, text: "// TODO: rename" },
        { path: "@project/src/b.ts", line: 2, column: 7, text: "const TODO_LIST = [];" },
      ],
      truncated: false,
      stats: { filesScanned: 3, matchesFound: 3, filesSkipped: { binary: 1, tooLarge: 1, unsafe: 0 } },
    });
  });

  it("treats the pattern literally unless regex is set", async () => {
    expect(await search({ pattern: "[];" })).toMatchObject({ matches: [{ path: "@project/src/b.ts", line: 2 }] });
    expect(await search({ pattern: "^TODO:?\\s", regex: true })).toMatchObject({ matches: [{ path: "@project/docs/guide.md", line: 3 }] });
  });

  it("matches case-insensitively on request, in a sub-path or a single file, with a glob filter", async () => {
    const insensitive = await search({ pattern: "todo", caseSensitive: false, path: "@project/src" });
    expect(insensitive).toMatchObject({ ok: true });
    if (insensitive.ok) expect((insensitive.matches as Array<{ line: number }>).map((m) => m.line)).toEqual([2, 1, 2]);
    expect(await search({ pattern: "TODO", path: "@project/src/a.ts" })).toMatchObject({ matches: [{ path: "@project/src/a.ts", line: 2 }] });
    expect(await search({ pattern: "TODO", include: "**/*.md" })).toMatchObject({ matches: [{ path: "@project/docs/guide.md" }] });
  });

  it("gives context lines before and after", async () => {
    expect(await search({ pattern: "TODO:", path: "@project/docs", contextLines: 1 })).toMatchObject({
      matches: [{ line: 3, text: "TODO: write", before: ["intro"], after: ["outro"] }],
    });
  });

  it("stops at the match limit and says so", async () => {
    const result = await search({ pattern: "o", maxMatches: 2 });
    expect(result).toMatchObject({ ok: true, truncated: true, stats: { matchesFound: 2 } });
    if (result.ok) expect(result.hint).toContain("match limit");
  });

  it("stops at the limit of files scanned", async () => {
    const small = createFixture({ limits: { maxSearchFiles: 2 } });
    onTestFinished(() => small.cleanup());
    for (let i = 0; i < 5; i++) small.put(`project/f${i}.txt`, "needle\n");
    const result = await small.host.call("fs.search", { pattern: "needle" });
    expect(result).toMatchObject({ ok: true, truncated: true, stats: { filesScanned: 2, matchesFound: 2 } });
  });

  it("refuses invalid and catastrophic regular expressions with a precise reason", async () => {
    const invalid = await search({ pattern: "(unclosed", regex: true });
    expect(invalid).toMatchObject({ ok: false, error: { code: "E_SCHEMA_VALIDATION" } });
    if (!invalid.ok) expect(invalid.error.message).toContain("not a valid regular expression");
    for (const pattern of ["(a+)+$", "(\\w*)*x", "((ab)*c)+"]) {
      const nested = await search({ pattern, regex: true });
      expect(nested).toMatchObject({ ok: false, error: { code: "E_SCHEMA_VALIDATION" } });
      if (!nested.ok) expect(nested.error.message).toContain("exponential time");
    }
    // A literal search for the same text is fine.
    expect(await search({ pattern: "(a+)+$" })).toMatchObject({ ok: true, matches: [] });
  });
});

import { createHash } from "node:crypto";
import { readFileSync } from "node:fs";
import { join } from "node:path";
import { createTwoFilesPatch } from "diff";
import { parse } from "yaml";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { createFixture, type Fixture } from "../testing/fixture.ts";

let fx: Fixture;
beforeEach(() => {
  fx = createFixture({ limits: { maxWriteBytes: 4000 } });
});
afterEach(() => fx.cleanup());

const sha = (data: string) => createHash("sha256").update(data).digest("hex");
const patch = (args: Record<string, unknown>) => fx.host.call("fs.apply_patch", args, { runId: "r" });
const onDisk = (relative: string) => readFileSync(join(fx.project, relative), "utf8");

const ORIGINAL = Array.from({ length: 20 }, (_, i) => `line ${i + 1}`).join("\n") + "\n";

describe("fs.apply_patch with a unified diff", () => {
  it("applies every hunk and reports digests before and after", async () => {
    fx.put("project/a.txt", ORIGINAL);
    const changed = ORIGINAL.replace("line 2\n", "line two\n").replace("line 18\n", "line 18\nline 18.5\n");
    const diff = createTwoFilesPatch("a/a.txt", "b/a.txt", ORIGINAL, changed, "", "", { context: 2 });
    expect(await patch({ path: "@project/a.txt", patch: diff })).toEqual({ ok: true, path: "@project/a.txt", sha256Before: sha(ORIGINAL), sha256After: sha(changed), applied: 2 });
    expect(onDisk("a.txt")).toBe(changed);
  });

  it("places a hunk whose line numbers drifted where its context matches", async () => {
    fx.put("project/a.txt", "new first line\n" + ORIGINAL);
    const diff = "--- a/a.txt\n+++ b/a.txt\n@@ -9,3 +9,3 @@\n line 9\n-line 10\n+line ten\n line 11\n";
    expect(await patch({ path: "@project/a.txt", patch: diff })).toMatchObject({ ok: true, applied: 1 });
    expect(onDisk("a.txt")).toContain("line 9\nline ten\nline 11\n");
  });

  it("changes nothing when one hunk does not apply, and says which and why", async () => {
    fx.put("project/a.txt", ORIGINAL);
    const diff = ["--- a/a.txt", "+++ b/a.txt", "@@ -1,2 +1,2 @@", " line 1", "-line 2", "+line two", "@@ -10,2 +10,2 @@", " line 10", "-line eleven", "+line 11!", ""].join("\n");
    const result = await patch({ path: "@project/a.txt", patch: diff });
    expect(result).toMatchObject({ ok: false, error: { code: "E_PATCH_FAILED", details: { hunk: 2, header: "@@ -10,2 +10,2 @@" } } });
    if (!result.ok) {
      expect(result.error.message).toContain("Hunk 2 of 2");
      expect(result.error.message).toContain('line 11 should be "line eleven" but the file has "line 11"');
      expect(result.error.message).toContain("Nothing was changed");
    }
    expect(onDisk("a.txt")).toBe(ORIGINAL);
  });

  it("keeps CRLF line endings and the missing final newline", async () => {
    fx.put("project/w.txt", "a\r\nb\r\nc");
    const diff = "--- a/w.txt\n+++ b/w.txt\n@@ -1,3 +1,3 @@\n a\n-b\n+B\n c\n\\ No newline at end of file\n";
    expect(await patch({ path: "@project/w.txt", patch: diff })).toMatchObject({ ok: true });
    expect(onDisk("w.txt")).toBe("a\r\nB\r\nc");
  });

  it("creates a file from a diff against /dev/null, and refuses other diffs of a missing file", async () => {
    const diff = "--- /dev/null\n+++ b/new.txt\n@@ -0,0 +1,2 @@\n+hello\n+world\n";
    expect(await patch({ path: "@project/new.txt", patch: diff })).toMatchObject({ ok: true, sha256Before: null });
    expect(onDisk("new.txt")).toBe("hello\nworld\n");
    expect(await patch({ path: "@project/missing.txt", patch: "@@ -1 +1 @@\n-a\n+b\n" })).toMatchObject({ ok: false, error: { code: "ENOENT" } });
  });

  it("refuses patches of several files or without hunks", async () => {
    fx.put("project/a.txt", ORIGINAL);
    const two = createTwoFilesPatch("a", "a", "x\n", "y\n") + createTwoFilesPatch("b", "b", "x\n", "y\n");
    expect(await patch({ path: "@project/a.txt", patch: two })).toMatchObject({ ok: false, error: { code: "E_SCHEMA_VALIDATION", message: expect.stringContaining("2 files") } });
    expect(await patch({ path: "@project/a.txt", patch: "just some text" })).toMatchObject({ ok: false, error: { code: "E_SCHEMA_VALIDATION", message: expect.stringContaining("no hunks") } });
  });
});

describe("fs.apply_patch with search/replace blocks", () => {
  const block = (search: string, replace: string) => `<<<<<<< SEARCH\n${search}\n=======\n${replace}\n>>>>>>> REPLACE\n`;

  it("applies blocks in order", async () => {
    fx.put("project/a.ts", "function a() {\n  return 1;\n}\nfunction b() {\n  return 2;\n}\n");
    const result = await patch({ path: "@project/a.ts", patch: "Some prose first.\n" + block("  return 1;", "  return 10;") + block("function b() {\n  return 2;", "function b() {\n  return 20;") });
    expect(result).toMatchObject({ ok: true, applied: 2 });
    expect(onDisk("a.ts")).toBe("function a() {\n  return 10;\n}\nfunction b() {\n  return 20;\n}\n");
  });

  it("is all or nothing: an ambiguous or missing SEARCH changes nothing and says why", async () => {
    const text = "x = 1\ny = 2\nx = 1\n  z = 3\n";
    fx.put("project/a.txt", text);
    const ambiguous = await patch({ path: "@project/a.txt", patch: block("y = 2", "y = 20") + block("x = 1", "x = 10") });
    expect(ambiguous).toMatchObject({ ok: false, error: { code: "E_PATCH_FAILED", details: { block: 2, lines: [1, 3] } } });
    if (!ambiguous.ok) expect(ambiguous.error.message).toContain("occurs 2 times");
    const loose = await patch({ path: "@project/a.txt", patch: block("z = 3", "z = 30") });
    expect(loose).toMatchObject({ ok: true });
    const missing = await patch({ path: "@project/a.txt", patch: block("y = 2", "y = 3") + block("w = 9", "w = 0") });
    expect(missing).toMatchObject({ ok: false, error: { code: "E_PATCH_FAILED", details: { block: 2 } } });
    if (!missing.ok) expect(missing.error.message).toContain("was not found");
    const indent = await patch({ path: "@project/a.txt", patch: block("z = 30", "z = 4").replace("z = 30", "    z = 30") });
    expect(indent).toMatchObject({ ok: false, error: { code: "E_PATCH_FAILED", details: { looseMatchLine: 4 } } });
    expect(onDisk("a.txt")).toBe("x = 1\ny = 2\nx = 1\n  z = 30\n");
  });

  it("refuses a malformed block", async () => {
    fx.put("project/a.txt", "a\n");
    expect(await patch({ path: "@project/a.txt", patch: "<<<<<<< SEARCH\na\n>>>>>>> REPLACE\n" })).toMatchObject({ ok: false, error: { code: "E_SCHEMA_VALIDATION", details: { block: 1 } } });
  });

  it("honours ifMatchSha256 and the write limit", async () => {
    fx.put("project/a.txt", "a\n");
    expect(await patch({ path: "@project/a.txt", patch: block("a", "b"), ifMatchSha256: sha("other") })).toMatchObject({ ok: false, error: { code: "E_PRECONDITION_FAILED" } });
    expect(await patch({ path: "@project/a.txt", patch: block("a", "b".repeat(5000)) })).toMatchObject({ ok: false, error: { code: "E_WRITE_LIMIT" } });
    expect(onDisk("a.txt")).toBe("a\n");
    expect(await patch({ path: "@project/a.txt", patch: block("a", "b"), ifMatchSha256: sha("a\n") })).toMatchObject({ ok: true });
  });

  it("refuses a patch that would break a Markdown document's frontmatter", async () => {
    fx.put("project/doc.md", "---\ntitle: ok\n---\nbody\n");
    expect(await patch({ path: "@project/doc.md", patch: block("title: ok", "title: [broken") })).toMatchObject({ ok: false, error: { code: "E_INVALID_FRONTMATTER" } });
    expect(onDisk("doc.md")).toBe("---\ntitle: ok\n---\nbody\n");
  });
});

describe("fs.apply_patch updateFrontmatter (seed 000 §6.6)", () => {
  const STATE = "---\n# run state\ncurrentNodeId: start\nstepsCompleted:\n  - start\nvariables:\n  topic: cats\ncustom: kept\n---\n# Workflow\n\nBody stays.\n";

  it("appends, sets and keeps comments, other keys and the body", async () => {
    fx.put("project/workflow.md", STATE);
    const result = await patch({
      path: "@project/workflow.md",
      operation: "updateFrontmatter",
      update: {
        stepsCompleted: { append: ["outline"] },
        variables: { set: { length: 3 } },
        decisionLog: { append: [{ node: "outline", choice: "short" }] },
        artifacts: { append: ["@project/artifacts/outline.md"] },
        currentNodeId: { set: "draft" },
        updatedAt: { set: "2025-01-02T03:04:05Z" },
      },
      ifMatchSha256: sha(STATE),
    });
    expect(result).toMatchObject({ ok: true, sha256Before: sha(STATE) });
    const text = onDisk("workflow.md");
    expect(text.endsWith("---\n# Workflow\n\nBody stays.\n")).toBe(true);
    expect(text).toContain("# run state");
    expect(parse(text.split("---\n")[1])).toEqual({
      currentNodeId: "draft",
      stepsCompleted: ["start", "outline"],
      variables: { topic: "cats", length: 3 },
      custom: "kept",
      decisionLog: [{ node: "outline", choice: "short" }],
      artifacts: ["@project/artifacts/outline.md"],
      updatedAt: "2025-01-02T03:04:05Z",
    });
  });

  it("refuses documents without valid frontmatter, or whose keys have the wrong type", async () => {
    fx.put("project/plain.md", "# No frontmatter\n");
    fx.put("project/broken.md", "---\nstepsCompleted: [a\n---\n");
    fx.put("project/wrong.md", "---\nstepsCompleted: done\nvariables: [1]\n---\n");
    fx.put("project/unclosed.md", "---\na: 1\n");
    const update = { stepsCompleted: { append: ["x"] } };
    for (const name of ["plain", "broken", "wrong", "unclosed"]) {
      const result = await patch({ path: `@project/${name}.md`, operation: "updateFrontmatter", update });
      expect(result, name).toMatchObject({ ok: false, error: { code: "E_INVALID_FRONTMATTER" } });
    }
    const wrong = await patch({ path: "@project/wrong.md", operation: "updateFrontmatter", update });
    if (!wrong.ok) expect(wrong.error.message).toContain("stepsCompleted");
    expect(onDisk("wrong.md")).toBe("---\nstepsCompleted: done\nvariables: [1]\n---\n");
  });

  it("validates the update itself", async () => {
    fx.put("project/s.md", STATE);
    for (const update of [{}, { stepsCompleted: ["x"] }, { updatedAt: { set: "yesterday" } }, { unknownKey: { set: 1 } }]) {
      expect(await patch({ path: "@project/s.md", operation: "updateFrontmatter", update })).toMatchObject({ ok: false, error: { code: "E_SCHEMA_VALIDATION" } });
    }
    expect(await patch({ path: "@project/s.md", patch: "x", operation: "updateFrontmatter", update: { currentNodeId: { set: "a" } } })).toMatchObject({
      ok: false,
      error: { code: "E_SCHEMA_VALIDATION" },
    });
    expect(onDisk("s.md")).toBe(STATE);
  });
});

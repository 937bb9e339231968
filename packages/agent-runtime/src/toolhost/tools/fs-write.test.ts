import { spawn } from "node:child_process";
import { createHash } from "node:crypto";
import { chmodSync, readFileSync, readdirSync, statSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from "vitest";
import { createFixture, type Fixture } from "../testing/fixture.ts";

let fx: Fixture;
beforeEach(() => {
  fx = createFixture({ limits: { maxWriteBytes: 1000 } });
});
afterEach(() => fx.cleanup());

const sha = (data: string) => createHash("sha256").update(data).digest("hex");
const write = (args: Record<string, unknown>) => fx.host.call("fs.write", args, { runId: "r" });
const onDisk = (relative: string) => readFileSync(join(fx.project, relative), "utf8");

describe("fs.write", () => {
  it("creates a file and its folders, and reports the result (seed 000 §6.5)", async () => {
    expect(await write({ path: "@project/notes/a/b.md", content: "# Hi\n" })).toEqual({
      ok: true,
      path: "@project/notes/a/b.md",
      bytesWritten: 5,
      sha256After: sha("# Hi\n"),
      sha256Before: null,
      created: true,
    });
    expect(onDisk("notes/a/b.md")).toBe("# Hi\n");
  });

  it("overwrites, appends and refuses to overwrite in create mode", async () => {
    await write({ path: "@project/a.txt", content: "one\n" });
    expect(await write({ path: "@project/a.txt", content: "two\n", mode: "append" })).toMatchObject({ ok: true, bytesWritten: 4, sha256After: sha("one\ntwo\n"), created: false });
    expect(onDisk("a.txt")).toBe("one\ntwo\n");
    const refused = await write({ path: "@project/a.txt", content: "three\n", mode: "create" });
    expect(refused).toMatchObject({ ok: false, error: { code: "EEXIST" } });
    if (!refused.ok) expect(refused.error.message).toContain('mode "overwrite"');
    expect(await write({ path: "@project/a.txt", content: "three\n" })).toMatchObject({ ok: true, sha256Before: sha("one\ntwo\n") });
    expect(onDisk("a.txt")).toBe("three\n");
  });

  it("keeps the file's permissions when replacing it", async () => {
    fx.put("project/run.sh", "echo 1\n");
    chmodSync(join(fx.project, "run.sh"), 0o750);
    await write({ path: "@project/run.sh", content: "echo 2\n" });
    expect(statSync(join(fx.project, "run.sh")).mode & 0o777).toBe(0o750);
  });

  it("writes only when ifMatchSha256 still matches", async () => {
    fx.put("project/doc.md", "v1\n");
    const stale = sha("v0\n");
    const refused = await write({ path: "@project/doc.md", content: "v2\n", ifMatchSha256: stale });
    expect(refused).toMatchObject({ ok: false, error: { code: "E_PRECONDITION_FAILED", details: { expected: stale, actual: sha("v1\n") } } });
    expect(onDisk("doc.md")).toBe("v1\n");
    expect(await write({ path: "@project/doc.md", content: "v2\n", ifMatchSha256: sha("v1\n").toUpperCase() })).toMatchObject({ ok: true });
    expect(await write({ path: "@project/new.md", content: "x", ifMatchSha256: stale })).toMatchObject({ ok: false, error: { code: "E_PRECONDITION_FAILED" } });
    expect(await write({ path: "@project/doc.md", content: "x", ifMatchSha256: "abc" })).toMatchObject({ ok: false, error: { code: "E_SCHEMA_VALIDATION" } });
  });

  it("refuses content over the write limit and leaves the file as it was", async () => {
    fx.put("project/a.txt", "small\n");
    const refused = await write({ path: "@project/a.txt", content: "x".repeat(1001) });
    expect(refused).toMatchObject({ ok: false, error: { code: "E_WRITE_LIMIT", details: { bytes: 1001, limit: 1000 } } });
    expect(await write({ path: "@project/a.txt", content: "y".repeat(995), mode: "append" })).toMatchObject({ ok: false, error: { code: "E_WRITE_LIMIT" } });
    expect(onDisk("a.txt")).toBe("small\n");
  });

  it("refuses a Markdown document whose frontmatter is broken", async () => {
    const refused = await write({ path: "@state/workflow.md", content: "---\nstepsCompleted: [a\n---\nbody\n" });
    expect(refused).toMatchObject({ ok: false, error: { code: "E_INVALID_FRONTMATTER" } });
    expect(await write({ path: "@state/workflow.md", content: "---\nstepsCompleted: notalist\n---\n" })).toMatchObject({ ok: false, error: { code: "E_INVALID_FRONTMATTER" } });
    expect(await write({ path: "@state/workflow.md", content: "---\nstepsCompleted: [a]\n---\nbody\n" })).toMatchObject({ ok: true });
    // Not Markdown: not checked.
    expect(await write({ path: "@project/notes.txt", content: "---\n[\n---\n" })).toMatchObject({ ok: true });
  });

  it("refuses the mount root and a missing folder when createDirs is off", async () => {
    expect(await write({ path: "@project/", content: "x" })).toMatchObject({ ok: false, error: { code: "EISDIR" } });
    expect(await write({ path: "@project/no/such/a.txt", content: "x", createDirs: false })).toMatchObject({ ok: false, error: { code: "ENOENT" } });
  });

  it("serialises concurrent writes to one file: no append is lost or interleaved", async () => {
    const host = createFixture({ limits: { maxWriteBytes: 1 << 20 } });
    onTestFinished(() => host.cleanup());
    const lines = Array.from({ length: 60 }, (_, i) => `branch ${String(i).padStart(2, "0")} ${"x".repeat(200)}\n`);
    const results = await Promise.all(lines.map((line) => host.host.call("fs.write", { path: "@project/log.txt", content: line, mode: "append" }, { runId: "r" })));
    expect(results.every((r) => r.ok)).toBe(true);
    const written = readFileSync(join(host.project, "log.txt"), "utf8").split(/(?<=\n)/);
    expect(written).toHaveLength(60);
    expect([...written].sort()).toEqual([...lines].sort());
    // Arrival order is kept.
    expect(written).toEqual(lines);
  });

  it("leaves the old content intact when the writing process is killed mid-write", async () => {
    fx.put("project/big.txt", "old content\n");
    const script = join(import.meta.dirname, "../testing/write-big-file.ts");
    const child = spawn(process.execPath, [script, fx.project, fx.pkg, fx.state, "@project/big.txt", "256"], { stdio: ["ignore", "pipe", "inherit"] });
    await new Promise<void>((resolve) => child.stdout.once("data", () => resolve()));
    // Wait until the temporary file exists and is growing, then kill without warning.
    let temp: string | undefined;
    for (let i = 0; i < 20_000 && !temp; i++) {
      temp = readdirSync(fx.project).find((n) => n.endsWith(".tmp") && statSync(join(fx.project, n)).size > 0);
      if (!temp) await new Promise((r) => setTimeout(r, 1));
    }
    child.kill("SIGKILL");
    await new Promise((resolve) => child.once("exit", resolve));
    expect(temp, "the kill landed mid-write").toBeDefined();
    // Only part of the new content had reached the disk.
    expect(statSync(join(fx.project, temp as string)).size).toBeLessThan(256 * 1024 * 1024);
    expect(onDisk("big.txt")).toBe("old content\n");
    // The leftover temporary file is invisible to the tools, and the next write works.
    expect(await fx.host.call("fs.list", { path: "@project/" })).toMatchObject({ entries: ["big.txt"] });
    expect(await write({ path: "@project/big.txt", content: "after\n" })).toMatchObject({ ok: true });
    expect(onDisk("big.txt")).toBe("after\n");
  });
});

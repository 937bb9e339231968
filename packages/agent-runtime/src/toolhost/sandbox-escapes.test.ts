import { execFileSync } from "node:child_process";
import { existsSync, linkSync, mkdirSync, readFileSync, readdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ToolResult } from "@weft/types";
import { SECRET, createFixture, resultText, type Fixture } from "./testing/fixture.ts";
import { ToolHost } from "./tool-host.ts";

let fx: Fixture;
beforeEach(() => {
  fx = createFixture();
  fx.put("project/docs/readme.md", "inside\n");
  fx.put("pkg/workflow.json", "{}\n");
});
afterEach(() => fx.cleanup());

const ctx = { runId: "run-1" };

function expectRefused(result: ToolResult, code = "E_SANDBOX_VIOLATION"): void {
  expect(result.ok).toBe(false);
  if (result.ok) return;
  expect(result.error.code).toBe(code);
  expect(resultText(result)).not.toContain(SECRET);
}

describe("paths that try to leave their mount", () => {
  it.each([
    "@project/../outside/secret.txt",
    "@project/docs/../../outside/secret.txt",
    "@project/%2e%2e/outside/secret.txt",
    "@project/%252e%252e/outside/secret.txt",
    "@project/..%2foutside/secret.txt",
    "@project/\uff0e\uff0e/outside/secret.txt",
    "@project/\u2025/outside/secret.txt",
    "@project/..\\outside\\secret.txt",
    "/etc/passwd",
    "@outside/secret.txt",
    "outside/secret.txt",
    "@project/docs/readme.md\u0000.png",
  ])("fs.read refuses %j", async (path) => {
    expectRefused(await fx.host.call("fs.read", { path }, ctx));
  });

  it("refuses absolute paths that point into the mount's own real folder", async () => {
    expectRefused(await fx.host.call("fs.read", { path: join(fx.project, "docs/readme.md") }, ctx));
  });

  it("refuses very long paths before touching the disk", async () => {
    const result = await fx.host.call("fs.read", { path: "@project/" + "deep/".repeat(400) + "x" }, ctx);
    expectRefused(result);
    if (!result.ok) expect(result.error.message).toContain("over the limit");
  });

  it.each(["fs.write", "fs.apply_patch"])("%s refuses every escape too and creates nothing outside", async (tool) => {
    const args = tool === "fs.write" ? { content: "pwned" } : { patch: "<<<<<<< SEARCH\n=======\npwned\n>>>>>>> REPLACE" };
    for (const path of ["@project/../outside/new.txt", "@project/%2e%2e/outside/new.txt", "/tmp/pwned.txt", "@state/../outside/new.txt"]) {
      expectRefused(await fx.host.call(tool, { path, ...args }, ctx));
    }
    expect(readdirSync(fx.outside)).toEqual(["secret.txt"]);
  });
});

describe("symbolic links", () => {
  it("are refused at any depth, for files and folders", async () => {
    mkdirSync(join(fx.project, "a/b/c"), { recursive: true });
    symlinkSync(fx.outside, join(fx.project, "a/b/c/link"));
    symlinkSync(join(fx.outside, "secret.txt"), join(fx.project, "a/secret-link.txt"));
    symlinkSync(fx.outside, join(fx.project, "top"));
    for (const path of ["@project/a/b/c/link/secret.txt", "@project/a/secret-link.txt", "@project/top/secret.txt"]) {
      const result = await fx.host.call("fs.read", { path }, ctx);
      expectRefused(result);
      if (!result.ok) expect(result.error.message).toContain("symbolic link");
    }
    expectRefused(await fx.host.call("fs.list", { path: "@project/top" }, ctx));
    expectRefused(await fx.host.call("fs.search", { pattern: "SECRET", path: "@project/top" }, ctx));
  });

  it("are refused even when they point inside the mount", async () => {
    symlinkSync(join(fx.project, "docs"), join(fx.project, "docs-link"));
    expectRefused(await fx.host.call("fs.read", { path: "@project/docs-link/readme.md" }, ctx));
  });

  it("are never written through: neither a linked folder nor a linked file", async () => {
    symlinkSync(fx.outside, join(fx.project, "out"));
    symlinkSync(join(fx.outside, "secret.txt"), join(fx.project, "secret-link.txt"));
    expectRefused(await fx.host.call("fs.write", { path: "@project/out/new.txt", content: "x" }, ctx));
    expectRefused(await fx.host.call("fs.write", { path: "@project/secret-link.txt", content: "overwritten" }, ctx));
    expectRefused(await fx.host.call("fs.apply_patch", { path: "@project/secret-link.txt", patch: "<<<<<<< SEARCH\nTOP\n=======\nX\n>>>>>>> REPLACE" }, ctx));
    expect(readFileSync(join(fx.outside, "secret.txt"), "utf8")).toBe(SECRET + "\n");
    expect(readdirSync(fx.outside)).toEqual(["secret.txt"]);
  });

  it("are listed as links and skipped by search, never followed", async () => {
    symlinkSync(fx.outside, join(fx.project, "out"));
    const list = await fx.host.call("fs.list", { path: "@project/", recursive: true }, ctx);
    expect(list).toMatchObject({ ok: true, entries: ["docs/", "docs/readme.md", "out"] });
    const search = await fx.host.call("fs.search", { pattern: "SECRET", path: "@project/" }, ctx);
    expect(search).toMatchObject({ ok: true, matches: [] });
  });

  it("refuses a mount whose own folder was replaced by a link after start", async () => {
    const moved = join(fx.base, "project-moved");
    execFileSync("mv", [fx.project, moved]);
    symlinkSync(fx.outside, fx.project);
    const result = await fx.host.call("fs.read", { path: "@project/secret.txt" }, ctx);
    expectRefused(result);
    if (!result.ok) expect(result.error.message).toContain("replaced by a link");
  });
});

describe("special files", () => {
  it("refuses hard links, which may share their content with a file outside", async () => {
    linkSync(join(fx.outside, "secret.txt"), join(fx.project, "hard.txt"));
    const read = await fx.host.call("fs.read", { path: "@project/hard.txt" }, ctx);
    expectRefused(read);
    if (!read.ok) expect(read.error.message).toContain("hard link");
    expectRefused(await fx.host.call("fs.write", { path: "@project/hard.txt", content: "x" }, ctx));
    const search = await fx.host.call("fs.search", { pattern: "SECRET", path: "@project/" }, ctx);
    expect(search).toMatchObject({ ok: true, matches: [], stats: { filesSkipped: { unsafe: 1 } } });
    expect(readFileSync(join(fx.outside, "secret.txt"), "utf8")).toBe(SECRET + "\n");
  });

  it("refuses a FIFO at once instead of hanging on it", async () => {
    execFileSync("mkfifo", [join(fx.project, "pipe")]);
    const result = await fx.host.call("fs.read", { path: "@project/pipe" }, ctx);
    expectRefused(result);
    if (!result.ok) expect(result.error.message).toContain("FIFO");
    expectRefused(await fx.host.call("fs.write", { path: "@project/pipe", content: "x" }, ctx));
  });

  it.skipIf(process.getuid?.() !== 0)("refuses device files", async () => {
    execFileSync("mknod", [join(fx.project, "zero"), "c", "1", "5"]);
    const result = await fx.host.call("fs.read", { path: "@project/zero" }, ctx);
    expectRefused(result);
    if (!result.ok) expect(result.error.message).toContain("character device");
  });
});

describe("mount rules", () => {
  it("keeps @pkg/ read-only", async () => {
    expect(await fx.host.call("fs.read", { path: "@pkg/workflow.json" }, ctx)).toMatchObject({ ok: true, content: "{}\n" });
    for (const call of [
      fx.host.call("fs.write", { path: "@pkg/workflow.json", content: "changed" }, ctx),
      fx.host.call("fs.write", { path: "@pkg/new.json", content: "{}" }, ctx),
      fx.host.call("fs.apply_patch", { path: "@pkg/workflow.json", patch: "<<<<<<< SEARCH\n{}\n=======\n[]\n>>>>>>> REPLACE" }, ctx),
    ]) {
      const result = await call;
      expectRefused(result);
      if (!result.ok) expect(result.error.message).toContain("@pkg/ is read-only");
    }
    expect(readFileSync(join(fx.pkg, "workflow.json"), "utf8")).toBe("{}\n");
    expect(existsSync(join(fx.pkg, "new.json"))).toBe(false);
  });

  it("never writes inside .git/", async () => {
    mkdirSync(join(fx.project, ".git"));
    expectRefused(await fx.host.call("fs.write", { path: "@project/.git/config", content: "[core]\n\tfsmonitor = evil\n" }, ctx));
    expect(existsSync(join(fx.project, ".git/config"))).toBe(false);
  });

  it("gives every run its own @state/ folder, invisible to other runs and to the project", async () => {
    expect(await fx.host.call("fs.write", { path: "@state/workflow.md", content: "run one\n" }, { runId: "run-1" })).toMatchObject({ ok: true });
    expect(await fx.host.call("fs.read", { path: "@state/workflow.md" }, { runId: "run-2" })).toMatchObject({ ok: false, error: { code: "ENOENT" } });
    expect(await fx.host.call("fs.read", { path: "@state/workflow.md" }, { runId: "run-1" })).toMatchObject({ ok: true, content: "run one\n" });
    expect(readFileSync(join(fx.state, "run-1/workflow.md"), "utf8")).toBe("run one\n");
    expect(await fx.host.call("fs.read", { path: "@state/workflow.md" }, {})).toMatchObject({ ok: false, error: { code: "E_SANDBOX_VIOLATION" } });
    // A session (an agent's conversation) keeps one @state/ folder across its runs.
    await fx.host.call("fs.write", { path: "@state/notes.md", content: "kept\n" }, { runId: "step-1", sessionId: "conversation-7" });
    expect(await fx.host.call("fs.read", { path: "@state/notes.md" }, { runId: "step-2", sessionId: "conversation-7" })).toMatchObject({ ok: true, content: "kept\n" });
    expect(readFileSync(join(fx.state, "conversation-7/notes.md"), "utf8")).toBe("kept\n");
    const listed = await fx.host.call("fs.list", { path: "@project/", recursive: true }, { runId: "run-1" });
    expect(resultText(listed)).not.toContain("workflow.md");
  });

  it("refuses to start with mounts that contain one another", () => {
    const nested = join(fx.project, "state");
    mkdirSync(nested);
    expect(() => new ToolHost({ mounts: { project: fx.project, pkg: fx.pkg, state: nested } })).toThrow(/must not contain one another: @state\/ .* is inside @project\//);
    expect(() => new ToolHost({ mounts: { project: fx.project, pkg: fx.pkg, state: join(fx.base, "missing") } })).toThrow(/does not exist/);
  });
});

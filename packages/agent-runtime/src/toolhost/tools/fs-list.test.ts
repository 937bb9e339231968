import { mkdirSync, symlinkSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it, onTestFinished } from "vitest";
import { createFixture, type Fixture } from "../testing/fixture.ts";

let fx: Fixture;
beforeEach(() => {
  fx = createFixture({ limits: { maxListEntries: 6 } });
  fx.put("project/b.txt", "bb");
  fx.put("project/a/one.md", "1");
  fx.put("project/a/two.md", "22");
  fx.put("project/.git/HEAD", "ref");
  fx.put("project/node_modules/x/index.js", "");
  fx.put("project/.weft-00000000-0000-0000-0000-000000000000.tmp", "half-written");
  mkdirSync(join(fx.project, "empty"));
  symlinkSync("/etc", join(fx.project, "etc"));
});
afterEach(() => fx.cleanup());

describe("fs.list", () => {
  it("lists a folder with type and size, folders ending in /, hiding unfinished writes", async () => {
    const result = await fx.host.call("fs.list", { path: "@project/" });
    expect(result).toEqual({
      ok: true,
      path: "@project/",
      entries: [".git/", "a/", "b.txt", "empty/", "etc", "node_modules/"],
      items: [
        { path: ".git/", type: "dir" },
        { path: "a/", type: "dir" },
        { path: "b.txt", type: "file", bytes: 2 },
        { path: "empty/", type: "dir" },
        { path: "etc", type: "symlink" },
        { path: "node_modules/", type: "dir" },
      ],
      truncated: false,
    });
  });

  it("truncates past the limit with a preview and a hint (seed 000 §6.4)", async () => {
    const result = await fx.host.call("fs.list", { path: "@project/", recursive: true });
    expect(result).toMatchObject({ ok: true, truncated: true, entriesPreview: [".git/", "a/", "a/one.md", "a/two.md", "b.txt", "empty/"] });
    if (result.ok) {
      expect(result.hint).toContain("first 6 entries");
      expect("entries" in result).toBe(false);
    }
    expect(await fx.host.call("fs.list", { path: "@project/a", maxEntries: 1 })).toMatchObject({ truncated: true, entriesPreview: ["one.md"] });
  });

  it("does not enter .git and node_modules when recursive", async () => {
    const host = createFixture({ limits: { maxListEntries: 100 } });
    onTestFinished(() => host.cleanup());
    host.put("project/src/x.ts", "x");
    host.put("project/.git/HEAD", "ref");
    host.put("project/node_modules/m/index.js", "");
    expect(await host.host.call("fs.list", { path: "@project/", recursive: true })).toMatchObject({ entries: [".git/", "node_modules/", "src/", "src/x.ts"] });
  });

  it("says when the path is a file or missing", async () => {
    expect(await fx.host.call("fs.list", { path: "@project/b.txt" })).toMatchObject({ ok: false, error: { code: "ENOTDIR" } });
    expect(await fx.host.call("fs.list", { path: "@project/missing" })).toMatchObject({ ok: false, error: { code: "ENOENT" } });
  });
});

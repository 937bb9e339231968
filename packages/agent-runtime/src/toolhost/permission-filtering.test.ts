import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it } from "vitest";
import type { PermissionRuleInput } from "@weft/types";
import { createFixture, resultText, type Fixture } from "./testing/fixture.ts";

/** Path rules decide what listings, searches and commands return, not only which calls start (issue #15). */

const HIDDEN = "HIDDEN-BEHIND-A-PATH-RULE";

const fixtures: Fixture[] = [];
function fixture(rules: PermissionRuleInput[], commands?: Array<{ command: string }>): Fixture {
  const fx = createFixture({ permissions: { rules }, ...(commands ? { commands } : {}) });
  fx.put("project/open.txt", "TOKEN open\n");
  fx.put("project/secret/key.txt", `TOKEN ${HIDDEN}\n`);
  fx.put("project/secret/deeper/more.txt", `TOKEN ${HIDDEN}\n`);
  fixtures.push(fx);
  return fx;
}
afterEach(() => {
  for (const fx of fixtures.splice(0)) fx.cleanup();
});

const ctx = { runId: "r" };
const denySecret: PermissionRuleInput[] = [{ action: "deny", tool: "fs.*", target: "@project/secret/**" }];

describe("a path-scoped deny", () => {
  it("keeps denied files out of an fs.search of the folder above", async () => {
    const fx = fixture(denySecret);
    const result = await fx.host.call("fs.search", { pattern: "TOKEN", path: "@project/" }, ctx);
    expect(result).toMatchObject({ ok: true, matches: [{ path: "@project/open.txt" }] });
    expect(resultText(result)).not.toContain(HIDDEN);
  });

  it("keeps denied entries out of an fs.list of the folder above", async () => {
    const fx = fixture(denySecret);
    expect(await fx.host.call("fs.list", { path: "@project/", recursive: true }, ctx)).toMatchObject({ ok: true, entries: ["open.txt"] });
  });

  it("hides from a search what only fs.read is denied, or needs asking for, since a search shows content", async () => {
    for (const rule of [
      { action: "deny", tool: "fs.read", target: "@project/secret/**" },
      { action: "ask", tool: "fs.read", target: "@project/secret/*.txt" },
    ] satisfies PermissionRuleInput[]) {
      const fx = fixture([rule]);
      const result = await fx.host.call("fs.search", { pattern: "TOKEN", path: "@project/" }, ctx);
      expect(resultText(result), JSON.stringify(rule)).not.toContain("secret/key.txt");
    }
  });

  it("refuses a search aimed at a denied file, even when fs.search itself is allowed there", async () => {
    const fx = fixture([{ action: "deny", tool: "fs.read", target: "@project/secret/**" }]);
    const result = await fx.host.call("fs.search", { pattern: "TOKEN", path: "@project/secret/key.txt" }, ctx);
    expect(result).toMatchObject({ ok: false, error: { code: "E_PERMISSION_DENIED" } });
    expect(resultText(result)).not.toContain(HIDDEN);
  });

  it("refuses shell commands that name a denied path or work inside one", async () => {
    const fx = fixture(denySecret);
    for (const args of [
      { command: "cat secret/key.txt" },
      { command: "cat @project/secret/key.txt" },
      { command: "grep -r TOKEN secret" },
      { command: "ls", cwd: "@project/secret" },
      { command: "cat key.txt", cwd: "@project/secret" },
    ]) {
      const result = await fx.host.call("shell.exec", args, ctx);
      expect(result, JSON.stringify(args)).toMatchObject({ ok: false, error: { code: "E_PERMISSION_DENIED" } });
      expect(resultText(result)).not.toContain(HIDDEN);
    }
  });

  it("covers the denied folder inside the sandbox, so a recursive command from above does not see it, and leaves it intact", async () => {
    const fx = fixture(denySecret);
    const result = await fx.host.call("shell.exec", { command: "grep -rn TOKEN ." }, ctx);
    expect(result).toMatchObject({ ok: true, stdout: "./open.txt:1:TOKEN open\n" });
    expect(resultText(result)).not.toContain(HIDDEN);
    expect(readFileSync(join(fx.project, "secret/key.txt"), "utf8")).toBe(`TOKEN ${HIDDEN}\n`);
  });

  it("makes folders denied to fs.write read-only for commands", async () => {
    const fx = fixture([{ action: "deny", tool: "fs.write", target: "@project/secret/**" }], [{ command: "touch" }]);
    const inside = await fx.host.call("shell.exec", { command: "touch secret/new.txt" }, ctx);
    expect(inside).toMatchObject({ ok: true });
    expect(existsSync(join(fx.project, "secret/new.txt"))).toBe(false);
    expect(await fx.host.call("shell.exec", { command: "touch elsewhere.txt" }, ctx)).toMatchObject({ ok: true, exitCode: 0 });
    expect(existsSync(join(fx.project, "elsewhere.txt"))).toBe(true);
  });

  it("does not let the default action hide paths: a default-deny policy still lists what fs.list is allowed on", async () => {
    const fx = createFixture({
      permissions: {
        defaultAction: "deny",
        rules: [
          { action: "allow", tool: "fs.list" },
          { action: "allow", tool: "fs.search" },
        ],
      },
    });
    fixtures.push(fx);
    fx.put("project/a.txt", "TOKEN\n");
    expect(await fx.host.call("fs.list", {}, ctx)).toMatchObject({ ok: true, entries: ["a.txt"] });
    expect(await fx.host.call("fs.search", { pattern: "TOKEN" }, ctx)).toMatchObject({ ok: true, matches: [{ path: "@project/a.txt" }] });
  });
});

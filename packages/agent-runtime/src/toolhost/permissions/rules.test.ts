import { describe, expect, it } from "vitest";
import { PermissionPolicySchema, type PermissionPolicyInput } from "@weft/types";
import { decidePermission, toolNameForms, toolsMatching, visibleTools } from "./rules.ts";

const policy = (input: PermissionPolicyInput) => PermissionPolicySchema.parse(input);

describe("decidePermission", () => {
  const settings = policy({
    defaultAction: "ask",
    rules: [
      { tool: "fs.*", action: "allow" },
      { tool: "fs.write", target: "@project/**", action: "ask" },
      { tool: "fs.write", target: "@project/drafts/**", action: "allow" },
      { tool: "fs.*", target: "**/.env*", action: "deny" },
      { tool: "shell.exec", target: "git *", action: "allow" },
      { tool: "shell.exec", target: "git push *", action: "deny" },
      { tool: "*", agent: "intern-*", action: "deny" },
    ],
  });
  const decide = (tool: string, target?: string, agentId?: string) => decidePermission(settings, { tool, target, targetKind: tool === "shell.exec" ? "command" : "path", agentId }).action;

  it("lets the last matching rule win", () => {
    expect(decide("fs.read", "@project/a.md")).toBe("allow");
    expect(decide("fs.write", "@project/a.md")).toBe("ask");
    expect(decide("fs.write", "@project/drafts/a.md")).toBe("allow");
    expect(decide("fs.write", "@state/a.md")).toBe("allow");
    expect(decide("fs.read", "@project/.env")).toBe("deny");
    expect(decide("fs.write", "@project/drafts/.env.local")).toBe("deny");
  });

  it("falls back to the default and says where a decision came from", () => {
    expect(decide("shell.exec", "ls -la")).toBe("ask");
    expect(decidePermission(settings, { tool: "shell.exec", target: "ls", targetKind: "command" }).source).toEqual({ kind: "default" });
    expect(decidePermission(settings, { tool: "fs.read", target: "@project/a", targetKind: "path" }).source).toEqual({ kind: "rule", index: 0 });
  });

  it("matches commands with wildcards, a trailing ` *` covering the bare command", () => {
    expect(decide("shell.exec", "git status")).toBe("allow");
    expect(decide("shell.exec", "git log --oneline -- src/a.ts")).toBe("allow");
    expect(decide("shell.exec", "git push origin main")).toBe("deny");
    expect(decide("shell.exec", "gitk")).toBe("ask");
  });

  it("scopes rules to agents", () => {
    expect(decide("fs.read", "@project/a.md", "intern-7")).toBe("deny");
    expect(decide("fs.read", "@project/a.md", "senior")).toBe("allow");
  });

  it("puts session rules after the settings", () => {
    const session = [{ tool: "shell.exec", target: "ls -la", action: "allow" as const }];
    expect(decidePermission(settings, { tool: "shell.exec", target: "ls -la", targetKind: "command" }, { sessionRules: session })).toEqual({ action: "allow", source: { kind: "session", index: 0 } });
  });

  it("lets an agent's own rules only narrow the settings (the owner's ceiling)", () => {
    const query = { tool: "fs.write", target: "@project/drafts/a.md", targetKind: "path" as const };
    const agentRules = [
      { tool: "fs.write", action: "allow" as const },
      { tool: "fs.write", target: "@project/drafts/locked/**", action: "deny" as const },
      { tool: "fs.write", target: "@project/drafts/review/**", action: "ask" as const },
    ];
    // The owner allows, the agent allows too: the owner's rule decided.
    expect(decidePermission(settings, query, { agentRules })).toEqual({ action: "allow", source: { kind: "rule", index: 2 } });
    // The agent denies more, or asks where the owner allows.
    expect(decidePermission(settings, { ...query, target: "@project/drafts/locked/x" }, { agentRules })).toEqual({ action: "deny", source: { kind: "agent", index: 1 } });
    expect(decidePermission(settings, { ...query, target: "@project/drafts/review/x" }, { agentRules })).toEqual({ action: "ask", source: { kind: "agent", index: 2 } });
    // An agent's allow opens nothing the owner denies, asks for, or leaves at a restrictive default.
    const allowAll = [{ tool: "*", action: "allow" as const }];
    expect(decidePermission(settings, { ...query, target: "@project/.env" }, { agentRules: allowAll })).toEqual({ action: "deny", source: { kind: "rule", index: 3 } });
    expect(decidePermission(settings, { ...query, target: "@project/a.md" }, { agentRules: allowAll })).toEqual({ action: "ask", source: { kind: "rule", index: 1 } });
    expect(decidePermission(settings, { tool: "shell.exec", target: "rm -rf /", targetKind: "command" }, { agentRules: allowAll })).toEqual({ action: "ask", source: { kind: "default" } });
    expect(decidePermission(settings, { tool: "fs.read", target: "@project/a.md", targetKind: "path", agentId: "intern-1" }, { agentRules: allowAll }).action).toBe("deny");
    // With nothing denied, an agent's deny of the whole tool still holds.
    expect(decidePermission(policy({ rules: [] }), { tool: "shell.exec", target: "ls", targetKind: "command" }, { agentRules: [{ tool: "shell.*", action: "deny" }] })).toEqual({
      action: "deny",
      source: { kind: "agent", index: 0 },
    });
  });

  it("lets an `always` answer allow only what the layers above ask for, never what they deny", () => {
    const query = { tool: "fs.write", target: "@project/a.md", targetKind: "path" as const };
    const always = [{ tool: "fs.write", target: "@project/a.md", action: "allow" as const }];
    // The owner asks: the session's allow answers it.
    expect(decidePermission(settings, query, { sessionRules: always })).toEqual({ action: "allow", source: { kind: "session", index: 0 } });
    // The agent asks where the owner allows: answered too.
    const drafts = { ...query, target: "@project/drafts/a.md" };
    expect(decidePermission(settings, drafts, { agentRules: [{ tool: "fs.write", action: "ask" }], sessionRules: [{ tool: "fs.write", target: drafts.target, action: "allow" }] }).source).toEqual({
      kind: "session",
      index: 0,
    });
    // The owner denies, or the agent does: an `always` does not reopen it.
    const env = { ...query, target: "@project/.env" };
    expect(decidePermission(settings, env, { sessionRules: [{ tool: "fs.write", target: env.target, action: "allow" }] })).toEqual({ action: "deny", source: { kind: "rule", index: 3 } });
    expect(decidePermission(settings, query, { agentRules: [{ tool: "fs.write", action: "deny" }], sessionRules: always })).toEqual({ action: "deny", source: { kind: "agent", index: 0 } });
  });

  it("says which tools a pattern covers, so a misspelt one can be refused", () => {
    const names = ["fs.read", "fs.write", "fs.apply_patch", "shell.exec"];
    expect(toolsMatching("fs.*", names)).toEqual(["fs.read", "fs.write", "fs.apply_patch"]);
    expect(toolsMatching("fs:apply-patch", names)).toEqual(["fs.apply_patch"]);
    expect(toolsMatching("*", names)).toEqual(names);
    expect(toolsMatching("fs.wirte", names)).toEqual([]);
  });

  it("knows a tool by its node type too", () => {
    expect(toolNameForms("fs.apply_patch")).toEqual(["fs.apply_patch", "fs:apply-patch"]);
    expect(toolNameForms("fs:apply-patch")).toEqual(["fs:apply-patch", "fs.apply_patch"]);
    expect(decidePermission(policy({ defaultAction: "deny", rules: [{ tool: "fs:read", action: "allow" }] }), { tool: "fs.read" }).action).toBe("allow");
  });
});

describe("visibleTools", () => {
  const tools = ["fs:read", "fs:write", "fs:apply-patch", "shell:exec", "core:text-template"];

  it("hides tools denied whatever their target", () => {
    expect(visibleTools([{ tool: "shell.*", action: "deny" }], tools)).toEqual(["fs:read", "fs:write", "fs:apply-patch", "core:text-template"]);
    expect(
      visibleTools(
        [
          { tool: "fs.write", action: "deny" },
          { tool: "fs.apply_patch", action: "deny" },
        ],
        tools,
      ),
    ).toEqual(["fs:read", "shell:exec", "core:text-template"]);
  });

  it("keeps a tool that some later rule still allows for a target", () => {
    const rules = [
      { tool: "fs.write", action: "deny" as const },
      { tool: "fs.write", target: "@state/**", action: "allow" as const },
    ];
    expect(visibleTools(rules, tools)).toContain("fs:write");
    // An allow for a target that a later tool-wide deny overrides does not keep it.
    expect(visibleTools([rules[1], rules[0]], tools)).not.toContain("fs:write");
  });

  it("uses the default and agent scopes", () => {
    const settings = policy({
      defaultAction: "deny",
      rules: [
        { tool: "fs.read", action: "allow" },
        { tool: "shell.exec", agent: "ops", action: "ask" },
      ],
    });
    expect(visibleTools(settings, tools)).toEqual(["fs:read"]);
    expect(visibleTools(settings, tools, { agentId: "ops" })).toEqual(["fs:read", "shell:exec"]);
  });
});

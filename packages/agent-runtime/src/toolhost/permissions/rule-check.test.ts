import { describe, expect, it } from "vitest";
import { ruleProblems } from "./rule-check.ts";

describe("ruleProblems", () => {
  it("names each rule whose tool pattern matches no tool, with the nearest tool name", () => {
    const problems = ruleProblems([
      { action: "allow", tool: "fs.*" },
      { action: "deny", tool: "fs.wirte" },
      { action: "ask", tool: "fs:write" },
      { action: "ask", tool: "shell" },
    ]);
    expect(problems.map((p) => [p.index, p.field])).toEqual([
      [1, "tool"],
      [3, "tool"],
    ]);
    expect(problems[0]!.message).toContain('did you mean "fs.write"?');
    expect(problems[1]!.message).toContain("shell.exec");
  });

  it("accepts patterns naming MCP tools, which come and go with the configured servers", () => {
    expect(
      ruleProblems([
        { action: "deny", tool: "mcp.*" },
        { action: "deny", tool: "mcp:memory.create-entities" },
        { action: "ask", tool: "mcp:*" },
      ]),
    ).toEqual([]);
    expect(ruleProblems([{ action: "deny", tool: "mpc.*" }])).toHaveLength(1);
  });
});

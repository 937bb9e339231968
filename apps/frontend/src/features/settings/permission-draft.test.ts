import { describe, expect, it } from "vitest";
import { blankRule, draftErrorsOf, draftOf, moveRule, policyOf } from "./permission-draft.ts";

describe("the permissions form's draft", () => {
  it("round-trips a policy, leaving empty patterns out (the tool then means every tool)", () => {
    const draft = draftOf({
      defaultAction: "ask",
      rules: [
        { action: "allow", tool: "*" },
        { action: "deny", tool: "fs.write", target: "@project/locked/**", agent: "intern-*" },
      ],
    });
    expect(draft.rules.map((r) => r.tool)).toEqual(["", "fs.write"]);
    draft.rules.push({ ...blankRule("ask"), tool: "  shell.exec ", target: " git * " });
    expect(policyOf(draft)).toEqual({
      defaultAction: "ask",
      rules: [{ action: "allow" }, { action: "deny", tool: "fs.write", target: "@project/locked/**", agent: "intern-*" }, { action: "ask", tool: "shell.exec", target: "git *" }],
    });
  });

  it("moves rules up and down, never past either end", () => {
    const draft = draftOf({
      defaultAction: "allow",
      rules: [
        { action: "allow", tool: "a" },
        { action: "ask", tool: "b" },
        { action: "deny", tool: "c" },
      ],
    });
    moveRule(draft, 2, -1);
    moveRule(draft, 0, -1);
    moveRule(draft, 2, 1);
    expect(draft.rules.map((r) => r.tool)).toEqual(["a", "c", "b"]);
  });

  it("places the server's issues on the rule and field they name", () => {
    const errors = draftErrorsOf({
      code: "VALIDATION_FAILED",
      status: 400,
      message: "body.rules.1.tool: …",
      details: {
        issues: [
          { path: ["rules", 1, "tool"], message: '"fs.wirte" matches none of the tools' },
          { path: ["rules", 0], message: 'Unrecognized key: "tol"' },
          { path: ["defaultAction"], message: "Invalid option" },
        ],
      },
    });
    expect(errors).toEqual({ general: ["defaultAction: Invalid option"], rules: { 1: { tool: '"fs.wirte" matches none of the tools' }, 0: { rule: 'Unrecognized key: "tol"' } } });
    expect(draftErrorsOf({ code: "NETWORK_ERROR", status: 0, message: "Could not reach the server." })).toEqual({ general: ["Could not reach the server."], rules: {} });
  });
});

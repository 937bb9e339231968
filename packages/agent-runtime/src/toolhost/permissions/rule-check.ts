import { closest } from "fastest-levenshtein";
import { TOOL_NAMES, type PermissionRule } from "@weft/types";
import { toolNameForms, toolsMatching } from "./rules.ts";

export interface RuleProblem {
  /** The rule's index in the list checked. */
  index: number;
  field: "tool";
  message: string;
}

/**
 * What makes rules that are well-formed still wrong: a `tool` pattern that matches none of the tool
 * host's tools (a misspelt `fs.wirte` would otherwise never match, and a `deny` would silently do nothing).
 */
/** MCP tools (`mcp:<server>.<tool>`) come and go with the servers configured, so any `mcp` pattern may name one. */
const MCP_PATTERN = /^mcp[.:*]/;

export function ruleProblems(rules: readonly PermissionRule[]): RuleProblem[] {
  const problems: RuleProblem[] = [];
  rules.forEach((rule, index) => {
    if (MCP_PATTERN.test(rule.tool) || toolsMatching(rule.tool, TOOL_NAMES).length > 0) return;
    const nearest = closest(
      rule.tool.toLowerCase(),
      TOOL_NAMES.flatMap((t) => toolNameForms(t)),
    );
    problems.push({
      index,
      field: "tool",
      message: `"${rule.tool}" matches none of the tools (did you mean "${nearest}"?); the tools are ${TOOL_NAMES.join(", ")}, also written as node types (fs:write), with * as a wildcard (fs.*), and MCP tools as mcp:<server>.<tool> or mcp.*`,
    });
  });
  return problems;
}

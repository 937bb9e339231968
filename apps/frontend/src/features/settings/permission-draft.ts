import { TOOL_NAMES, type PermissionAction, type PermissionPolicy, type PermissionPolicyInput, type PermissionRule, type PermissionRuleInput } from "@weft/types";
import type { ApiError } from "../../shared/api/errors.ts";

/** One rule as the form edits it: empty patterns mean "any". */
export interface RuleDraft {
  /** Stable across reordering, for Vue's list keys. */
  key: number;
  action: PermissionAction;
  tool: string;
  target: string;
  agent: string;
}

export interface PolicyDraft {
  defaultAction: PermissionAction;
  rules: RuleDraft[];
}

export type RuleField = "action" | "tool" | "target" | "agent";

/** By rule index, then field (`rule` for the rule as a whole, e.g. an unknown field). */
export type RuleErrors = Record<number, Partial<Record<RuleField | "rule", string>>>;

/** What the server refused, placed where the user can fix it. */
export interface DraftErrors {
  /** Problems of the policy as a whole (e.g. the default action), or ones the form cannot place. */
  general: string[];
  rules: RuleErrors;
}

/** One problem the server lists in `details.issues`. */
export interface ServerIssue {
  path: (string | number)[];
  message: string;
}

/** The three actions, as the forms name them. */
export const PERMISSION_ACTIONS: readonly { id: PermissionAction; label: string }[] = [
  { id: "allow", label: "Allow" },
  { id: "ask", label: "Ask me" },
  { id: "deny", label: "Deny" },
];

let nextKey = 1;

export function blankRule(action: PermissionAction = "ask"): RuleDraft {
  return { key: nextKey++, action, tool: "", target: "", agent: "" };
}

export function ruleDraftsOf(rules: readonly PermissionRule[]): RuleDraft[] {
  return rules.map((r) => ({ key: nextKey++, action: r.action, tool: r.tool === "*" ? "" : r.tool, target: r.target ?? "", agent: r.agent ?? "" }));
}

/** The rules to send: patterns trimmed, empty ones left out (the tool then defaults to `*`). */
export function rulesOf(drafts: readonly RuleDraft[]): PermissionRuleInput[] {
  return drafts.map((r) => {
    const [tool, target, agent] = [r.tool.trim(), r.target.trim(), r.agent.trim()];
    return { action: r.action, ...(tool ? { tool } : {}), ...(target ? { target } : {}), ...(agent ? { agent } : {}) };
  });
}

export function draftOf(policy: PermissionPolicy): PolicyDraft {
  return { defaultAction: policy.defaultAction, rules: ruleDraftsOf(policy.rules) };
}

export function policyOf(draft: PolicyDraft): PermissionPolicyInput {
  return { defaultAction: draft.defaultAction, rules: rulesOf(draft.rules) };
}

/** Moves rule `index` by `delta` places (order matters: the last matching rule wins). */
export function moveRule(draft: { rules: RuleDraft[] }, index: number, delta: -1 | 1): void {
  const to = index + delta;
  if (to < 0 || to >= draft.rules.length) return;
  const [rule] = draft.rules.splice(index, 1);
  draft.rules.splice(to, 0, rule!);
}

const FIELDS: ReadonlySet<string> = new Set(["action", "tool", "target", "agent"]);
const isIssue = (value: unknown): value is ServerIssue =>
  typeof value === "object" && value !== null && Array.isArray((value as { path?: unknown }).path) && typeof (value as { message?: unknown }).message === "string";

/** The problems a refusal lists in `details.issues` (none for other failures). */
export function serverIssuesOf(error: ApiError): ServerIssue[] {
  return Array.isArray(error.details?.issues) ? error.details.issues.filter(isIssue) : [];
}

/**
 * Places the issues whose path is `[head, index, field]` (e.g. `["rules", 2, "tool"]`) on the rules
 * and fields they name; `rest` are the others.
 */
export function placeRuleIssues(issues: readonly ServerIssue[], head: string): { rules: RuleErrors; rest: ServerIssue[] } {
  const rules: RuleErrors = {};
  const rest: ServerIssue[] = [];
  for (const issue of issues) {
    const [first, index, field] = issue.path;
    if (first === head && typeof index === "number") {
      const slot = typeof field === "string" && FIELDS.has(field) ? (field as RuleField) : "rule";
      (rules[index] ??= {})[slot] ??= issue.message;
    } else rest.push(issue);
  }
  return { rules, rest };
}

/** Places the server's `details.issues` (`["rules", 2, "tool"]`) on the rules and fields they name. */
export function draftErrorsOf(error: ApiError): DraftErrors {
  const issues = serverIssuesOf(error);
  const { rules, rest } = placeRuleIssues(issues, "rules");
  const general = rest.map((issue) => `${issue.path.join(".") || "policy"}: ${issue.message}`);
  if (issues.length === 0) general.push(error.message);
  return { general, rules };
}

/** Names the form offers for the tool field: each tool, its node type, and the families. */
export const TOOL_SUGGESTIONS: readonly string[] = ["*", "fs.*", "shell.*", ...TOOL_NAMES, ...TOOL_NAMES.map((t) => t.replace(".", ":").replace(/_/g, "-"))];

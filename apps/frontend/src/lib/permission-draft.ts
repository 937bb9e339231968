import { TOOL_NAMES, type PermissionAction, type PermissionPolicy, type PermissionPolicyInput } from "@weft/types";
import type { ApiError } from "../api/errors.ts";

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

/** What the server refused, placed where the user can fix it. */
export interface DraftErrors {
  /** Problems of the policy as a whole (e.g. the default action), or ones the form cannot place. */
  general: string[];
  /** By rule index, then field (`rule` for the rule as a whole, e.g. an unknown field). */
  rules: Record<number, Partial<Record<RuleField | "rule", string>>>;
}

let nextKey = 1;

export function blankRule(action: PermissionAction = "ask"): RuleDraft {
  return { key: nextKey++, action, tool: "", target: "", agent: "" };
}

export function draftOf(policy: PermissionPolicy): PolicyDraft {
  return {
    defaultAction: policy.defaultAction,
    rules: policy.rules.map((r) => ({ key: nextKey++, action: r.action, tool: r.tool === "*" ? "" : r.tool, target: r.target ?? "", agent: r.agent ?? "" })),
  };
}

/** The policy to send: patterns trimmed, empty ones left out (the tool then defaults to `*`). */
export function policyOf(draft: PolicyDraft): PermissionPolicyInput {
  return {
    defaultAction: draft.defaultAction,
    rules: draft.rules.map((r) => {
      const [tool, target, agent] = [r.tool.trim(), r.target.trim(), r.agent.trim()];
      return { action: r.action, ...(tool ? { tool } : {}), ...(target ? { target } : {}), ...(agent ? { agent } : {}) };
    }),
  };
}

/** Moves rule `index` by `delta` places (order matters: the last matching rule wins). */
export function moveRule(draft: PolicyDraft, index: number, delta: -1 | 1): void {
  const to = index + delta;
  if (to < 0 || to >= draft.rules.length) return;
  const [rule] = draft.rules.splice(index, 1);
  draft.rules.splice(to, 0, rule!);
}

const FIELDS: ReadonlySet<string> = new Set(["action", "tool", "target", "agent"]);
const isIssue = (value: unknown): value is { path: (string | number)[]; message: string } =>
  typeof value === "object" && value !== null && Array.isArray((value as { path?: unknown }).path) && typeof (value as { message?: unknown }).message === "string";

/** Places the server's `details.issues` (`["rules", 2, "tool"]`) on the rules and fields they name. */
export function draftErrorsOf(error: ApiError): DraftErrors {
  const errors: DraftErrors = { general: [], rules: {} };
  const issues = Array.isArray(error.details?.issues) ? error.details.issues.filter(isIssue) : [];
  for (const issue of issues) {
    const [head, index, field] = issue.path;
    if (head === "rules" && typeof index === "number") {
      const slot = typeof field === "string" && FIELDS.has(field) ? (field as RuleField) : "rule";
      (errors.rules[index] ??= {})[slot] ??= issue.message;
    } else {
      errors.general.push(`${issue.path.join(".") || "policy"}: ${issue.message}`);
    }
  }
  if (issues.length === 0) errors.general.push(error.message);
  return errors;
}

/** Names the form offers for the tool field: each tool, its node type, and the families. */
export const TOOL_SUGGESTIONS: readonly string[] = ["*", "fs.*", "shell.*", ...TOOL_NAMES, ...TOOL_NAMES.map((t) => t.replace(".", ":").replace(/_/g, "-"))];

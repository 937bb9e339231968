import picomatch from "picomatch";
import type { PermissionAction, PermissionPolicy, PermissionRule } from "@weft/types";

/** How rule targets match: path globs (`@project/src/**`), command wildcards (`git *`) or URL wildcards (`https://api.example.com/**`). */
export type TargetKind = "path" | "command" | "url";

export interface PermissionQuery {
  tool: string;
  /** The canonical mount path, the command line, or the URL. */
  target?: string;
  targetKind?: TargetKind;
  agentId?: string;
}

/** `rule`: the settings' rules; `agent`: the calling agent's own rules; `session`: added by `always` answers. */
export type DecisionSource = { kind: "rule"; index: number } | { kind: "agent"; index: number } | { kind: "session"; index: number } | { kind: "default" };

/** The rules checked after the settings', in this order: the agent's own, then the session's. */
export interface RuleLayers {
  agentRules?: readonly PermissionRule[];
  sessionRules?: readonly PermissionRule[];
}

export interface PermissionDecision {
  action: PermissionAction;
  source: DecisionSource;
}

const matchers = new Map<string, (text: string) => boolean>();

function cached(key: string, build: () => (text: string) => boolean): (text: string) => boolean {
  let matcher = matchers.get(key);
  if (!matcher) {
    matcher = build();
    matchers.set(key, matcher);
  }
  return matcher;
}

function glob(pattern: string): (text: string) => boolean {
  return cached(`g:${pattern}`, () => picomatch(pattern, { dot: true }));
}

/**
 * Command wildcards: `*` matches anything (spaces and slashes too), `?` one character; a trailing
 * ` *` also matches the bare command, so `git status *` covers `git status`.
 */
function commandWildcard(pattern: string): (text: string) => boolean {
  return cached(`c:${pattern}`, () => {
    const source = pattern
      .split("")
      .map((ch) => (ch === "*" ? ".*" : ch === "?" ? "." : ch.replace(/[.+^${}()|[\]\\]/g, "\\$&")))
      .join("");
    const re = new RegExp(`^${source.endsWith(" .*") ? `${source.slice(0, -3)}(?: .*)?` : source}$`, "s");
    return (text) => re.test(text);
  });
}

/**
 * URL wildcards: `**` matches anything, `*` anything but `/` (one path segment, or a host and
 * port), `?` one character but `/`; so `https://*.example.com/**` cannot be met by
 * `https://evil.test/x.example.com/`.
 */
function urlWildcard(pattern: string): (text: string) => boolean {
  return cached(`u:${pattern}`, () => {
    const source = pattern
      .split(/(\*\*|\*|\?)/)
      .map((part) => (part === "**" ? ".*" : part === "*" ? "[^/]*" : part === "?" ? "[^/]" : part.replace(/[.+^${}()|[\]\\]/g, "\\$&")))
      .join("");
    const re = new RegExp(`^${source}$`, "s");
    return (text) => re.test(text);
  });
}

function targetMatcher(kind: TargetKind | undefined, pattern: string): (text: string) => boolean {
  switch (kind) {
    case "command":
      return commandWildcard(pattern);
    case "url":
      return urlWildcard(pattern);
    case "path":
    case undefined:
      return glob(pattern);
    default: {
      const never: never = kind;
      return never;
    }
  }
}

/** The names a tool goes by: `fs.apply_patch` as a tool, `fs:apply-patch` as a node type. */
export function toolNameForms(name: string): string[] {
  const colon = name.indexOf(":");
  const dot = name.indexOf(".");
  if (colon !== -1) return [name, `${name.slice(0, colon)}.${name.slice(colon + 1).replace(/-/g, "_")}`];
  if (dot !== -1) return [name, `${name.slice(0, dot)}:${name.slice(dot + 1).replace(/_/g, "-")}`];
  return [name];
}

function matchesToolAndAgent(rule: PermissionRule, tool: string, agentId: string | undefined): boolean {
  if (rule.agent !== undefined && (agentId === undefined || !glob(rule.agent)(agentId))) return false;
  return toolNameForms(tool).some((form) => glob(rule.tool)(form));
}

export function ruleMatches(rule: PermissionRule, query: PermissionQuery): boolean {
  if (!matchesToolAndAgent(rule, query.tool, query.agentId)) return false;
  if (rule.target === undefined) return true;
  if (query.target === undefined) return false;
  return targetMatcher(query.targetKind, rule.target)(query.target);
}

/**
 * The last matching rule wins: the settings' rules, then the agent's own, then the session's (added by
 * `always` answers); none gives the default.
 */
export function decidePermission(policy: PermissionPolicy, query: PermissionQuery, layers: RuleLayers = {}): PermissionDecision {
  let decision: PermissionDecision = { action: policy.defaultAction, source: { kind: "default" } };
  const apply = (rules: readonly PermissionRule[], kind: "rule" | "agent" | "session") =>
    rules.forEach((rule, index) => {
      if (ruleMatches(rule, query)) decision = { action: rule.action, source: { kind, index } };
    });
  apply(policy.rules, "rule");
  apply(layers.agentRules ?? [], "agent");
  apply(layers.sessionRules ?? [], "session");
  return decision;
}

/** The tools (by their tool names) a rule's `tool` pattern covers; none means the rule can never match. */
export function toolsMatching(pattern: string, toolNames: readonly string[]): string[] {
  return toolNames.filter((tool) => toolNameForms(tool).some((form) => glob(pattern)(form)));
}

/**
 * The tools an agent may see in its manifest: a tool is hidden when the rules deny it whatever its
 * target (the last rule for the whole tool, or the default, is `deny`, and no later rule allows or
 * asks for some target of it).
 */
export function visibleTools(rules: readonly PermissionRule[] | PermissionPolicy, toolNames: readonly string[], options: { agentId?: string; defaultAction?: PermissionAction } = {}): string[] {
  const list = Array.isArray(rules) ? (rules as readonly PermissionRule[]) : (rules as PermissionPolicy).rules;
  const fallback = options.defaultAction ?? (Array.isArray(rules) ? "allow" : (rules as PermissionPolicy).defaultAction);
  return toolNames.filter((tool) => {
    let whole: PermissionAction = fallback;
    let someTargetOpen = false;
    for (const rule of list) {
      if (!matchesToolAndAgent(rule, tool, options.agentId)) continue;
      if (rule.target === undefined) {
        whole = rule.action;
        someTargetOpen = false;
      } else if (rule.action !== "deny") {
        someTargetOpen = true;
      }
    }
    return whole !== "deny" || someTargetOpen;
  });
}

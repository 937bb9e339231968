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

/** `rule`: the settings' (owner's) rules; `agent`: the calling agent's own rules; `session`: added by `always` answers. */
export type DecisionSource = { kind: "rule"; index: number } | { kind: "agent"; index: number } | { kind: "session"; index: number } | { kind: "default" };

/** The layers under the settings' rules: the agent's own (they can only narrow), then the session's (they can only answer an `ask`). */
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

/** Whether a rule is scoped to agents (`agent`) and its pattern covers this agent id. */
export function namesAgent(rule: PermissionRule, agentId: string): boolean {
  return rule.agent !== undefined && glob(rule.agent)(agentId);
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

/** How much an action lets through: a layer below the owner's may only lower it. */
const OPENNESS: Record<PermissionAction, number> = { deny: 0, ask: 1, allow: 2 };

/** The more restrictive of two decisions (the first when they are equal). */
function narrower(a: PermissionDecision, b: PermissionDecision | undefined): PermissionDecision {
  return b !== undefined && OPENNESS[b.action] < OPENNESS[a.action] ? b : a;
}

/** The last rule of one layer that matches the query; undefined when none does. */
function lastMatch(rules: readonly PermissionRule[], query: PermissionQuery, kind: "rule" | "agent" | "session"): PermissionDecision | undefined {
  for (let index = rules.length - 1; index >= 0; index--) {
    const rule = rules[index];
    if (rule && ruleMatches(rule, query)) return { action: rule.action, source: { kind, index } };
  }
  return undefined;
}

/** The owner's decision alone (the ceiling): the last matching settings rule, or the default. */
export function ownerDecision(policy: PermissionPolicy, query: PermissionQuery): PermissionDecision {
  return lastMatch(policy.rules, query, "rule") ?? { action: policy.defaultAction, source: { kind: "default" } };
}

/**
 * A hierarchy, not a merge. The owner's settings decide first (their last matching rule, else the
 * default): that is the ceiling. The agent's own rules (last match) can only narrow it — deny, or ask
 * where the owner allows; an agent `allow` never opens what the owner denies, asks for or leaves at a
 * restrictive default. A session's rules (added by `always` answers) can only turn an `ask` into
 * `allow`, never a `deny`. The decision names the layer that set it.
 */
export function decidePermission(policy: PermissionPolicy, query: PermissionQuery, layers: RuleLayers = {}): PermissionDecision {
  const decision = narrower(ownerDecision(policy, query), lastMatch(layers.agentRules ?? [], query, "agent"));
  const session = lastMatch(layers.sessionRules ?? [], query, "session");
  if (session === undefined) return decision;
  if (session.action === "allow") return decision.action === "ask" ? session : decision;
  return narrower(decision, session);
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

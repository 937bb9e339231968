import picomatch from "picomatch";
import type { PermissionPolicy, PermissionRule, ToolName } from "@weft/types";
import { decidePermission, type RuleLayers } from "./rules.ts";

/**
 * What the permission rules say about paths a call reaches beyond its own target: the entries a
 * listing or search returns, the files a shell command names or could read.
 */
export interface PathRules {
  /**
   * Whether a rule keeps one of `tools` from `path` (a mount path) without the user being asked:
   * it denies, or it asks (and a listing, a search or a command cannot ask for each file). The
   * default action does not count: it is about calling the tool, not about particular paths.
   */
  blocks(tools: readonly ToolName[], path: string): boolean;
  /**
   * Folders and files (mount paths) that some rule blocks as a whole for one of `tools`: the
   * fixed part of each rule's target pattern (`@project/secret` for `@project/secret/**`), when
   * that part is itself blocked. Paths blocked only by wildcards are not listed.
   */
  blockedPrefixes(tools: readonly ToolName[]): string[];
}

/** The path rules of one call: the settings' rules as the ceiling, narrowed by the agent's, for this agent (see decidePermission). */
export function pathRulesFor(policy: PermissionPolicy, layers: RuleLayers, agentId: string | undefined): PathRules {
  const blocks = (tools: readonly ToolName[], path: string) =>
    tools.some((tool) => {
      const decision = decidePermission(policy, { tool, target: path, targetKind: "path", agentId }, layers);
      return decision.action !== "allow" && decision.source.kind !== "default";
    });
  const rules: readonly PermissionRule[] = [...policy.rules, ...(layers.agentRules ?? []), ...(layers.sessionRules ?? [])];
  return {
    blocks,
    blockedPrefixes(tools) {
      const prefixes = new Set<string>();
      for (const rule of rules) {
        if (rule.action === "allow" || rule.target === undefined) continue;
        const scanned = picomatch.scan(rule.target);
        const prefix = (scanned.isGlob ? scanned.base : rule.target).replace(/\/+$/, "");
        if (/^@(project|pkg|state)\/./.test(prefix) && blocks(tools, prefix)) prefixes.add(prefix);
      }
      return [...prefixes];
    },
  };
}

import { TOOL_NAMES, type EffectivePermission, type EffectivePermissions, type PermissionPolicy, type PermissionRule } from "@weft/types";
import { decidePermission, ownerDecision, ruleMatches, toolNameForms, type PermissionQuery, type TargetKind } from "./rules.ts";
import { urlRulesFor } from "./url-rules.ts";

/** How a tool's targets are written: commands for the shell and MCP tools (their arguments), URLs for http.request, paths for the rest. */
function targetKindOf(tool: string): TargetKind {
  if (tool === "http.request") return "url";
  if (tool === "shell.exec" || tool.startsWith("mcp:")) return "command";
  return "path";
}

/** A rule speaks about `tool` (for some target or all), for this agent. */
function concerns(rule: PermissionRule, tool: string, agentId: string): boolean {
  return ruleMatches({ ...rule, target: undefined }, { tool, agentId });
}

/**
 * An agent's effective permissions (owner ceiling ∩ its own rules) over the host tools it can reach:
 * the built-in tools and the MCP tools it lists. One line per tool as a whole, and one per target a
 * rule of either layer names for it (the pattern itself stands for the target), each saying where
 * the decision comes from. Session answers are left out: they last one conversation.
 */
export function effectivePermissions(policy: PermissionPolicy, agentRules: readonly PermissionRule[], agentId: string, agentTools: readonly string[]): EffectivePermissions {
  const tools = [...TOOL_NAMES, ...new Set(agentTools.filter((t) => t.startsWith("mcp:")))];
  const urls = urlRulesFor(policy, { agentRules }, agentId);
  const entries: EffectivePermission[] = [];
  for (const tool of tools) {
    const targetKind = targetKindOf(tool);
    const targets = new Set<string>();
    for (const rule of [...policy.rules, ...agentRules]) if (rule.target !== undefined && concerns(rule, tool, agentId)) targets.add(rule.target);
    for (const target of [undefined, ...targets]) {
      const query: PermissionQuery = { tool, targetKind, agentId, ...(target !== undefined ? { target } : {}) };
      const owner = ownerDecision(policy, query);
      const decision = decidePermission(policy, query, { agentRules });
      // The agent's rules alone, read as one layer: a matching rule shows as `rule`.
      const agent = ownerDecision({ defaultAction: "allow", rules: [...agentRules] }, query);
      const source = decision.source;
      entries.push({
        tool: toolNameForms(tool).find((form) => form.includes(".")) ?? tool,
        ...(target !== undefined ? { target } : {}),
        action: decision.action,
        from: source.kind === "agent" ? "agent-rule" : source.kind === "rule" ? "owner-rule" : "owner-default",
        ...(source.kind === "agent" || source.kind === "rule" ? { index: source.index } : {}),
        owner: owner.action,
        ...(agent.source.kind === "rule" ? { agent: agent.action } : {}),
        ...(tool === "http.request" && target !== undefined ? { privateNetwork: urls.scopeOf(target) === "any" } : {}),
      });
    }
  }
  return { agentId, defaultAction: policy.defaultAction, entries };
}

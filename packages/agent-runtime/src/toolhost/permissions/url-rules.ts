import type { PermissionPolicy } from "@weft/types";
import type { AddressScope } from "../../net/pinned-exchange.ts";
import { decidePermission, ownerDecision, type RuleLayers } from "./rules.ts";

/** What the permission rules say about the URLs one http.request call reaches. */
export interface UrlRules {
  /**
   * Which addresses `url` may reach: any, when a rule of the owner's settings with a URL target
   * allows it (the way to reach a local service) and the agent's own rules do not narrow that;
   * otherwise only public ones. A tool-wide `allow http.request` does not open the inside network. Neither an agent's allow (editors write those) nor a session's `always` answer counts:
   * opening the inside network is the owner's decision alone.
   */
  scopeOf(url: string): AddressScope;
  /** Whether the call may go on to `url` (a redirect) without asking: only when the rules allow it. */
  permits(url: string): boolean;
}

export function urlRulesFor(policy: PermissionPolicy, layers: RuleLayers, agentId: string | undefined): UrlRules {
  const query = (url: string) => ({ tool: "http.request", target: url, targetKind: "url" as const, agentId });
  return {
    scopeOf(url) {
      const owner = ownerDecision(policy, query(url));
      if (owner.action !== "allow" || owner.source.kind !== "rule" || policy.rules[owner.source.index]?.target === undefined) return "public";
      return decidePermission(policy, query(url), { agentRules: layers.agentRules ?? [] }).action === "allow" ? "any" : "public";
    },
    permits(url) {
      return decidePermission(policy, query(url), layers).action === "allow";
    },
  };
}

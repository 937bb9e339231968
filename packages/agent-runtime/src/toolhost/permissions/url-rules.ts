import type { PermissionPolicy } from "@weft/types";
import type { AddressScope } from "../../net/pinned-exchange.ts";
import { decidePermission, type RuleLayers } from "./rules.ts";

/** What the permission rules say about the URLs one http.request call reaches. */
export interface UrlRules {
  /**
   * Which addresses `url` may reach: any, when a rule of the settings or of the agent explicitly
   * allows it (the way to reach a local service); otherwise only public ones. A session's `always`
   * answer does not count: approving a URL is not knowingly opening the inside network.
   */
  scopeOf(url: string): AddressScope;
  /** Whether the call may go on to `url` (a redirect) without asking: only when the rules allow it. */
  permits(url: string): boolean;
}

export function urlRulesFor(policy: PermissionPolicy, layers: RuleLayers, agentId: string | undefined): UrlRules {
  const query = (url: string) => ({ tool: "http.request", target: url, targetKind: "url" as const, agentId });
  return {
    scopeOf(url) {
      const decision = decidePermission(policy, query(url), { agentRules: layers.agentRules ?? [] });
      return decision.action === "allow" && decision.source.kind !== "default" ? "any" : "public";
    },
    permits(url) {
      return decidePermission(policy, query(url), layers).action === "allow";
    },
  };
}

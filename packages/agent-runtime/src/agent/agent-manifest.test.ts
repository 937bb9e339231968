import { describe, expect, it } from "vitest";
import { createBuiltinRegistry } from "@weft/nodes";
import { AgentProfileSchema } from "@weft/types";
import { buildAgentManifest } from "./agent-manifest.ts";

describe("an agent's manifest", () => {
  it("offers http:request as a tool, and hides it from an agent whose rules deny it", async () => {
    const profile = AgentProfileSchema.parse({ id: "a1", name: "Fetcher", deliberationWorkflowId: "wf-deliberate", tools: ["http:request"] });
    const catalog = createBuiltinRegistry();
    const workflows = { getWorkflow: async () => undefined };
    const seen = await buildAgentManifest(profile, { catalog, workflows, agentId: "a1" });
    expect(seen.ok && seen.value.entries.map((e) => e.name)).toContain("http_request");
    const denied = await buildAgentManifest(profile, { catalog, workflows, agentId: "a1", permissions: { defaultAction: "allow", rules: [{ action: "deny", tool: "http.request" }] } });
    expect(denied.ok && denied.value.entries.map((e) => e.name)).not.toContain("http_request");
  });
});

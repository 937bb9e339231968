import { describe, expect, it } from "vitest";
import { PermissionPolicySchema, type PermissionPolicyInput } from "@weft/types";
import { urlRulesFor } from "./url-rules.ts";

const policy = (input: PermissionPolicyInput) => PermissionPolicySchema.parse(input);
const LOCAL = "http://127.0.0.1:8080/admin";

describe("urlRulesFor", () => {
  it("opens private addresses only for an owner's rule naming the URL", () => {
    const owner = policy({ rules: [{ action: "allow", tool: "http.request", target: "http://127.0.0.1:8080/**" }] });
    expect(urlRulesFor(owner, {}, undefined).scopeOf(LOCAL)).toBe("any");
    expect(urlRulesFor(owner, {}, undefined).scopeOf("http://127.0.0.1:9090/")).toBe("public");
    // A tool-wide allow, or the default, is not a decision to open the inside network.
    expect(urlRulesFor(policy({ rules: [{ action: "allow", tool: "http.request" }] }), {}, undefined).scopeOf(LOCAL)).toBe("public");
    expect(urlRulesFor(policy({}), {}, undefined).scopeOf(LOCAL)).toBe("public");
  });

  it("never lets an agent's or a session's allow open them, and lets an agent's rule close what the owner opened", () => {
    const open = [{ action: "allow" as const, tool: "http.request", target: "http://127.0.0.1:*/**" }];
    expect(urlRulesFor(policy({}), { agentRules: open }, "a1").scopeOf(LOCAL)).toBe("public");
    expect(urlRulesFor(policy({}), { agentRules: [{ action: "allow", tool: "*" }] }, "a1").scopeOf(LOCAL)).toBe("public");
    expect(urlRulesFor(policy({ defaultAction: "ask" }), { sessionRules: open }, "a1").scopeOf(LOCAL)).toBe("public");
    const owner = policy({ rules: open });
    expect(urlRulesFor(owner, { agentRules: [{ action: "deny", tool: "http.request", target: "http://127.0.0.1:8080/**" }] }, "a1").scopeOf(LOCAL)).toBe("public");
    expect(urlRulesFor(owner, { agentRules: [{ action: "deny", tool: "http.request", target: "http://127.0.0.1:8080/**" }] }, "a1").permits(LOCAL)).toBe(false);
  });

  it("lets a redirect go on only where every layer allows it", () => {
    const owner = policy({ defaultAction: "ask", rules: [{ action: "allow", tool: "http.request", target: "https://api.example.com/**" }] });
    expect(urlRulesFor(owner, {}, undefined).permits("https://api.example.com/v2")).toBe(true);
    expect(urlRulesFor(owner, {}, undefined).permits("https://elsewhere.example/")).toBe(false);
    expect(urlRulesFor(owner, { agentRules: [{ action: "allow", tool: "*" }] }, "a1").permits("https://elsewhere.example/")).toBe(false);
    expect(urlRulesFor(owner, { agentRules: [{ action: "ask", tool: "http.request" }] }, "a1").permits("https://api.example.com/v2")).toBe(false);
  });
});

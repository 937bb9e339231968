import { describe, expect, it } from "vitest";
import { actionWords, whoMay } from "./refusal-words.ts";
import { ROUTE_RULES } from "./route-rules.ts";

describe("refusal words", () => {
  it("says what a refused request would have done, in a user's words", () => {
    expect(`${whoMay("owner")} ${actionWords("PUT", "/api/llm-profiles/demo")}.`).toBe("Only an owner can change LLM profiles.");
    expect(`${whoMay("editor")} ${actionWords("POST", "/api/workflows/notes/runs")}.`).toBe("Only editors and owners can run workflows.");
    expect(actionWords("GET", "/api/settings/mcp")).toBe("see the MCP servers");
    expect(actionWords("POST", "/api/agents/helper/messages")).toBe("chat with agents");
    expect(actionWords("DELETE", "/api/users/u1/tokens/t1")).toBe("manage users");
  });

  it("has words for every route a role may be refused, never a path", () => {
    for (const rule of ROUTE_RULES) {
      if (rule.access === "public" || rule.access === "viewer") continue;
      const path = rule.path.replace(/:[a-zA-Z]+/g, "x");
      const method = rule.method === "ALL" || rule.method === "WS" ? "POST" : rule.method;
      const words = actionWords(method, path);
      expect(words, `${rule.method} ${rule.path}`).not.toMatch(/this$|\/|api/);
    }
  });
});

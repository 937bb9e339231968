import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startScriptedLlmServer, type ScriptedLlmServer } from "@weft/agent-runtime";
import { ProfileIdAnswerSchema } from "../testing/answers.ts";
import { startTestServer, type TestServer } from "../testing/test-server.ts";
import { signedHeaders } from "../testing/webhooks.ts";

let t: TestServer;
let llm: ScriptedLlmServer;

beforeAll(async () => {
  llm = await startScriptedLlmServer();
  t = await startTestServer();
});
afterAll(async () => {
  await t.stop();
  await llm.stop();
});

describe("a waiting webhook whose run is stopped by a budget", () => {
  it("answers 402 with the run's own status, its id and which budget, and the LLM is never called", async () => {
    const profileId = ProfileIdAnswerSchema.parse((await t.call("POST", "/api/llm-profiles", { name: "hooked", baseUrl: llm.baseUrl, model: llm.model, maxRetries: 0 })).body).profile.id;
    const workflow = {
      id: "hook-budget",
      name: "hook-budget",
      nodes: [
        { id: "hook", type: "trigger:webhook", config: { path: "ask", response: "wait" } },
        { id: "ask", type: "llm:chat", config: { profileId }, inputs: { prompt: "Say hi" } },
        { id: "out", type: "core:workflow-output", config: { name: "text", portType: "string" } },
      ],
      edges: [
        { id: "e0", source: "hook", sourceHandle: "method", target: "ask", targetHandle: "system" },
        { id: "e1", source: "ask", sourceHandle: "text", target: "out", targetHandle: "value" },
      ],
    };
    expect((await t.call("POST", "/api/workflows", { workflow })).status).toBe(201);
    // One token: any call passes it, so the first is refused before it is sent.
    expect((await t.call("PUT", "/api/budgets/workflow/hook-budget", { tokens: 1 })).status).toBe(200);
    const activated = z.object({ secrets: z.array(z.object({ secret: z.string() })) }).parse((await t.call("PUT", "/api/workflows/hook-budget/active", { active: true })).body);
    const secret = activated.secrets[0]?.secret ?? "";
    llm.enqueue({ kind: "text", chunks: ["Hi"], usage: { prompt_tokens: 10, completion_tokens: 2 } });

    const body = JSON.stringify({ name: "Ada" });
    const res = await fetch(`${t.url}/hooks/hook-budget/ask`, { method: "POST", body, headers: signedHeaders(secret, body) });
    const answer = z.object({ runId: z.string(), status: z.string(), message: z.string(), error: z.object({ code: z.string() }) }).parse(await res.json());
    expect(res.status).toBe(402);
    expect(answer.status).toBe("budget_exceeded");
    expect(answer.message).toContain("token budget is 1");
    expect(answer.message).toContain('workflow "hook-budget"');
    expect(llm.chatBodies()).toHaveLength(0);
    const run = z.object({ run: z.object({ status: z.string() }) }).parse((await t.call("GET", `/api/runs/${answer.runId}`)).body);
    expect(run.run.status).toBe("budget_exceeded");
  });
});

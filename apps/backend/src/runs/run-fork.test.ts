import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startScriptedLlmServer, type ScriptedLlmServer } from "@weft/agent-runtime";
import type { WorkflowInput } from "@weft/types";
import { startTestServer, waitForRun, type RunAnswer, type TestServer } from "../testing/test-server.ts";
import { ProfileIdAnswerSchema, StartedRunSchema } from "../testing/answers.ts";
import { createTestUser } from "../testing/users.ts";

const ErrorAnswerSchema = z.object({ error: z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()).optional() }) });
const RunListSchema = z.object({ runs: z.array(z.object({ id: z.string() })) });

/** Longer than the journal's 256 bytes: the stored output is a payload reference the fork must read back whole. */
const ANSWER = `The answer, at length: ${"lorem ipsum ".repeat(60)}`;

/** topic → llm:chat (the scripted server) → "Summary: {{0}}" → out. */
function chain(profileId: string): WorkflowInput {
  return {
    id: "ask",
    name: "Ask",
    nodes: [
      { id: "topic", type: "core:workflow-input", config: { name: "topic", portType: "string", required: true } },
      { id: "llm", type: "llm:chat", config: { profileId } },
      { id: "fill", type: "core:text-template", config: { template: "Summary: {{0}}" } },
      { id: "out", type: "core:workflow-output", config: { name: "text", portType: "string" } },
    ],
    edges: [
      { id: "e1", source: "topic", sourceHandle: "value", target: "llm", targetHandle: "prompt" },
      { id: "e2", source: "llm", sourceHandle: "text", target: "fill", targetHandle: "values" },
      { id: "e3", source: "fill", sourceHandle: "text", target: "out", targetHandle: "value" },
    ],
  };
}

const observation = (answer: RunAnswer, nodeId: string) => answer.observations.find((o) => o.nodeId === nodeId);

describe("forking a run at a node (POST /api/runs/:id/fork)", () => {
  let llm: ScriptedLlmServer;
  let t: TestServer;
  let dataDir: string;
  let original: RunAnswer;

  const start = async (server: TestServer) => {
    const res = await server.call("POST", "/api/workflows/ask/runs", { inputs: { topic: "forks" } });
    expect(res.status).toBe(202);
    return waitForRun(server, StartedRunSchema.parse(res.body).runId);
  };
  const fork = async (server: TestServer, runId: string, body: unknown) => {
    const res = await server.call("POST", `/api/runs/${runId}/fork`, body);
    expect(res.status, JSON.stringify(res.body)).toBe(202);
    return waitForRun(server, StartedRunSchema.parse(res.body).runId);
  };
  const llmRequests = () => llm.chatBodies().length;

  beforeAll(async () => {
    llm = await startScriptedLlmServer({ turns: [{ kind: "text", chunks: [ANSWER] }] });
    t = await startTestServer();
    dataDir = t.dataDir;
    const profile = await t.call("POST", "/api/llm-profiles", { name: "scripted", baseUrl: llm.baseUrl, model: llm.model, maxRetries: 0 });
    expect(profile.status).toBe(201);
    expect((await t.call("POST", "/api/workflows", { workflow: chain(ProfileIdAnswerSchema.parse(profile.body).profile.id) })).status).toBe(201);
    original = await start(t);
    expect(original.run.status).toBe("completed");
    expect(llmRequests()).toBe(1);
  });

  afterAll(async () => {
    await t?.stop();
    await llm?.stop();
  });

  it("forks the last node from recorded outputs: no new LLM request, only that node's output changes", async () => {
    const forked = await fork(t, original.run.id, { at: "fill", settings: { template: "Fork: {{0}}" } });
    expect(forked.run.status).toBe("completed");
    expect(llmRequests()).toBe(1);
    expect(forked.run.forkOf).toEqual({ runId: original.run.id, nodeId: "fill" });
    expect(forked.run.forkChanges).toEqual({ settings: { template: "Fork: {{0}}" } });
    // The fork ran the graph of the run, with the change applied at its node.
    expect(forked.workflow.nodes.find((n) => n.id === "fill")?.config).toEqual({ template: "Fork: {{0}}" });
    expect(observation(forked, "llm")).toMatchObject({ status: "completed", cached: true, outputs: observation(original, "llm")?.outputs, inputs: observation(original, "llm")?.inputs });
    expect(observation(forked, "llm")?.outputs.text).toBe(ANSWER);
    expect(observation(forked, "fill")).toMatchObject({ cached: false, outputs: { text: `Fork: ${ANSWER}` } });
    expect(observation(original, "fill")?.outputs).toEqual({ text: `Summary: ${ANSWER}` });
    expect(forked.run.outputs).toEqual({ text: `Fork: ${ANSWER}` });
  });

  it("sets an input of the node in place of what its edge brought, and records the change", async () => {
    const forked = await fork(t, original.run.id, { at: "fill", inputs: { values: "edited" } });
    expect(llmRequests()).toBe(1);
    expect(forked.run.outputs).toEqual({ text: "Summary: edited" });
    expect(forked.run.forkChanges).toEqual({ inputs: { values: "edited" } });
  });

  it("puts a setting the node holds as an input (not in its config) on that input, so the change takes effect", async () => {
    const forked = await fork(t, original.run.id, { at: "fill", settings: { values: "set as a setting" } });
    expect(llmRequests()).toBe(1);
    expect(forked.run.outputs).toEqual({ text: "Summary: set as a setting" });
    const fill = forked.workflow.nodes.find((n) => n.id === "fill");
    expect(fill?.config).toEqual({ template: "Summary: {{0}}" });
    expect(fill?.inputs).toMatchObject({ values: "set as a setting" });
    expect(forked.workflow.edges.some((e) => e.target === "fill" && e.targetHandle === "values")).toBe(false);
  });

  it("refuses an unknown node, and a fork a viewer asks for stores no run", async () => {
    const unknown = await t.call("POST", `/api/runs/${original.run.id}/fork`, { at: "nope" });
    expect(unknown.status).toBe(400);
    expect(ErrorAnswerSchema.parse(unknown.body).error.message).toContain('no node "nope"');
    const missing = await t.call("POST", `/api/runs/no-such-run/fork`, { at: "fill" });
    expect(missing.status).toBe(404);

    const viewer = await createTestUser(t, "fork-viewer", "viewer");
    const before = RunListSchema.parse((await t.call("GET", "/api/runs?limit=500")).body).runs.length;
    expect((await viewer.call("POST", `/api/runs/${original.run.id}/fork`, { at: "fill", settings: { template: "viewer {{0}}" } })).status).toBe(403);
    const after = RunListSchema.parse((await t.call("GET", "/api/runs?limit=500")).body).runs.length;
    expect(after).toBe(before);
  });

  it("names the node without a recorded output (a failed LLM call), and a pin of its output lets the fork run", async () => {
    llm.enqueue({ kind: "http_error", status: 400, message: "bad request" });
    const failed = await start(t);
    expect(failed.run.status).toBe("failed");
    expect(observation(failed, "llm")?.status).toBe("failed");
    const requestsBefore = llmRequests();
    const refused = await t.call("POST", `/api/runs/${failed.run.id}/fork`, { at: "fill", settings: { template: "again {{0}}" } });
    expect(refused.status).toBe(409);
    const error = ErrorAnswerSchema.parse(refused.body).error;
    expect(error.details).toMatchObject({ reason: "NOT_RECORDED", nodeId: "llm", runId: failed.run.id });
    expect(error.message).toContain('Node "llm" failed there');
    expect(error.message).toContain("pins");

    const pinned = await fork(t, failed.run.id, { at: "fill", pins: { llm: { text: "pinned answer" } } });
    expect(pinned.run.status).toBe("completed");
    expect(pinned.run.outputs).toEqual({ text: "Summary: pinned answer" });
    expect(llmRequests()).toBe(requestsBefore);
  });

  it("forks from the stored record after a restart of the server on the same data folder", async () => {
    await t.stop();
    t = await startTestServer({ dataDir });
    const forked = await fork(t, original.run.id, { at: "fill", settings: { template: "After restart: {{0}}" } });
    expect(forked.run.status).toBe("completed");
    expect(llmRequests()).toBe(1 + 1); // the original and the failed run's call, nothing more
    expect(observation(forked, "llm")).toMatchObject({ cached: true, outputs: { text: ANSWER } });
    expect(forked.run.outputs).toEqual({ text: `After restart: ${ANSWER}` });
  });
});

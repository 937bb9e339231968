import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterEach, describe, expect, it, vi } from "vitest";
import type { RunEvent, Workflow, WorkflowSource } from "@weft/types";
import { AgentInstance } from "./agent-instance.ts";
import { action, createAgentHarness, say, type AgentHarness } from "./testing/agent-harness.ts";

let h: AgentHarness;
afterEach(async () => {
  await h?.stop();
});

describe("cancellation", () => {
  it("aborts the LLM stream mid-way, keeps the partial output in the log, and resumes from it", async () => {
    h = await createAgentHarness({
      turns: [{ kind: "text", chunks: ["I am thinking ", "about ", "it ", "very ", "slowly ", "indeed."], chunkDelayMs: 250 }, say("Here is the answer.")],
    });
    const controller = new AbortController();
    const agent = await h.create(
      {},
      {
        onRunEvent: (e: RunEvent) => {
          h.runEvents.push(e);
          if (e.type === "node.chunk" && !controller.signal.aborted) controller.abort();
        },
      },
    );
    const sent = await agent.sendMessage("Think.", { signal: controller.signal });
    if (!sent.ok) throw new Error(sent.error.message);
    expect(sent.value.status).toBe("cancelled");
    const step = sent.value.steps[0]!;
    expect(step.deliberation.status).toBe("cancelled");
    expect(step.output.text.startsWith("I am thinking")).toBe(true);
    expect(step.output.text).not.toContain("indeed.");
    await vi.waitFor(() => expect(h.server.requests[0]!.clientClosedEarly).toBe(true), { timeout: 60_000 });

    const log = await h.conversations.messages(agent.conversationId);
    const last = log.at(-1)!;
    expect(last).toMatchObject({ role: "assistant", content: step.output.text, llmError: { code: "CANCELLED" } });
    expect(agent.status).toBe("cancelled");
    expect(h.events.at(-1)).toMatchObject({ type: "agent.finished", status: "cancelled" });

    const resumed = await agent.resume();
    if (!resumed.ok) throw new Error(resumed.error.message);
    expect(resumed.value).toMatchObject({ status: "completed", text: "Here is the answer." });
    const continued = h.request(1).at(-1) as { role: string; content: string };
    expect(continued.role).toBe("assistant");
    expect(continued.content.startsWith(step.output.text)).toBe(true);
    expect(continued.content).toContain("LLM_ERROR\n- code: CANCELLED");
  });

  it("aborts a running action: its run is cancelled and the model is told so", async () => {
    h = await createAgentHarness({ turns: [say(action("core_delay", { ms: "60000" }))] });
    const agent = await h.create(
      { tools: ["core:delay"] },
      {
        onEvent: (e: RunEvent) => {
          h.events.push(e);
          if (e.type === "agent.step" && e.phase === "acting") setTimeout(() => agent.cancel(), 50);
        },
      },
    );
    // The delay is a minute, twice the test's timeout: only a cancellation that reaches the node ends it in time.
    const sent = await agent.sendMessage("wait a minute");
    if (!sent.ok) throw new Error(sent.error.message);
    expect(sent.value).toMatchObject({ status: "cancelled", reason: "The run was cancelled while an action ran." });
    const acted = sent.value.steps[0]!.actions[0]!;
    expect(acted).toMatchObject({ status: "cancelled", ok: false });
    expect(acted.observation).toMatch(/^Observation: Error - Tool `core_delay` was cancelled/);
    expect(h.runEvents.find((e) => e.type === "run.cancelled" && e.runId === acted.runId)).toBeDefined();
    expect((await h.conversations.messages(agent.conversationId)).at(-1)).toMatchObject({ role: "user", content: acted.observation });
  });

  it("refuses a second loop while one runs, and cancel() stops the running one", async () => {
    // An answer that never comes in the test's time: only the cancel ends the loop, however slow the machine.
    h = await createAgentHarness({ turns: [{ kind: "text", chunks: ["slow"], delayMs: 600_000 }] });
    const agent = await h.create({});
    const running = agent.sendMessage("first");
    await vi.waitFor(() => expect(h.server.requests).toHaveLength(1), { timeout: 60_000 });
    expect(agent.status).toBe("running");
    expect(await agent.sendMessage("second")).toMatchObject({ ok: false, error: { code: "BUSY" } });
    agent.cancel();
    const first = await running;
    expect(first).toMatchObject({ ok: true, value: { status: "cancelled" } });
  });
});

describe("permissions", () => {
  it("pauses in waiting_permission until answered: once lets the write happen, reject refuses it", async () => {
    h = await createAgentHarness({
      turns: [
        say(action("fs_write", { path: "@project/out.txt", content: "hello" })),
        say("Written."),
        say(action("fs_write", { path: "@project/no.txt", content: "nope" })),
        say("The user said no."),
      ],
    });
    const answers: Array<"once" | "reject"> = ["once", "reject"];
    const seen: Array<{ status: string; pending: number }> = [];
    const agent: AgentInstance = await h.create(
      { tools: ["fs:write"] },
      {
        toolHost: h.toolHost({ permissions: { rules: [{ action: "ask", tool: "fs.write" }] } }),
        permissionBroker: h.broker,
        onEvent: (e: RunEvent) => {
          h.events.push(e);
          if (e.type !== "agent.permission.requested") return;
          seen.push({ status: agent.status, pending: agent.pendingPermissions().length });
          const answer = answers.shift()!;
          setTimeout(() => expect(agent.answerPermission(e.requestId, answer)).toEqual({ ok: true, value: undefined }), 30);
        },
      },
    );
    const first = await agent.sendMessage("Write hello to out.txt");
    if (!first.ok) throw new Error(first.error.message);
    expect(first.value.status).toBe("completed");
    expect(readFileSync(join(h.dirs.project, "out.txt"), "utf8")).toBe("hello");
    expect(first.value.steps[0]!.actions[0]!.permissions).toEqual([{ requestId: expect.any(String), tool: "fs.write", target: "@project/out.txt", answer: "once" }]);

    const second = await agent.sendMessage("Now write nope to no.txt");
    if (!second.ok) throw new Error(second.error.message);
    expect(existsSync(join(h.dirs.project, "no.txt"))).toBe(false);
    const refused = second.value.steps[0]!.actions[0]!;
    expect(refused).toMatchObject({ ok: false, status: "failed", error: { code: "E_PERMISSION_DENIED" }, permissions: [{ answer: "reject" }] });
    expect(refused.observation).toContain("[E_PERMISSION_DENIED]");
    expect(h.request(3).at(-1)).toEqual({ role: "user", content: refused.observation });

    expect(seen).toEqual([
      { status: "waiting_permission", pending: 1 },
      { status: "waiting_permission", pending: 1 },
    ]);
    const permissionEvents = h.events.filter((e) => e.type.startsWith("agent.permission."));
    expect(permissionEvents.map((e) => (e.type === "agent.permission.answered" ? `answered:${e.answer}` : e.type))).toEqual([
      "agent.permission.requested",
      "answered:once",
      "agent.permission.requested",
      "answered:reject",
    ]);
    expect(agent.answerPermission("no-such-request", "once")).toMatchObject({ ok: false, error: { code: "UNKNOWN_PERMISSION_REQUEST" } });
    expect(agent.answerPermission("no-such-request", { answer: "maybe" } as never)).toMatchObject({ ok: false, error: { code: "INVALID_PERMISSION_ANSWER" } });
  });

  it("leaves tools the permissions deny out of the manifest and the prompt", async () => {
    h = await createAgentHarness({ turns: [say("ok")] });
    const agent = await h.create({ tools: ["fs:read", "fs:write"] }, { toolHost: h.toolHost({ permissions: { rules: [{ action: "deny", tool: "fs.write" }] } }) });
    expect(agent.manifest.entries.map((e) => e.id)).toEqual(["fs:read", "ask_user"]);
    await agent.sendMessage("hi");
    expect(String(h.request(0)[0]!.content)).not.toContain("fs_write");
  });

  it("applies the profile's own rules under the settings': they narrow, never open, and a tool they deny is hidden", async () => {
    h = await createAgentHarness({ turns: [say(action("fs_write", { path: "@project/mine.txt", content: "free" })), say("Done.")] });
    const host = h.toolHost({
      permissions: {
        rules: [
          { action: "ask", tool: "fs.write" },
          { action: "deny", tool: "fs.read" },
        ],
      },
    });
    const asked: string[] = [];
    const writer: AgentInstance = await h.create(
      { id: "writer", tools: ["fs:write", "fs:read"], permissions: [{ action: "allow", tool: "*" }] },
      {
        toolHost: host,
        permissionBroker: h.broker,
        onEvent: (e: RunEvent) => {
          if (e.type !== "agent.permission.requested") return;
          asked.push(e.target ?? "");
          setTimeout(() => writer.answerPermission(e.requestId, { answer: "reject" }), 10);
        },
      },
    );
    // The settings deny fs.read outright: the agent's allow does not bring it back.
    expect(writer.manifest.entries.map((e) => e.id)).toEqual(["fs:write", "ask_user"]);
    const sent = await writer.sendMessage("Write it");
    if (!sent.ok) throw new Error(sent.error.message);
    // The settings ask: the agent's allow does not skip the question, and the refused write did not happen.
    expect(asked).toEqual(["@project/mine.txt"]);
    expect(sent.value.steps[0]!.actions[0]).toMatchObject({ ok: false, permissions: [{ answer: "reject" }] });
    expect(existsSync(join(h.dirs.project, "mine.txt"))).toBe(false);

    const reader = await h.create(
      {
        id: "reader",
        tools: ["fs:write", "fs:read"],
        permissions: [
          { action: "deny", tool: "fs:write" },
          { action: "allow", tool: "fs.read" },
        ],
      },
      { toolHost: host },
    );
    // Its own deny hides fs:write; its allow of fs.read opens nothing the settings deny.
    expect(reader.manifest.entries.map((e) => e.id)).toEqual(["ask_user"]);
  });

  it("follows changed settings: the tool host decides with the new rules at once, the manifest from the next loop", async () => {
    h = await createAgentHarness({ turns: [say(action("fs_write", { path: "@project/a.txt", content: "a" })), say("Done.")] });
    const host = h.toolHost();
    const agent = await h.create({ tools: ["fs:write", "fs:read"] }, { toolHost: host, permissionBroker: h.broker });
    expect(agent.manifest.entries.map((e) => e.id)).toEqual(["fs:write", "fs:read", "ask_user"]);
    host.setPolicy({
      rules: [
        { action: "deny", tool: "fs.read" },
        { action: "deny", tool: "fs.write", target: "@project/*.txt" },
      ],
    });
    expect(agent.manifest.entries.map((e) => e.id)).toEqual(["fs:write", "ask_user"]);
    const sent = await agent.sendMessage("Write a");
    if (!sent.ok) throw new Error(sent.error.message);
    expect(sent.value.steps[0]!.actions[0]).toMatchObject({ ok: false, error: { code: "E_PERMISSION_DENIED" } });
    expect(sent.value.steps[0]!.actions[0]!.observation).toContain("denied by the permission settings (rule 2)");
    expect(existsSync(join(h.dirs.project, "a.txt"))).toBe(false);
    expect(String(h.request(0)[0]!.content)).not.toContain("fs_read");
  });
});

describe("failures as values", () => {
  it("ends failed with LLM_FAILED and the provider's code when the LLM call fails", async () => {
    h = await createAgentHarness({ turns: [{ kind: "http_error", status: 401, message: "bad key" }] });
    const agent = await h.create({});
    const sent = await agent.sendMessage("hi");
    if (!sent.ok) throw new Error(sent.error.message);
    expect(sent.value).toMatchObject({ status: "failed", error: { code: "LLM_FAILED", details: { llmCode: "AUTH" } } });
    expect(sent.value.error!.hint).toBeTruthy();
    expect(sent.value.steps[0]!.deliberation).toMatchObject({ status: "failed", error: { code: "AUTH" } });
  });

  it("refuses profiles that name unknown tools, skills or deliberation workflows, saying which and how to fix", async () => {
    h = await createAgentHarness();
    const base = { engine: h.engine, catalog: h.catalog, workflows: h.workflows, conversations: h.conversations };
    const profile = { id: "p", name: "P", deliberationWorkflowId: "agent-deliberation" };
    const typo = await AgentInstance.create({ ...base, profile: { ...profile, tools: ["core:maths"] } });
    expect(typo).toMatchObject({ ok: false, error: { code: "UNKNOWN_TOOL_TYPE", details: { tool: "core:maths" } } });
    if (!typo.ok) expect(typo.error.hint).toContain('"core:math"');
    expect(await AgentInstance.create({ ...base, profile: { ...profile, skills: ["no-such-skill"] } })).toMatchObject({ ok: false, error: { code: "UNKNOWN_SKILL" } });
    expect(await AgentInstance.create({ ...base, profile: { ...profile, deliberationWorkflowId: "missing" } })).toMatchObject({ ok: false, error: { code: "DELIBERATION_WORKFLOW_NOT_FOUND" } });
    expect(await AgentInstance.create({ ...base, profile: { ...profile, maxSteps: 0 } })).toMatchObject({ ok: false, error: { code: "INVALID_PROFILE" } });

    const plain: Workflow = {
      id: "plain",
      name: "Plain",
      description: "",
      revision: 0,
      nodes: [{ id: "t", type: "core:const-text", position: { x: 0, y: 0 }, config: {}, inputs: {} }],
      edges: [],
      annotations: [],
      tags: [],
    };
    const withPlain: WorkflowSource = { getWorkflow: async (id) => (id === "plain" ? plain : h.workflows.getWorkflow(id)) };
    expect(await AgentInstance.create({ ...base, workflows: withPlain, profile: { ...profile, skills: ["plain"] } })).toMatchObject({ ok: false, error: { code: "NOT_A_SKILL" } });
    const bad = await AgentInstance.create({ ...base, workflows: withPlain, profile: { ...profile, deliberationWorkflowId: "plain" } });
    expect(bad).toMatchObject({ ok: false, error: { code: "INVALID_DELIBERATION_WORKFLOW" } });
    if (!bad.ok) expect(bad.error.message).toContain('an input "messages" (messages)');
  });
});

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startScriptedLlmServer, type ScriptedLlmServer } from "@weft/agent-runtime";
import { ApprovalViewSchema } from "@weft/types";
import { ConversationAnswerSchema, ProfileIdAnswerSchema, SentMessageSchema } from "../testing/answers.ts";
import { startTestServer, tempDir, waitFor, type TestServer } from "../testing/test-server.ts";
import { createTestUser } from "../testing/users.ts";

const EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));
const ApprovalList = z.object({ approvals: z.array(ApprovalViewSchema) });
const say = (text: string) => ({ kind: "text" as const, chunks: [text] });
/** An `<ACTION>` that appends `line;` to @project/log.txt: a step run again would write it again. */
const write = (line: string) => `Writing ${line}.\n<ACTION>\n  <fs_write>\n    <path>@project/log.txt</path>\n    <content>${line};</content>\n    <mode>append</mode>\n  </fs_write>\n</ACTION>`;
const askApproval = (question: string, extra = "") => `I need an approval.\n<ACTION>\n  <ask_approval>\n    <question>${question}</question>${extra}\n  </ask_approval>\n</ACTION>`;

/**
 * Issue 34, item 3: an agent's `ask_approval`. A real server with a scripted OpenAI-compatible LLM that counts its
 * requests; the agent's one tool appends to a file, so a step that ran again would show twice.
 */
describe("ask_approval: an agent waits for a decision in the approvals inbox, across a restart", () => {
  const projectDir = tempDir("weft-askappr-project-");
  const dataDir = tempDir("weft-askappr-data-");
  const logFile = join(projectDir, "log.txt");
  const lines = () =>
    existsSync(logFile)
      ? readFileSync(logFile, "utf8")
          .split(";")
          .filter((l) => l !== "")
      : [];
  let t: TestServer;
  let llm: ScriptedLlmServer;
  let llmProfileId = "";

  const serve = () => startTestServer({ dataDir, projectDir, examplesDir: EXAMPLES, approvalSweepMs: 200 });
  const view = async (id: string) => ConversationAnswerSchema.parse((await t.call("GET", `/api/conversations/${id}`)).body);
  const settled = (id: string, status: string) =>
    waitFor(
      async () => {
        const v = await view(id);
        return v.agent && !v.agent.running && v.agent.status === status ? v : undefined;
      },
      60_000,
      `conversation ${id} to be ${status}`,
    );
  const approvalOf = async (conversationId: string) => {
    const list = ApprovalList.parse((await t.call("GET", `/api/approvals?runId=${conversationId}`)).body).approvals;
    expect(list).toHaveLength(1);
    return list[0]!;
  };
  /** What the last message of the `index`-th chat request said, as text. */
  const lastMessageOf = (index: number): string => {
    const messages = z.object({ messages: z.array(z.object({ role: z.string(), content: z.unknown() })) }).parse(llm.chatBodies()[index]).messages;
    return JSON.stringify(messages.at(-1));
  };
  const send = async (message: string): Promise<string> => {
    const sent = await t.call("POST", "/api/agents/payer/messages", { message });
    expect(sent.status).toBe(202);
    return SentMessageSchema.parse(sent.body).conversationId;
  };

  beforeAll(async () => {
    llm = await startScriptedLlmServer();
    t = await serve();
    const profile = await t.call("POST", "/api/llm-profiles", { name: "scripted", baseUrl: llm.baseUrl, model: llm.model, maxRetries: 0 });
    expect(profile.status).toBe(201);
    expect((await t.call("PUT", "/api/settings/permissions", { defaultAction: "allow", rules: [] })).status).toBe(200);
    llmProfileId = ProfileIdAnswerSchema.parse(profile.body).profile.id;
    const created = await t.call("POST", "/api/agents", {
      id: "payer",
      name: "Payer",
      deliberationWorkflowId: "agent-deliberation",
      llmProfileId,
      protocol: "action-xml",
      maxSteps: 6,
      tools: ["fs:write"],
      askApproval: true,
    });
    expect(created.status).toBe(201);
  });

  afterAll(async () => {
    await t?.stop();
    await llm?.stop();
  });

  it("waits (waiting_approval, listed in the inbox), a viewer's decision does nothing, and after a restart an approval continues the loop without re-running a step", async () => {
    llm.enqueue(say(write("one")), say(askApproval("Pay invoice 17 (420 EUR)?", '\n    <data>{"invoice": 17}</data>')));
    const id = await send("Write one, then pay invoice 17 once approved.");
    const waiting = await settled(id, "waiting_approval");
    expect(waiting.steps.map((s) => s.status)).toEqual(["running", "waiting_approval"]);
    expect(llm.chatBodies()).toHaveLength(2);
    expect(lines()).toEqual(["one"]);
    const pending = await approvalOf(id);
    expect(pending).toMatchObject({ status: "pending", subject: { kind: "agent", conversationId: id, agentId: "payer", step: 2 }, request: { question: "Pay invoice 17 (420 EUR)?", role: "editor" } });
    const inbox = ApprovalList.parse((await t.call("GET", "/api/approvals")).body).approvals;
    expect(inbox.map((a) => a.id)).toContain(pending.id);
    // A message is no answer to an approval: refused, the loop stays waiting, the model is not asked.
    expect((await t.call("POST", "/api/agents/payer/messages", { message: "just do it", conversationId: id })).status).toBe(409);
    expect((await view(id)).agent?.status).toBe("waiting_approval");
    expect(llm.chatBodies()).toHaveLength(2);

    // A viewer may not decide: the approval stays pending, the agent does not continue.
    const viewer = await createTestUser(t, "vera", "viewer");
    expect((await viewer.call("POST", `/api/approvals/${pending.id}/decision`, { decision: "approved" })).status).toBe(403);
    expect((await approvalOf(id)).status).toBe("pending");
    expect(llm.chatBodies()).toHaveLength(2);

    // Stopped and started again on the same data: nothing was held in memory.
    await t.stop();
    t = await serve();
    expect((await view(id)).agent?.status).toBe("waiting_approval");

    llm.enqueue(say("Invoice 17 paid."));
    const decided = await t.call("POST", `/api/approvals/${pending.id}/decision`, { decision: "approved", comment: "ok by finance" });
    expect(decided.status).toBe(200);
    const done = await settled(id, "completed");
    expect(done.steps.map((s) => s.status)).toEqual(["running", "waiting_approval", "completed"]);
    // One more model request, whose last message is the decision; no earlier step ran again (one line, three requests).
    expect(llm.chatBodies()).toHaveLength(3);
    const observation = lastMessageOf(2);
    expect(observation).toContain("approved");
    expect(observation).toContain("ok by finance");
    expect(lines()).toEqual(["one"]);
    // Decided once: a second decision is refused and continues nothing.
    expect((await t.call("POST", `/api/approvals/${pending.id}/decision`, { decision: "rejected" })).status).toBe(409);
    expect(llm.chatBodies()).toHaveLength(3);
  });

  it("a rejection reaches the model as a `rejected` observation", async () => {
    const before = llm.chatBodies().length;
    llm.enqueue(say(askApproval("Delete the archive?")), say("Not deleting it."));
    const id = await send("Delete the archive if approved.");
    await settled(id, "waiting_approval");
    const pending = await approvalOf(id);
    const archivist = await createTestUser(t, "archivist", "editor");
    expect((await archivist.call("POST", `/api/approvals/${pending.id}/decision`, { decision: "rejected", comment: "keep it" })).status).toBe(200);
    await settled(id, "completed");
    expect(llm.chatBodies()).toHaveLength(before + 2);
    const observation = lastMessageOf(before + 1);
    expect(observation).toContain("rejected");
    expect(observation).toContain("keep it");
    // The model is told who decided, by name, not only by id.
    expect(observation).toContain("(archivist)");
  });

  it("through /v1/chat/completions: a 409 naming the conversation and how to decide, not a server error, and the approval waits in the inbox", async () => {
    const editor = await createTestUser(t, "eddie", "editor");
    llm.enqueue(say(askApproval("Refund order 9?")));
    const res = await fetch(`${t.url}/v1/chat/completions`, {
      method: "POST",
      headers: { ...editor.bearer, "content-type": "application/json" },
      body: JSON.stringify({ model: "payer", messages: [{ role: "user", content: "Refund order 9 once approved." }] }),
    });
    expect(res.status).toBe(409);
    expect(res.headers.get("x-should-retry")).toBe("false");
    const error = z.object({ error: z.object({ code: z.string(), message: z.string() }) }).parse(await res.json()).error;
    expect(error.code).toBe("agent_waiting_approval");
    const conversationId = /continues conversation ([\w-]+)/.exec(error.message)?.[1] ?? "";
    expect((await approvalOf(conversationId)).request.question).toBe("Refund order 9?");
  });

  it("cancelling a conversation that waits closes its approval: out of the inbox, a later decision is a 409 and continues nothing", async () => {
    const before = llm.chatBodies().length;
    llm.enqueue(say(askApproval("Wire 5,000 EUR?")), say("Hello again."));
    const id = await send("Wire the money once approved.");
    await settled(id, "waiting_approval");
    const pending = await approvalOf(id);
    expect((await t.call("POST", `/api/conversations/${id}/cancel`)).status).toBe(200);
    await settled(id, "cancelled");
    expect((await approvalOf(id)).status).toBe("closed");
    const inbox = ApprovalList.parse((await t.call("GET", "/api/approvals")).body).approvals;
    expect(inbox.map((a) => a.id)).not.toContain(pending.id);
    const late = await t.call("POST", `/api/approvals/${pending.id}/decision`, { decision: "approved" });
    expect(late.status).toBe(409);
    expect(late.body).toMatchObject({ error: { code: "CONFLICT", details: { reason: "CLOSED" } } });
    expect(llm.chatBodies()).toHaveLength(before + 1);
    // The conversation takes messages again: the next one is a new turn, not an answer to the approval.
    expect((await t.call("POST", "/api/agents/payer/messages", { message: "Hi", conversationId: id })).status).toBe(202);
    await settled(id, "completed");
    expect(llm.chatBodies()).toHaveLength(before + 2);
    expect(lastMessageOf(before + 1)).not.toContain("approved");
  });

  it("a timeout takes the default decision and continues the loop", async () => {
    const before = llm.chatBodies().length;
    llm.enqueue(say(askApproval("Send the newsletter?", "\n    <timeoutSeconds>1</timeoutSeconds>\n    <defaultDecision>approved</defaultDecision>")), say("Newsletter sent."));
    const id = await send("Send the newsletter once approved.");
    await settled(id, "completed");
    const approval = await approvalOf(id);
    expect(approval).toMatchObject({ status: "decided", decision: "approved", decidedBy: "timeout" });
    expect(llm.chatBodies()).toHaveLength(before + 2);
    expect(lastMessageOf(before + 1)).toContain("timeout");
  });

  it("is offered only to agents whose profile enables it: another agent's prompt has no ask_approval", async () => {
    const plain = { id: "plain", name: "Plain", deliberationWorkflowId: "agent-deliberation", llmProfileId, protocol: "action-xml", tools: ["fs:write"] };
    expect((await t.call("POST", "/api/agents", plain)).status).toBe(201);
    const before = llm.chatBodies().length;
    llm.enqueue(say("Hello."), say("Hello again."));
    const sent = await t.call("POST", "/api/agents/plain/messages", { message: "Hi" });
    expect(sent.status).toBe(202);
    await settled(SentMessageSchema.parse(sent.body).conversationId, "completed");
    expect(JSON.stringify(llm.chatBodies()[before])).not.toContain("ask_approval");
    const payer = await send("Hi");
    await settled(payer, "completed");
    expect(JSON.stringify(llm.chatBodies()[before + 1])).toContain("ask_approval");
  });
});

import { existsSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startScriptedLlmServer, type ScriptedLlmServer } from "@weft/agent-runtime";
import { ConversationSchema } from "@weft/types";
import { ErrorBodySchema } from "../testing/error-body.ts";
import { ConversationAnswerSchema, ProfileIdAnswerSchema, SentMessageSchema } from "../testing/answers.ts";
import { startTestServer, tempDir, waitFor, type TestServer } from "../testing/test-server.ts";
import { createTestUser, type TestUser } from "../testing/users.ts";

const EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));
const View = ConversationAnswerSchema.extend({ forks: z.array(ConversationSchema) });
type View = z.infer<typeof View>;
const Forked = z.object({ conversationId: z.string() });

/** An `<ACTION>` that appends `line;` to @project/log.txt: each run of it is one more entry in the file. */
const write = (line: string) => `Writing ${line}.\n<ACTION>\n  <fs_write>\n    <path>@project/log.txt</path>\n    <content>${line};</content>\n    <mode>append</mode>\n  </fs_write>\n</ACTION>`;
const say = (text: string) => ({ kind: "text" as const, chunks: [text] });

/** What the last message of the `index`-th chat request the LLM server received said. */
const lastMessageOf = (llm: ScriptedLlmServer, index: number): unknown => {
  const messages = z.object({ messages: z.array(z.object({ role: z.string(), content: z.unknown() })) }).parse(llm.chatBodies()[index]).messages;
  return messages.at(-1);
};

/**
 * Issue 33, item 3: forking an agent conversation at a step. The LLM is a scripted OpenAI-compatible server that
 * counts its requests, and every action appends a line to a file in the project folder: a step replayed from the
 * record adds neither a request nor a line.
 */
describe("forking an agent conversation at a step", () => {
  const projectDir = tempDir("weft-fork-project-");
  const logFile = join(projectDir, "log.txt");
  const lines = () =>
    existsSync(logFile)
      ? readFileSync(logFile, "utf8")
          .split(";")
          .filter((l) => l !== "")
      : [];
  let t: TestServer;
  let llm: ScriptedLlmServer;
  let editor: TestUser;
  let viewer: TestUser;
  let parentId: string;
  let parent: View;

  const view = async (id: string): Promise<View> => View.parse((await editor.call("GET", `/api/conversations/${id}`)).body);
  const settled = (id: string, steps: number): Promise<View> =>
    waitFor(
      async () => {
        const v = await view(id);
        return v.agent && !v.agent.running && v.steps.length >= steps ? v : undefined;
      },
      60_000,
      `conversation ${id} to settle with ${steps} steps`,
    );
  const allConversations = async () => z.object({ conversations: z.array(ConversationSchema) }).parse((await t.call("GET", "/api/agents/logkeeper/conversations?limit=500")).body).conversations;

  beforeAll(async () => {
    llm = await startScriptedLlmServer();
    t = await startTestServer({ projectDir, examplesDir: EXAMPLES });
    const profile = await t.call("POST", "/api/llm-profiles", { name: "scripted", baseUrl: llm.baseUrl, model: llm.model, maxRetries: 0 });
    expect(profile.status).toBe(201);
    expect((await t.call("PUT", "/api/settings/permissions", { defaultAction: "allow", rules: [] })).status).toBe(200);
    editor = await createTestUser(t, "eddie", "editor");
    viewer = await createTestUser(t, "vera", "viewer");
    const created = await t.call("POST", "/api/agents", {
      id: "logkeeper",
      name: "Scribe",
      persona: "PERSONA-ONE: you keep a log.",
      deliberationWorkflowId: "agent-deliberation",
      llmProfileId: ProfileIdAnswerSchema.parse(profile.body).profile.id,
      protocol: "action-xml",
      maxSteps: 6,
      tools: ["fs:write"],
    });
    expect(created.status).toBe(201);

    // The conversation of 4 steps: three writes, then the answer.
    llm.enqueue(say(write("one")), say(write("two")), say(write("three")), say("All written."));
    const sent = await editor.call("POST", "/api/agents/logkeeper/messages", { message: "Write one, two and three to the log." });
    expect(sent.status).toBe(202);
    parentId = SentMessageSchema.parse(sent.body).conversationId;
    parent = await settled(parentId, 4);
    expect(parent.steps.map((s) => s.status)).toEqual(["running", "running", "running", "completed"]);
    expect(lines()).toEqual(["one", "two", "three"]);
    expect(llm.chatBodies()).toHaveLength(4);

    // Version 2 of the agent: another persona (the fork with agentVersion 1 goes back to the first).
    const current = z.object({ agent: z.object({ revision: z.number() }).loose() }).parse((await t.call("GET", "/api/agents/logkeeper")).body).agent;
    const updated = await t.call("PUT", "/api/agents/logkeeper", { agent: { ...current, persona: "PERSONA-TWO: you keep a log." }, baseRevision: current.revision });
    expect(updated.status).toBe(200);
  });

  afterAll(async () => {
    await t?.stop();
    await llm?.stop();
  });

  it("with an edited observation at step 2: replays steps 1–2 with no model request and no tool call, and goes on live from the edited observation", async () => {
    const requestsBefore = llm.chatBodies().length;
    llm.enqueue(say(write("fork-three")), say("Fork written."));
    const res = await editor.call("POST", `/api/conversations/${parentId}/fork`, { step: 2, observation: "Observation: EDITED-7f3a the disk is full." });
    expect(res.status).toBe(202);
    const forkId = Forked.parse(res.body).conversationId;
    const fork = await settled(forkId, 4);

    // Steps 3 and 4 were live: two requests, the first of them ending with the edited observation; one new line (step 3's).
    expect(llm.chatBodies()).toHaveLength(requestsBefore + 2);
    expect(lastMessageOf(llm, requestsBefore)).toEqual({ role: "user", content: "Observation: EDITED-7f3a the disk is full." });
    expect(lines()).toEqual(["one", "two", "three", "fork-three"]);

    expect(fork.conversation).toMatchObject({ agentId: "logkeeper", forkOf: { conversationId: parentId, step: 2 }, forkChanges: { observation: "Observation: EDITED-7f3a the disk is full." } });
    expect(fork.steps.map((s) => [s.step, s.conversationId, s.status])).toEqual([
      [1, forkId, "running"],
      [2, forkId, "running"],
      [3, forkId, "running"],
      [4, forkId, "completed"],
    ]);
    // The replayed steps are the parent's record: the same runs, no new ones.
    expect(fork.steps.slice(0, 2).map((s) => s.deliberation.runId)).toEqual(parent.steps.slice(0, 2).map((s) => s.deliberation.runId));
    expect(fork.steps[1]!.actions[0]!.observation).toBe("Observation: EDITED-7f3a the disk is full.");
    expect(fork.steps[2]!.output.text).toBe(write("fork-three"));

    // The parent is untouched, and lists its fork.
    const after = await view(parentId);
    expect(after.messages).toEqual(parent.messages);
    expect(after.steps).toEqual(parent.steps);
    expect(after.forks.map((f) => f.id)).toEqual([forkId]);
  });

  it("with an edited LLM output at step 2: makes no request for it, runs its action live, and goes on live", async () => {
    const requestsBefore = llm.chatBodies().length;
    llm.enqueue(say("Fork B done."));
    const res = await editor.call("POST", `/api/conversations/${parentId}/fork`, { step: 2, llmOutput: write("edited-two") });
    expect(res.status).toBe(202);
    const forkId = Forked.parse(res.body).conversationId;
    const fork = await settled(forkId, 3);
    expect(llm.chatBodies()).toHaveLength(requestsBefore + 1);
    expect(lines()).toEqual(["one", "two", "three", "fork-three", "edited-two"]);
    expect(fork.steps.map((s) => [s.step, s.status])).toEqual([
      [1, "running"],
      [2, "running"],
      [3, "completed"],
    ]);
    expect(fork.steps[1]!.output.text).toBe(write("edited-two"));
    expect(fork.steps[1]!.actions[0]).toMatchObject({ status: "completed", ok: true });
    expect(fork.steps[0]!.deliberation.runId).toBe(parent.steps[0]!.deliberation.runId);
    expect(fork.steps[1]!.deliberation.runId).not.toBe(parent.steps[1]!.deliberation.runId);
    expect(fork.conversation.forkChanges).toEqual({ llmOutput: write("edited-two") });
  });

  it("with another agent version: the steps after the fork point run with that version's profile", async () => {
    const requestsBefore = llm.chatBodies().length;
    llm.enqueue(say("Old persona speaking."));
    const res = await editor.call("POST", `/api/conversations/${parentId}/fork`, { step: 3, agentVersion: 1 });
    expect(res.status).toBe(202);
    const fork = await settled(Forked.parse(res.body).conversationId, 4);
    expect(llm.chatBodies()).toHaveLength(requestsBefore + 1);
    const request = JSON.stringify(llm.chatBodies()[requestsBefore]);
    expect(request).toContain("PERSONA-ONE");
    expect(request).not.toContain("PERSONA-TWO");
    expect(fork.conversation.forkChanges).toEqual({ agentVersion: 1 });
    expect(lines()).toHaveLength(5);
  });

  it("stores nothing, calls nothing and writes nothing for a viewer's fork", async () => {
    const [requestsBefore, conversationsBefore, linesBefore] = [llm.chatBodies().length, (await allConversations()).length, lines()];
    llm.enqueue(say(write("viewer")), say("Viewer done."));
    const res = await viewer.call("POST", `/api/conversations/${parentId}/fork`, { step: 2, observation: "Observation: viewer was here" });
    expect((await allConversations()).length).toBe(conversationsBefore);
    expect(res.status).toBe(403);
    expect((await view(parentId)).forks).toHaveLength(3);
    expect(llm.chatBodies()).toHaveLength(requestsBefore);
    expect(lines()).toEqual(linesBefore);
    // The two turns the viewer's fork would have used are still there.
    expect(llm.pending()).toBe(2);
  });

  it("refuses precisely, storing nothing: an unknown step or conversation, a step without observation, an <ACTION> that does not parse", async () => {
    const requestsBefore = llm.chatBodies().length;
    const conversationsBefore = (await allConversations()).length;
    const cases: Array<[string, unknown, number, string, RegExp]> = [
      [parentId, { step: 9, observation: "x" }, 404, "NOT_FOUND", /has no step 9; it has steps 1–4/],
      [parentId, { step: 0 }, 400, "VALIDATION_FAILED", /step/],
      ["no-such-conversation", { step: 1 }, 404, "NOT_FOUND", /no-such-conversation/],
      [parentId, { step: 4, observation: "Observation: x" }, 400, "VALIDATION_FAILED", /Step 4 .* has no observation to edit: it is the agent's final answer/],
      [
        parentId,
        { step: 2, llmOutput: "Writing.\n<ACTION>\n  <fs_write>\n    <path>@project/log.txt</path>" },
        400,
        "VALIDATION_FAILED",
        /body\.llmOutput: the <ACTION> of step 2's edited LLM output does not parse \(/,
      ],
      [parentId, { step: 2, llmOutput: write("x"), observation: "Observation: y" }, 400, "VALIDATION_FAILED", /llmOutput or observation, not both/],
      [parentId, { step: 2, agentVersion: 99 }, 404, "NOT_FOUND", /body\.agentVersion: agent "logkeeper" has no version 99/],
      [parentId, { step: 2, tool: "x" }, 400, "VALIDATION_FAILED", /tool/],
    ];
    for (const [id, body, status, code, message] of cases) {
      const res = await editor.call("POST", `/api/conversations/${id}/fork`, body);
      const error = ErrorBodySchema.safeParse(res.body).data?.error;
      expect({ body, status: res.status, code: error?.code }).toEqual({ body, status, code });
      expect(error?.message).toMatch(message);
    }
    expect((await allConversations()).length).toBe(conversationsBefore);
    expect(llm.chatBodies()).toHaveLength(requestsBefore);
  });
});

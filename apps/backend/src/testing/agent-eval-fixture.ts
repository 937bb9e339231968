import { fileURLToPath } from "node:url";
import { z } from "zod";
import { startScriptedLlmServer, type ScriptedLlmServer, type ScriptedTurn } from "@weft/agent-runtime";
import type { AgentEvalCase } from "@weft/types";
import { ProfileIdAnswerSchema } from "./answers.ts";
import { startTestServer, tempDir, type TestServer } from "./test-server.ts";

const EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));

/** An `<ACTION>` that appends `line;` to @project/log.txt. */
export const writeAction = (line: string) =>
  `Writing ${line}.\n<ACTION>\n  <fs_write>\n    <path>@project/log.txt</path>\n    <content>${line};</content>\n    <mode>append</mode>\n  </fs_write>\n</ACTION>`;
export const say = (text: string): ScriptedTurn => ({ kind: "text", chunks: [text] });

/**
 * Issue 33 item 4's agent suite: 5 cases of agent "logbook" (it may write files), run one at a time so the scripted
 * LLM's turns go to the cases in order. Case 5 asks the agent not to write, but its script writes: its
 * `tool-not-called` assertion fails, so the pass rate is 4/5.
 */
export const FIVE_CASES: AgentEvalCase[] = [
  { id: "hello", name: "greets", messages: ["Say hello."], assertions: [{ kind: "equals", expected: "Hello!" }] },
  {
    id: "writes",
    name: "writes when asked",
    messages: ["Write a to the log."],
    assertions: [
      { kind: "tool-called", tool: "fs:write", args: { content: "a;" } },
      { kind: "contains", text: "done" },
    ],
  },
  {
    id: "remembers",
    name: "a conversation of two messages",
    messages: ["Remember the number 7.", "Which number?"],
    assertions: [
      { kind: "equals", expected: "7" },
      { kind: "steps", max: 2 },
      { kind: "tool-not-called", tool: "fs_write" },
    ],
  },
  {
    id: "orders",
    name: "names the order",
    messages: ["Which order?"],
    assertions: [
      { kind: "regex", pattern: "#\\d+" },
      { kind: "json-schema", schema: { type: "string", minLength: 5 } },
      { kind: "cost", maxTokens: 1_000 },
    ],
  },
  { id: "no-write", name: "does not write when told not to", messages: ["Do not write anything."], assertions: [{ kind: "tool-not-called", tool: "fs:write" }] },
];

/** The LLM's answers to FIVE_CASES, in the order a run with concurrency 1 asks for them. */
export const fiveCaseTurns = (): ScriptedTurn[] => [
  say("Hello!"),
  say(writeAction("a")),
  say("All done."),
  say("Noted."),
  say("7"),
  say("Order #123 is on its way."),
  say(writeAction("x")),
  say("Wrote it anyway."),
];

export interface AgentEvalFixture {
  t: TestServer;
  llm: ScriptedLlmServer;
  projectDir: string;
  llmProfileId: string;
  stop(): Promise<void>;
}

/** A real server whose agent "logbook" deliberates with a scripted OpenAI-compatible LLM and may write to the project folder. */
export async function startAgentEvalFixture(): Promise<AgentEvalFixture> {
  const projectDir = tempDir("weft-agent-eval-");
  const llm = await startScriptedLlmServer();
  const t = await startTestServer({ projectDir, examplesDir: EXAMPLES });
  const stop = async () => {
    await t.stop();
    await llm.stop();
  };
  try {
    const profile = await t.call("POST", "/api/llm-profiles", { name: "scripted", baseUrl: llm.baseUrl, model: llm.model, maxRetries: 0 });
    if (profile.status !== 201) throw new Error(`the LLM profile was refused: ${JSON.stringify(profile.body)}`);
    const llmProfileId = ProfileIdAnswerSchema.parse(profile.body).profile.id;
    if ((await t.call("PUT", "/api/settings/permissions", { defaultAction: "allow", rules: [] })).status !== 200) throw new Error("the permissions were refused");
    const agent = await t.call("POST", "/api/agents", {
      id: "logbook",
      name: "Scribe",
      persona: "PERSONA-ONE: you keep a log.",
      deliberationWorkflowId: "agent-deliberation",
      llmProfileId,
      protocol: "action-xml",
      maxSteps: 6,
      tools: ["fs:write"],
    });
    if (agent.status !== 201) throw new Error(`the agent was refused: ${JSON.stringify(agent.body)}`);
    return { t, llm, projectDir, llmProfileId, stop };
  } catch (error) {
    await stop();
    throw error;
  }
}

export const SuiteIdAnswer = z.object({ suite: z.object({ id: z.string() }) });

import { AgentProfileSchema, messageOf, type AgentEvalCase, type AgentProfile, type AgentStepTrace, type EvalSide, type EvalSuite, type NodeCatalog, type WorkflowSource } from "@weft/types";
import { checkRunnable } from "../agents/agent-host.ts";
import type { AgentsStorage } from "../agents/agents-storage.ts";
import { notFound, ServiceError } from "../service-error.ts";
import { checkAgentAssertion, toolCallsOf, type AgentActual } from "./agent-assertions.ts";
import type { AgentCasePort } from "./agent-case-runs.ts";
import type { Judge } from "./eval-assertions.ts";
import type { CaseOutcome } from "./eval-runner.ts";

/** What a side of an agent suite's run sends its messages with: the stored profile (undefined), or a version of it / another LLM. */
export interface AgentSide {
  profile: AgentProfile | undefined;
  /** The version the side runs (the latest saved one for the stored profile), for the results. */
  version: number | undefined;
}

export interface AgentCasesDeps {
  storage: Pick<AgentsStorage, "agents" | "conversations" | "agentSteps">;
  port: AgentCasePort;
  catalog: NodeCatalog;
  workflows: WorkflowSource;
}

/** The final answer of a conversation: the reply of its last step (empty when it took none). */
const answerOf = (steps: readonly AgentStepTrace[]): string => steps.at(-1)?.responseText ?? "";

/** Agent suites (issue 33 item 4): a case is a conversation of user messages, run as an ordinary conversation of the agent. */
export class AgentCases {
  constructor(private readonly deps: AgentCasesDeps) {}

  async requireAgent(id: string): Promise<AgentProfile> {
    const stored = await this.deps.storage.agents.get(id);
    if (!stored) throw notFound("agent profile", id, "An agent suite tests a saved agent; GET /api/agents lists them.");
    return stored.document;
  }

  /** What each side runs, checked before anything starts: the version exists and can run, the host can run it. */
  async sides(suite: EvalSuite, sides: readonly EvalSide[]): Promise<AgentSide[]> {
    const agentId = suite.target.id;
    const current = await this.requireAgent(agentId);
    const result: AgentSide[] = [];
    for (const [i, side] of sides.entries()) {
      const field = i === 0 ? "against" : "compare";
      if (side.version === undefined && side.profileId === undefined) {
        result.push({ profile: undefined, version: (await this.deps.storage.agents.versions.latest(agentId))?.number });
        continue;
      }
      const base = side.version === undefined ? current : await this.version(agentId, side.version, field);
      const profile = side.profileId === undefined ? base : { ...base, llmProfileId: side.profileId };
      await checkRunnable(profile, { catalog: this.deps.catalog, workflows: this.deps.workflows });
      result.push({ profile, version: side.version });
    }
    return result;
  }

  /** Runs one case on one side: each message once the agent has answered the one before, then the assertions. */
  async run(agentId: string, side: AgentSide, testCase: AgentEvalCase, createdBy: string | undefined, judge: Judge): Promise<CaseOutcome> {
    const { port } = this.deps;
    const base = { caseId: testCase.id, name: testCase.name, ...(side.version !== undefined ? { version: side.version } : {}) };
    const began = Date.now();
    let conversationId: string | undefined;
    const failed = (runStatus: string, why: string) => ({
      ...base,
      ...(conversationId !== undefined ? { conversationId } : {}),
      pass: false,
      runStatus,
      error: why,
      durationMs: Date.now() - began,
      tokens: 0,
      costUsd: null,
      assertions: [{ kind: "run", pass: false, message: why }],
    });
    let steps: AgentStepTrace[] = [];
    let status = "idle";
    for (const [i, message] of testCase.messages.entries()) {
      try {
        conversationId = await port.send(agentId, side.profile, message, conversationId, createdBy);
      } catch (error) {
        return failed("not_started", `message ${i + 1} of the case could not be sent: ${messageOf(error)}`);
      }
      const settled = await port.settled(conversationId);
      if (settled.waitingPermission) {
        await port.cancel(conversationId).catch(() => undefined);
        return failed("waiting_permission", "the agent asked for a permission an eval case cannot answer (its loop was cancelled); allow the tool for this agent in its permissions or the settings");
      }
      steps = settled.view.steps;
      status = settled.view.agent?.status ?? "idle";
    }
    const usage = conversationId === undefined ? { tokens: 0, costUsd: 0 } : await port.usage(conversationId);
    const actual: AgentActual = { answer: answerOf(steps), status, steps: steps.length, calls: toolCallsOf(steps), ...usage };
    const assertions = [];
    for (const assertion of testCase.assertions) assertions.push(await checkAgentAssertion(assertion, actual, judge));
    return {
      ...base,
      ...(conversationId !== undefined ? { conversationId } : {}),
      pass: assertions.every((a) => a.pass),
      runStatus: status,
      outputs: { answer: actual.answer, status, steps: actual.steps, tools: actual.calls.map((c) => c.tool) },
      durationMs: Date.now() - began,
      tokens: usage.tokens,
      costUsd: usage.costUsd,
      assertions,
    };
  }

  /** "Save as test case" from a conversation of the suite's agent: its user messages, its final answer expected. */
  async caseFromConversation(suite: EvalSuite, conversationId: string, name: string | undefined, taken: ReadonlySet<string>): Promise<AgentEvalCase> {
    const conversation = await this.deps.storage.conversations.get(conversationId);
    if (!conversation) throw notFound("conversation", conversationId, "GET /api/agents/:id/conversations lists an agent's conversations.");
    if (conversation.agentId !== suite.target.id) {
      throw new ServiceError(
        "VALIDATION_FAILED",
        `Conversation "${conversationId}" is with agent "${conversation.agentId ?? "none"}", but suite "${suite.name}" tests agent "${suite.target.id}"; save it to a suite of that agent.`,
        { issues: [{ path: ["conversationId"], message: "the conversation is with another agent", code: "custom" }] },
      );
    }
    const [messages, steps] = await Promise.all([this.deps.storage.conversations.messages(conversationId), this.deps.storage.agentSteps.list(conversationId)]);
    const asked = messages.flatMap((m) => (m.role === "user" && m.content.trim() !== "" ? [m.content] : []));
    if (asked.length === 0 || steps.length === 0) {
      throw new ServiceError("VALIDATION_FAILED", `Conversation "${conversationId}" has no answered message yet; save it once the agent has answered.`, {
        issues: [{ path: ["conversationId"], message: "nothing answered yet", code: "custom" }],
      });
    }
    let n = suite.cases.length + 1;
    while (taken.has(`case-${n}`)) n++;
    return {
      id: `case-${n}`,
      name: name ?? `From conversation ${conversationId.slice(0, 8)}`,
      messages: asked.slice(-20),
      assertions: [{ kind: "equals", expected: answerOf(steps) }],
    };
  }

  private async version(agentId: string, version: number, field: string): Promise<AgentProfile> {
    const found = await this.deps.storage.agents.versions.get(agentId, version);
    if (!found) {
      throw new ServiceError("NOT_FOUND", `body.${field}.version: agent "${agentId}" has no version ${version}; GET /api/agents/${agentId}/versions lists them.`, {
        issues: [{ path: [field, "version"], message: "no such version", code: "custom" }],
      });
    }
    // Revision 0, as a fork's: the case's conversation runs this version from its first message to its last.
    const parsed = AgentProfileSchema.safeParse({ ...(found.content as object), revision: 0 });
    if (!parsed.success) throw new ServiceError("CONFLICT", `Version ${version} of agent "${agentId}" is not a profile this server can run: ${parsed.error.issues[0]?.message ?? "invalid"}.`);
    return parsed.data;
  }
}

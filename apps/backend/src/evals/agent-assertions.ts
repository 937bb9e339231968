import { jsonEqual, type AgentEvalAssertion, type AgentStepTrace, type EvalAssertionResult } from "@weft/types";
import { checkAssertion, type Judge } from "./eval-assertions.ts";

/** One tool call of an agent case's conversation, as the tool assertions read it. */
export interface AgentToolCall {
  step: number;
  /** Node type or skill workflow id. */
  tool: string;
  /** The name the model used. */
  name: string;
  args: Record<string, unknown>;
}

/** What an agent case's conversation produced, as its assertions read it. */
export interface AgentActual {
  /** The agent's final answer: the reply of its last step. */
  answer: string;
  status: string;
  steps: number;
  calls: AgentToolCall[];
  tokens: number;
  costUsd: number | null;
}

/** The tool calls of a conversation's steps, in order (refused and unreadable actions are not calls). */
export function toolCallsOf(steps: readonly AgentStepTrace[]): AgentToolCall[] {
  return steps.flatMap((s) => s.actions.flatMap((a) => (a.parse.kind === "call" ? [{ step: s.step, tool: a.parse.toolId, name: a.parse.toolName, args: a.parse.params }] : [])));
}

const named = (tool: string) => (c: AgentToolCall) => c.tool === tool || c.name === tool;
const argsMatch = (want: Record<string, unknown>) => (c: AgentToolCall) => Object.entries(want).every(([k, v]) => jsonEqual(c.args[k], v));
const listed = (calls: readonly AgentToolCall[]) => (calls.length === 0 ? "no tool was called" : `the calls: ${calls.map((c) => `${c.tool} at step ${c.step}`).join(", ")}`);

/**
 * Checks one assertion of an agent case; never throws. The skill assertions read the final answer (`output` absent or
 * "answer") or the agent's status (`output: "status"`); steps and cost read the conversation's.
 */
export async function checkAgentAssertion(assertion: AgentEvalAssertion, actual: AgentActual, judge: Judge): Promise<EvalAssertionResult> {
  switch (assertion.kind) {
    case "tool-called": {
      const calls = actual.calls.filter(named(assertion.tool));
      const want = assertion.args;
      const matching = want === undefined ? calls : calls.filter(argsMatch(want));
      const pass = matching.length > 0;
      const withArgs = want === undefined ? "" : ` with ${JSON.stringify(want)}`;
      const message = pass
        ? `tool "${assertion.tool}" was called${withArgs} at step ${matching[0].step}`
        : calls.length > 0
          ? `tool "${assertion.tool}" was called, but never${withArgs}: its arguments were ${calls.map((c) => JSON.stringify(c.args)).join(", ")}`
          : `tool "${assertion.tool}" was not called; ${listed(actual.calls)}`;
      return { kind: assertion.kind, pass, message, expected: { tool: assertion.tool, ...(want ? { args: want } : {}) }, actual: actual.calls };
    }
    case "tool-not-called": {
      const calls = actual.calls.filter(named(assertion.tool));
      const pass = calls.length === 0;
      const message = pass
        ? `tool "${assertion.tool}" was not called`
        : `tool "${assertion.tool}" was called ${calls.length} time(s), first at step ${calls[0].step} with ${JSON.stringify(calls[0].args)}, but must not be`;
      return { kind: assertion.kind, pass, message, expected: { tool: assertion.tool, calls: 0 }, actual: actual.calls };
    }
    case "steps": {
      const pass = actual.steps <= assertion.max;
      return { kind: assertion.kind, pass, message: `${actual.steps} agent step(s), ${pass ? "within" : "over"} the limit of ${assertion.max}`, expected: assertion.max, actual: actual.steps };
    }
    default: {
      const outputs = { answer: actual.answer, status: actual.status };
      const onAnswer = assertion.kind === "cost" ? assertion : { ...assertion, output: assertion.output ?? "answer" };
      return checkAssertion(onAnswer, { outputs, steps: actual.steps, tokens: actual.tokens, costUsd: actual.costUsd }, judge);
    }
  }
}

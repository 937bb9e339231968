import { z } from "zod";
import { ConversationForkChangesSchema, type AgentStepTrace, type ConversationAssistantMessage, type ConversationMessage } from "@weft/types";
import { ServiceError } from "../service-error.ts";

/** `POST /api/conversations/:id/fork`: the step to fork at and what changes there (at most one of llmOutput and observation). */
export const ConversationForkBodySchema = z
  .object({
    /** The step (1, 2, …) to fork at: the steps before it are copied from the record, and so is this one unless its LLM output changes. */
    step: z.number().int().positive(),
    ...ConversationForkChangesSchema.shape,
    llmOutput: z.string().min(1, "is empty; give the LLM output the step should have had (its text, with its <ACTION> block)").max(200_000).optional(),
    observation: z.string().min(1, "is empty; give the observation the step should have had").max(200_000).optional(),
  })
  .strict()
  .refine((b) => b.llmOutput === undefined || b.observation === undefined, {
    message: "give llmOutput or observation, not both: an edited LLM output runs its action live, so the action's observation is the live one",
    path: ["observation"],
  });
export type ConversationForkBody = z.infer<typeof ConversationForkBodySchema>;

/** Why a step the fork needs is not in the conversation's log (`details.reason` of the CONFLICT refusal), as run forks say it. */
export const NOT_RECORDED = "NOT_RECORDED";

/** What a fork copies from the forked conversation, and whether its first live step is the forked step itself. */
export interface ForkPlan {
  /** The log up to the fork point, as the new conversation starts (the edited observation in it). */
  messages: ConversationMessage[];
  /** The step traces that come with those messages (the forked step's, when it is copied, with its edited observation). */
  steps: AgentStepTrace[];
  /** The forked step runs again with `llmOutput` as its LLM's answer; otherwise the loop goes on after it. */
  rerunsStep: boolean;
}

/**
 * The fork of a conversation's log at `body.step`: everything before that step's LLM output is copied; with an edited
 * LLM output the step itself runs again (its output given, its action live); otherwise the step is copied too, its
 * observation replaced when one is given, and the loop goes on after it. Refuses a step the log does not have (NOT_FOUND),
 * one it holds no output of (CONFLICT, NOT_RECORDED), and an observation edit of a step without exactly one observation.
 */
export function planFork(conversationId: string, messages: readonly ConversationMessage[], traces: readonly AgentStepTrace[], body: ConversationForkBody): ForkPlan {
  const n = body.step;
  const numbers = new Set([...traces.map((t) => t.step), ...messages.flatMap((m) => (m.role === "assistant" && m.agentStep ? [m.agentStep.step] : []))]);
  if (!numbers.has(n)) {
    const last = Math.max(0, ...numbers);
    const has = last === 0 ? "has no steps yet (send the agent a message first)" : `has steps 1–${last}`;
    throw new ServiceError("NOT_FOUND", `body.step: conversation "${conversationId}" has no step ${n}; it ${has}.`, { kind: "step", conversationId, step: n });
  }
  const at = messages.findIndex((m) => m.role === "assistant" && m.agentStep?.step === n);
  if (at < 0) {
    throw new ServiceError(
      "CONFLICT",
      `Step ${n} of conversation "${conversationId}" has no LLM output in the conversation's log (it failed before the model answered, or is still running); fork at another step.`,
      { reason: NOT_RECORDED, conversationId, step: n },
    );
  }
  const before = messages.slice(0, at);
  const earlier = traces.filter((t) => t.step < n);
  if (body.llmOutput !== undefined) return { messages: before, steps: earlier, rerunsStep: true };

  const assistant = messages[at] as ConversationAssistantMessage;
  const trace = traces.find((t) => t.step === n) ?? assistant.agentStep!;
  const observed = observationsAfter(messages, at, trace);
  if (observed.length === 0) {
    const what = trace.status === "completed" ? "it is the agent's final answer" : `it ended with status "${trace.status}"`;
    throw new ServiceError(
      "VALIDATION_FAILED",
      `Step ${n} of conversation "${conversationId}" has no observation to ${body.observation !== undefined ? "edit" : "continue from"}: ${what}. Edit its LLM output instead (body.llmOutput), or fork at an earlier step.`,
      { issues: [{ path: [body.observation !== undefined ? "observation" : "step"], message: "the step has no observation", code: "custom" }] },
    );
  }
  if (body.observation === undefined) return { messages: messages.slice(0, at + 1 + observed.length), steps: [...earlier, trace], rerunsStep: false };
  if (observed.length > 1) {
    throw new ServiceError(
      "VALIDATION_FAILED",
      `body.observation: step ${n} of conversation "${conversationId}" has ${observed.length} observations (one per tool call); an observation can be edited only at a step with one. Edit its LLM output instead (body.llmOutput).`,
      { issues: [{ path: ["observation"], message: "the step has several observations", code: "custom" }] },
    );
  }
  const original = observed[0]!;
  const edited: ConversationMessage = { ...original, content: body.observation } as ConversationMessage;
  const editedTrace: AgentStepTrace = {
    ...trace,
    actions: trace.actions.map((a) => (a.observation === original.content ? { ...a, observation: body.observation! } : a)),
    notes: [...trace.notes, `The observation was edited in a fork of conversation "${conversationId}".`],
  };
  return { messages: [...before, { ...assistant, agentStep: editedTrace }, edited], steps: [...earlier, editedTrace], rerunsStep: false };
}

/** The observation entries right after step `at`'s assistant message: tool results, or user messages that are one of its observations. */
function observationsAfter(messages: readonly ConversationMessage[], at: number, trace: AgentStepTrace): Array<ConversationMessage & { content: string }> {
  const texts = new Set(trace.actions.map((a) => a.observation));
  const found: Array<ConversationMessage & { content: string }> = [];
  for (let i = at + 1; i < messages.length; i++) {
    const m = messages[i]!;
    const isObservation = m.role === "tool" || (m.role === "user" && texts.has(m.content));
    if (!isObservation || typeof m.content !== "string") break;
    found.push(m as ConversationMessage & { content: string });
  }
  return found;
}

/** The copied messages and traces, named for the new conversation (a step trace says which conversation it belongs to). */
export function forConversation(plan: ForkPlan, conversationId: string): { messages: ConversationMessage[]; steps: AgentStepTrace[] } {
  const steps = plan.steps.map((s) => ({ ...s, conversationId }));
  const messages = plan.messages.map((m) => (m.role === "assistant" && m.agentStep ? { ...m, agentStep: { ...m.agentStep, conversationId } } : m));
  return { messages, steps };
}

import { messageOf, type AgentStateStore, type ConversationStore, type JsonValue, type LlmService, type NodeError, type SceneLogDraft } from "@weft/types";
import { isNumberedStore, type NumberedConversationStore } from "../../conversation/conversation-history.ts";
import { recordedAnswer } from "./recorded-answer.ts";
import { effectsAfter, type RecordedAction, type ResumePlan } from "./resume-plan.ts";
import type { RecordedLlmOutput, SceneActionCall, SceneActionJournal, SceneActionOutcome } from "./scene-runtime-types.ts";

export interface DeliberationSinks {
  /** Logs one model answer (step from 1). */
  output(step: number, output: RecordedLlmOutput): void;
  /** Logs one completed tool call of a step. */
  action(step: number, index: number, call: SceneActionCall, outcome: SceneActionOutcome): void;
  /** Runs `work` once everything logged so far is committed, with that commit where the scene keeps a store (`CommitRider`). */
  commit(work: () => Promise<void>): Promise<void>;
  warn(message: string, details: Record<string, unknown>): void;
}

/**
 * One deliberation's record in the scene log, and what it takes from it after a crash: each model
 * answer and each completed tool call is logged as it happens (committed with the effects that
 * follow), the conversation gets a step only once the scene has committed everything before it,
 * and a deliberation resumed after a crash gets its recorded answers and call outcomes again
 * instead of asking the model or running the call anew. Steps the conversation already holds
 * (`resumeAfter`) are not re-run at all. `done.count` is how many of the re-run's world writes,
 * publishes and private writes the saved state already has (the agent's services skip them).
 */
export class DeliberationRecord {
  readonly done: { count: number };
  private step = 0;
  private index = 0;
  private indexStep = 0;

  constructor(
    private readonly plan: ResumePlan | undefined,
    private readonly sinks: DeliberationSinks,
  ) {
    this.done = { count: plan ? effectsAfter(plan, 0) : 0 };
  }

  /** The conversation already holds this deliberation's first `steps` steps: the loop goes on after them. */
  resumeAfter(steps: number): void {
    this.step = steps;
    if (this.plan) this.done.count = effectsAfter(this.plan, steps);
  }

  llm(inner: LlmService): LlmService {
    return {
      chat: async (request, options) => {
        const step = ++this.step;
        const again = this.plan?.outputs[step - 1];
        if (again) return recordedAnswer(again, options?.onChunk);
        const result = await inner.chat(request, options);
        this.sinks.output(step, { text: result.text, ...(result.reasoning ? { reasoning: result.reasoning } : {}), ...(result.toolCalls.length > 0 ? { toolCalls: result.toolCalls } : {}) });
        return result;
      },
    };
  }

  /** Each append is stored with the scene's commit of what happened before it, so a crash cannot leave a step here whose effects it lost. */
  conversations(inner: ConversationStore): ConversationStore {
    const wrapper: ConversationStore = {
      create: (input) => inner.create(input),
      get: (id) => inner.get(id),
      setActiveMode: (id, mode) => inner.setActiveMode(id, mode),
      messages: (id) => inner.messages(id),
      append: (id, messages) => this.sinks.commit(() => inner.append(id, messages)),
    };
    // Reads go to `inner` unchanged: a numbered store keeps its incremental reads (`conversationHistory`) through this per-run wrapper.
    if (!isNumberedStore(inner)) return wrapper;
    const numbered: NumberedConversationStore = { ...wrapper, messagesAfter: (id, after) => inner.messagesAfter(id, after), readsFrom: inner.readsFrom ?? inner };
    return numbered;
  }

  /**
   * Session saves go with the scene's next commit, after the step they count, and are not waited for: the agent
   * goes on at once (a lost save costs only the counters, which the conversation's steps give back on resume).
   */
  sessions(inner: AgentStateStore): AgentStateStore {
    return {
      load: (id) => inner.load(id),
      save: async (state) => {
        this.sinks.commit(() => inner.save(state)).catch((error: unknown) => this.sinks.warn("agent session state not saved", { error: messageOf(error) }));
      },
    };
  }

  readonly actions: SceneActionJournal = {
    begin: (call) => {
      if (this.indexStep !== this.step) {
        this.indexStep = this.step;
        this.index = 0;
      }
      const step = this.step;
      const index = this.index++;
      const recorded = this.plan?.actions.get(`${step}/${index}`);
      if (recorded && same(recorded, call)) return { recorded: outcomeOf(recorded), completed: () => undefined };
      if (recorded) this.sinks.warn("a resumed deliberation made another call than the recorded one; it runs", { step, index, recorded: recorded.toolId, now: call.toolId });
      return {
        completed: (outcome) => {
          // A cancelled call (the scene stopping) is not an outcome to reuse.
          if (outcome.status !== "cancelled") this.sinks.action(step, index, call, outcome);
        },
      };
    },
  };
}

function same(recorded: RecordedAction, call: SceneActionCall): boolean {
  return recorded.toolId === call.toolId && JSON.stringify(recorded.params) === JSON.stringify(call.params);
}

function outcomeOf(r: RecordedAction): SceneActionOutcome {
  const error: NodeError | undefined = r.error;
  return {
    status: r.status,
    ok: r.ok,
    observation: r.observation,
    ...(r.runId !== undefined ? { runId: r.runId } : {}),
    ...(error ? { error } : {}),
    ...(r.fullResultRef !== undefined ? { fullResultRef: r.fullResultRef } : {}),
    startedAt: r.startedAt,
    durationMs: r.durationMs,
  };
}

/** The log entry of a completed call (`action.completed`). */
export function actionEntry(instanceId: string, triggerId: string, step: number, index: number, call: SceneActionCall, outcome: SceneActionOutcome): SceneLogDraft {
  const { observation, runId, error, fullResultRef, durationMs } = outcome;
  return {
    kind: "action.completed",
    instanceId,
    triggerId,
    step,
    index,
    toolId: call.toolId,
    params: jsonParams(call.params),
    status: outcome.status === "completed" ? "completed" : "failed",
    ok: outcome.ok,
    observation,
    ...(runId !== undefined ? { runId } : {}),
    ...(error ? { error } : {}),
    ...(fullResultRef !== undefined ? { fullResultRef } : {}),
    durationMs,
  };
}

/** Call parameters as JSON (what the log can hold; what JSON cannot carry is left out, as a store would). */
function jsonParams(params: Record<string, unknown>): JsonValue {
  try {
    return JSON.parse(JSON.stringify(params)) as JsonValue;
  } catch {
    return {};
  }
}

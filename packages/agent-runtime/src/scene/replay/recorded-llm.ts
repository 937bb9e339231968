import type { AgentTrigger, LlmChatRequest, LlmChatResult, LlmService, LlmStreamChunk, SceneLogEntry } from "@weft/types";
import { SceneError } from "../errors.ts";
import { recordedAnswer } from "../runtime/recorded-answer.ts";

type LlmOutputEntry = Extract<SceneLogEntry, { kind: "llm.output" }>;

/** What identifies a published event (and the event trigger it became) across a session and its replay. */
export function eventSignature(topic: string, source: string, payload: unknown): string {
  return `event ${topic} from ${source}: ${JSON.stringify(payload)}`;
}

/** What identifies a trigger across a session and its replay (trigger ids may be numbered differently). */
export function triggerSignature(trigger: AgentTrigger): string {
  switch (trigger.kind) {
    case "user":
      return `user to ${trigger.to}: ${JSON.stringify(trigger.text)}`;
    case "event":
      return eventSignature(trigger.topic, trigger.source, trigger.payload);
    case "timer":
      return `timer ${trigger.timerId} tick ${trigger.tick}`;
    default: {
      const never: never = trigger;
      return never;
    }
  }
}

/**
 * The model outputs of a recorded scene session, served back in order per agent instance instead
 * of asking a provider. Each agent deliberates one trigger at a time, so its own sequence of
 * outputs is fixed by the triggers it got; a request the record cannot answer, or one for another
 * trigger than the recorded output was for, is a divergence: it fails loudly (REPLAY_DIVERGED)
 * and is kept in `divergences`.
 */
export class RecordedLlm {
  private readonly outputs = new Map<string, LlmOutputEntry[]>();
  private readonly served = new Map<string, number>();
  private readonly signatures = new Map<string, string>();
  private readonly current = new Map<string, AgentTrigger>();
  readonly divergences: string[] = [];
  private readonly listeners = new Set<() => void>();

  constructor(log: readonly SceneLogEntry[]) {
    for (const entry of log) {
      if (entry.kind === "llm.output") {
        const list = this.outputs.get(entry.instanceId) ?? [];
        list.push(entry);
        this.outputs.set(entry.instanceId, list);
      } else if (entry.kind === "trigger.queued" || entry.kind === "trigger.coalesced") {
        this.signatures.set(`${entry.instanceId}/${entry.trigger.id}`, triggerSignature(entry.trigger));
      }
    }
  }

  /** Tells which trigger the agent's next requests belong to (the scene bridge calls this per deliberation). */
  begin(instanceId: string, trigger: AgentTrigger): void {
    this.current.set(instanceId, trigger);
  }

  /** The LLM service of one agent instance. */
  serviceFor(instanceId: string): LlmService {
    return { chat: (request, options) => this.next(instanceId, request, options?.onChunk) };
  }

  /** How many recorded outputs were served so far, of all the record holds. */
  progress(): { used: number; total: number } {
    let used = 0;
    let total = 0;
    for (const [id, list] of this.outputs) {
      total += list.length;
      used += this.served.get(id) ?? 0;
    }
    return { used, total };
  }

  /** Calls `listener` after each output served; returns the function that stops it. */
  onServed(listener: () => void): () => void {
    this.listeners.add(listener);
    return () => this.listeners.delete(listener);
  }

  /** Recorded outputs no request asked for, per instance (a replay that stopped short diverged too). */
  unused(): Record<string, number> {
    const out: Record<string, number> = {};
    for (const [id, list] of this.outputs) {
      const left = list.length - (this.served.get(id) ?? 0);
      if (left > 0) out[id] = left;
    }
    return out;
  }

  private async next(instanceId: string, request: LlmChatRequest, onChunk?: (chunk: LlmStreamChunk) => void): Promise<LlmChatResult> {
    const index = this.served.get(instanceId) ?? 0;
    const recorded = this.outputs.get(instanceId)?.[index];
    const trigger = this.current.get(instanceId);
    if (!recorded) {
      return this.diverged(
        `Agent "${instanceId}" asked the LLM for output #${index + 1}, but the record holds only ${index} for it (last message: ${JSON.stringify(lastText(request)).slice(0, 200)}).`,
      );
    }
    const expected = this.signatures.get(`${instanceId}/${recorded.triggerId}`);
    const actual = trigger ? triggerSignature(trigger) : undefined;
    if (expected !== undefined && actual !== undefined && expected !== actual) {
      return this.diverged(`Agent "${instanceId}" output #${index + 1} was recorded for trigger [${expected}], but the replay deliberates [${actual}].`);
    }
    this.served.set(instanceId, index + 1);
    for (const listener of this.listeners) listener();
    return recordedAnswer(recorded, onChunk);
  }

  private diverged(message: string): never {
    this.divergences.push(message);
    throw new SceneError("REPLAY_DIVERGED", message);
  }
}

function lastText(request: LlmChatRequest): string {
  const last = request.messages.at(-1);
  return last && typeof last.content === "string" ? last.content : "";
}

import type { AgentTrigger, JsonObject, JsonValue, MailboxState, SceneLogEntry, SceneRuntimeState, WorldChange } from "@weft/types";
import { SceneError } from "../errors.ts";
import { removeAt, writeAt } from "../state/json-document.ts";
import { parsePath } from "../state/json-path.ts";

/** Where a scene is forked: step `step` (from 1) of the deliberation of `triggerId` by `instanceId`. */
export interface SceneForkPoint {
  instanceId: string;
  triggerId: string;
  step: number;
}

/** What the fork changes at its point: the step's model output, or the observation of one of its calls (`index` from 0). */
export type SceneForkEdit = { kind: "llmOutput"; text: string } | { kind: "observation"; index: number; observation: string };

/** A fork's saved state and session log: restored into a runtime of the fork's scene, it continues from the fork point. */
export interface SceneForkRecord {
  state: SceneRuntimeState;
  log: SceneLogEntry[];
  /** What the edit replaced (the recorded output or observation), for the fork's record of what changed. */
  replaced: string;
}

/** As `WorldState`'s default: the recent changes a saved world keeps. */
const WORLD_HISTORY = 200;

/**
 * Builds a fork of a recorded session (issue #33 item 3). The fork's log is the original's up to the fork point, with the
 * edited entry in place of the recorded one; its state is `base` (a fresh runtime's state of the fork's scene) with
 * every change of that log applied: world, private states, mailboxes, budget, timers and numbering as they stood just
 * before the point, the forked deliberation in flight. Restored from this, the runtime resumes that deliberation as after
 * a crash (`../runtime/resume-plan.ts`): the steps before the point and the edited one come from the record (no model
 * call, no tool call, their effects not made again), the rest runs live.
 */
export function forkSceneRecord(base: SceneRuntimeState, log: readonly SceneLogEntry[], point: SceneForkPoint, edit: SceneForkEdit, now: number): SceneForkRecord {
  const { cut, edited, replaced } = cutAt(log, point, edit);
  const entries = [...log.slice(0, cut), edited].map((entry, seq) => ({ ...entry, seq }));
  const state = applyLog(base, entries);
  const inFlight = state.mailboxes[point.instanceId]?.inFlight;
  if (inFlight?.id !== point.triggerId) {
    throw new SceneError("INVALID_STATE", `The record does not show the deliberation of trigger "${point.triggerId}" running at step ${point.step}; the session log is incomplete.`);
  }
  return { state: { ...state, status: "running", savedAt: now }, log: entries, replaced };
}

/**
 * Whether `entry` is where a fork at `point` with `edit` cuts the log: the step's model output, or the edited call's
 * completion. A reader may stop reading the log once it has met this entry: the fork needs nothing after it.
 */
export function isForkCut(entry: SceneLogEntry, point: SceneForkPoint, edit: SceneForkEdit): boolean {
  const { instanceId, triggerId, step } = point;
  switch (edit.kind) {
    case "llmOutput":
      return entry.kind === "llm.output" && entry.instanceId === instanceId && entry.triggerId === triggerId && entry.step === step;
    case "observation":
      return entry.kind === "action.completed" && entry.instanceId === instanceId && entry.triggerId === triggerId && entry.step === step && entry.index === edit.index;
    default: {
      const never: never = edit;
      return never;
    }
  }
}

/** Where the original log is cut, and the entry that takes the cut-off entry's place. */
function cutAt(log: readonly SceneLogEntry[], point: SceneForkPoint, edit: SceneForkEdit): { cut: number; edited: SceneLogEntry; replaced: string } {
  const { instanceId, triggerId, step } = point;
  const steps = log.filter((e) => e.kind === "llm.output" && e.instanceId === instanceId && e.triggerId === triggerId).length;
  const missing = (what: string) =>
    new SceneError("UNKNOWN_STEP", `${what}; the deliberation of trigger "${triggerId}" by "${instanceId}" recorded ${steps} step(s). Pick a step of the agent's trace.`, { steps });
  switch (edit.kind) {
    case "llmOutput": {
      const at = log.findIndex((e) => isForkCut(e, point, edit));
      const entry = log[at];
      if (entry?.kind !== "llm.output") throw missing(`No model output of step ${step} is recorded`);
      // The edited text only: recorded reasoning and native tool calls belonged to the replaced answer.
      const edited: SceneLogEntry = { seq: entry.seq, ts: entry.ts, kind: "llm.output", instanceId, triggerId, step, text: edit.text };
      return { cut: at, edited, replaced: entry.text };
    }
    case "observation": {
      const at = log.findIndex((e) => isForkCut(e, point, edit));
      const entry = log[at];
      if (entry?.kind !== "action.completed") throw missing(`No call ${edit.index + 1} of step ${step} is recorded`);
      // The call's effects stand (they are logged before it); the model is told the edited observation.
      return { cut: at, edited: { ...entry, observation: edit.observation }, replaced: entry.observation };
    }
    default: {
      const never: never = edit;
      return never;
    }
  }
}

/** `base` with the log's changes applied, in order. */
function applyLog(base: SceneRuntimeState, entries: readonly SceneLogEntry[]): SceneRuntimeState {
  const world = structuredClone(base.world.document);
  const privates: Record<string, JsonObject> = structuredClone(base.privateStates);
  const mailboxes: Record<string, MailboxState> = structuredClone(base.mailboxes);
  const history: WorldChange[] = [...base.world.history];
  const ticks = new Map(base.timers.map((t) => [t.id, t.ticks]));
  let worldSeq = base.world.seq;
  let eventSeq = base.counters.event;
  let trigger = base.counters.trigger;
  let used = base.budget.used;
  const mailbox = (id: string): MailboxState => (mailboxes[id] ??= { queue: [], inFlight: null, delivered: 0, dropped: 0, coalesced: 0 });
  const queued = (id: string, t: AgentTrigger) => {
    trigger = Math.max(trigger, Number(/^t(\d+)$/.exec(t.id)?.[1] ?? 0));
    if (t.kind === "timer") ticks.set(t.timerId, Math.max(ticks.get(t.timerId) ?? 0, t.tick));
    mailbox(id).queue.push(t);
  };
  for (const entry of entries) {
    switch (entry.kind) {
      case "world.changed": {
        const { change } = entry;
        applyChange(world, change.op, change.path, change.after);
        worldSeq = change.seq;
        history.push(change);
        break;
      }
      case "private.changed": {
        const doc = (privates[entry.instanceId] ??= {});
        applyChange(doc, entry.op, entry.path, entry.after);
        break;
      }
      case "event":
        eventSeq = Math.max(eventSeq, entry.eventSeq);
        break;
      case "trigger.queued":
        queued(entry.instanceId, entry.trigger);
        break;
      case "trigger.coalesced": {
        const box = mailbox(entry.instanceId);
        box.queue = box.queue.filter((t) => t.id !== entry.replacedId);
        box.coalesced++;
        queued(entry.instanceId, entry.trigger);
        break;
      }
      case "trigger.dropped": {
        const box = mailbox(entry.instanceId);
        box.queue = box.queue.filter((t) => t.id !== entry.trigger.id);
        box.dropped++;
        break;
      }
      case "deliberation.started": {
        const box = mailbox(entry.instanceId);
        box.inFlight = box.queue.find((t) => t.id === entry.triggerId) ?? null;
        box.queue = box.queue.filter((t) => t.id !== entry.triggerId);
        box.delivered++;
        used = entry.budgetUsed;
        break;
      }
      case "deliberation.finished":
        mailbox(entry.instanceId).inFlight = null;
        break;
      case "status":
      case "llm.output":
      case "action.completed":
        break;
      default: {
        const never: never = entry;
        return never;
      }
    }
  }
  return {
    ...base,
    world: { document: world, seq: worldSeq, history: history.slice(-WORLD_HISTORY) },
    privateStates: privates,
    mailboxes,
    budget: { limit: base.budget.limit, used },
    timers: base.timers.map((t) => ({ ...t, ticks: ticks.get(t.id) ?? t.ticks })),
    counters: { ...base.counters, trigger, event: eventSeq, log: entries.length },
  };
}

/** A recorded change made again on `doc`; the root path replaces the whole document. */
function applyChange(doc: JsonObject, op: "set" | "delete", path: string, after: JsonValue | undefined): void {
  const segments = parsePath(path);
  if (segments.length > 0) {
    if (op === "set") writeAt(doc, segments, after ?? null);
    else removeAt(doc, segments);
    return;
  }
  for (const key of Object.keys(doc)) delete doc[key];
  if (op === "set" && typeof after === "object" && after !== null && !Array.isArray(after)) Object.assign(doc, after);
}

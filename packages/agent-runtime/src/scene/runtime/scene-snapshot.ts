import { SceneRuntimeStateSchema, type JsonObject, type MailboxState, type Scene, type SceneRuntimeState, type SceneStatus, type SceneStatusReason } from "@weft/types";
import { SceneError } from "../errors.ts";
import type { EventBus } from "../events/event-bus.ts";
import type { SceneLog } from "../log/scene-log.ts";
import type { PrivateState } from "../state/private-state.ts";
import type { WorldState } from "../state/world-state.ts";
import type { AgentMailbox } from "../triggers/agent-mailbox.ts";
import type { IntervalTimer } from "../triggers/interval-timer.ts";
import type { StepBudget } from "../triggers/step-budget.ts";
import type { SceneClock } from "./scene-clock.ts";

/** The parts of a SceneRuntime that make up its saved state. */
export interface SceneParts {
  scene: Scene;
  world: WorldState;
  bus: EventBus;
  log: SceneLog;
  privates: ReadonlyMap<string, PrivateState>;
  mailboxes: ReadonlyMap<string, AgentMailbox>;
  timers: ReadonlyMap<string, IntervalTimer>;
  budget: StepBudget;
  counters: { trigger: number; stream: number };
  clock: SceneClock;
}

/**
 * The objects of the last snapshot, by the part they were taken from. A snapshot reuses them while
 * the part is unchanged, so a store can tell what changed by identity alone and write only that
 * (the database stores save a scene's state in parts), and an unchanged world is not copied again.
 * Snapshots are read, never modified.
 */
const lastMailbox = new WeakMap<AgentMailbox, MailboxState>();
const lastDocument = new WeakMap<WorldState, { seq: number; document: JsonObject }>();

function mailboxState(mailbox: AgentMailbox): MailboxState {
  const next = mailbox.toState();
  const last = lastMailbox.get(mailbox);
  // Triggers are never modified once queued (coalescing puts a new object in its place): identity tells.
  if (last && last.inFlight === next.inFlight && last.delivered === next.delivered && last.dropped === next.dropped && last.coalesced === next.coalesced && sameItems(last.queue, next.queue))
    return last;
  lastMailbox.set(mailbox, next);
  return next;
}

const sameItems = <T>(a: readonly T[], b: readonly T[]): boolean => a.length === b.length && a.every((item, i) => item === b[i]);

/** The world's data; its document copied only when a change was made since the last snapshot (each change numbers it). */
function worldData(world: WorldState): SceneRuntimeState["world"] {
  const seq = world.version;
  let last = lastDocument.get(world);
  if (last?.seq !== seq) {
    last = { seq, document: world.snapshot() };
    lastDocument.set(world, last);
  }
  return { document: last.document, seq, history: world.history() };
}

export function serializeScene(parts: SceneParts, current: { status: SceneStatus; reason?: SceneStatusReason }, now: number): SceneRuntimeState {
  return {
    version: 1,
    sceneId: parts.scene.id,
    sceneRevision: parts.scene.revision,
    status: current.status,
    ...(current.reason ? { reason: current.reason } : {}),
    world: worldData(parts.world),
    privateStates: Object.fromEntries([...parts.privates].map(([id, p]) => [id, p.snapshot()])),
    mailboxes: Object.fromEntries([...parts.mailboxes].map(([id, m]) => [id, mailboxState(m)])),
    budget: { limit: parts.budget.limit, used: parts.budget.used },
    timers: [...parts.timers.values()].map((t) => ({ id: t.id, ticks: t.ticks, paused: t.isPaused })),
    counters: { trigger: parts.counters.trigger, event: parts.bus.lastSeq, log: parts.log.nextSeq, stream: parts.counters.stream },
    runningMs: parts.clock.runningMs(now),
    savedAt: now,
  };
}

/**
 * Loads a saved state into the parts after checking all of it first (a refused state changes
 * nothing). Agents the scene gained since the save start fresh; agents it lost are an error,
 * since their private state and queued triggers would be dropped silently.
 */
export function restoreSceneState(parts: SceneParts, raw: unknown): { status: SceneStatus; reason?: SceneStatusReason } {
  const parsed = SceneRuntimeStateSchema.safeParse(raw);
  if (!parsed.success) {
    const issue = parsed.error.issues[0];
    throw new SceneError("INVALID_STATE", `The saved scene state is invalid at ${issue?.path.join(".") || "(root)"}: ${issue?.message}.`);
  }
  const state = parsed.data;
  if (state.sceneId !== parts.scene.id) {
    throw new SceneError("INVALID_STATE", `The saved state belongs to scene "${state.sceneId}", not "${parts.scene.id}".`);
  }
  const saved = new Set([...Object.keys(state.privateStates), ...Object.keys(state.mailboxes)]);
  const lost = [...saved].filter((id) => !parts.mailboxes.has(id));
  if (lost.length > 0) {
    throw new SceneError(
      "INVALID_STATE",
      `The saved state has agent instances the scene no longer defines: ${lost.join(", ")}. Add them back to the scene to restore it; their private state and queued triggers would otherwise be lost.`,
      { lost },
    );
  }

  parts.world.load(state.world);
  lastDocument.delete(parts.world);
  for (const [id, doc] of Object.entries(state.privateStates)) parts.privates.get(id)?.load(doc);
  for (const [id, mailbox] of Object.entries(state.mailboxes)) parts.mailboxes.get(id)?.load(mailbox);
  for (const t of state.timers) parts.timers.get(t.id)?.load(t);
  parts.budget.load(state.budget.used);
  parts.clock.load(state.runningMs);
  parts.bus.resumeNumbering(state.counters.event);
  parts.log.resumeAt(state.counters.log);
  parts.counters.trigger = state.counters.trigger;
  parts.counters.stream = state.counters.stream;
  return { status: state.status, ...(state.reason ? { reason: state.reason } : {}) };
}

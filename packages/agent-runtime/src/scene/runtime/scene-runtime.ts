import {
  SceneSchema,
  silentLogger,
  type AgentTrigger,
  type Logger,
  type NodeServices,
  type RunEvent,
  type RunEventDraft,
  type Scene,
  type SceneAgent,
  type SceneRuntimeState,
  type SceneStatus,
  type SceneStatusReason,
  type ToolCall,
  messageOf,
} from "@weft/types";
import { DeliberationOverBudget, SceneError } from "../errors.ts";
import { EventBus, type BusEvent } from "../events/event-bus.ts";
import { SceneLog } from "../log/scene-log.ts";
import { ScenePersister } from "../persistence/scene-persister.ts";
import type { JsonStateChange } from "../state/json-state.ts";
import { PrivateState } from "../state/private-state.ts";
import { WorldState } from "../state/world-state.ts";
import { AgentMailbox } from "../triggers/agent-mailbox.ts";
import { IntervalTimer } from "../triggers/interval-timer.ts";
import { MergedTriggers } from "../triggers/merged-triggers.ts";
import { StepBudget } from "../triggers/step-budget.ts";
import { agentServices } from "./agent-services.ts";
import { resumePlans, type ResumePlan } from "./resume-plan.ts";
import { actionEntry, DeliberationRecord } from "./deliberation-record.ts";
import { traceSceneStep } from "./scene-step-span.ts";
import type { SceneRuntimeOptions, SceneStatusInfo, ScenePeerProfile } from "./scene-runtime-types.ts";
import { SceneClock } from "./scene-clock.ts";
import { restoreSceneState, serializeScene, type SceneParts } from "./scene-snapshot.ts";
import { SceneRouter } from "./scene-router.ts";

export type { DeliberationContext, Deliberate, RecordedLlmOutput, SceneRuntimeOptions, SceneStatusInfo, ScenePeerProfile } from "./scene-runtime-types.ts";

type DistributiveOmit<T, K extends PropertyKey> = T extends unknown ? Omit<T, K> : never;
/** A trigger before the runtime numbers it. */
type TriggerBody = DistributiveOmit<AgentTrigger, "id" | "at" | "coalesced" | "resumed">;

/**
 * A scene at run time: its world state, event bus, agents' private states, mailboxes and timers.
 * Events are routed to the agents that subscribe to them; each agent deliberates one trigger at a
 * time; a step budget bounds agents waking each other; the whole state can be saved and restored.
 */
export class SceneRuntime {
  readonly scene: Scene;
  readonly world: WorldState;
  readonly bus: EventBus;
  readonly log: SceneLog;
  private readonly privates = new Map<string, PrivateState>();
  private readonly mailboxes = new Map<string, AgentMailbox>();
  private readonly timers = new Map<string, IntervalTimer>();
  private readonly budget: StepBudget;
  private readonly counters = { trigger: 0, stream: 0 };
  private current: { status: SceneStatus; reason?: SceneStatusReason } = { status: "idle" };
  private readonly router: SceneRouter;
  private readonly services = new Map<string, NodeServices>();
  private readonly persister?: ScenePersister;
  private idleWaiters: Array<() => void> = [];
  /** Set by `followScript` (a replay): mailboxes hold the recorded triggers; nothing is routed to them or charged. */
  private scripted = false;
  /** Deliberations cut off by a crash, by instance: what they had done (see `restoreFromStore`). */
  private resumes = new Map<string, ResumePlan>();
  private readonly logger: Logger;
  private readonly clock: () => number;
  private readonly sceneClock: SceneClock;

  constructor(private readonly options: SceneRuntimeOptions) {
    const parsed = SceneSchema.safeParse(options.scene);
    if (!parsed.success) {
      const problems = parsed.error.issues.map((i) => `${i.path.join(".") || "(scene)"}: ${i.message}`).join("; ");
      throw new SceneError("INVALID_SCENE", `The scene definition is invalid: ${problems}.`);
    }
    const scene = (this.scene = parsed.data);
    this.logger = (options.logger ?? silentLogger).child(`scene:${scene.id}`);
    this.clock = options.clock ?? Date.now;
    this.sceneClock = new SceneClock(this.clock);
    const emit = (draft: RunEventDraft) => this.emit(draft);
    this.log = new SceneLog({ clock: this.clock });
    this.world = definitionPart(
      "initialWorldState",
      () =>
        new WorldState({
          initial: scene.initialWorldState,
          emit,
          clock: this.clock,
          historyLimit: options.worldHistoryLimit,
          onChange: (change) => this.log.append({ kind: "world.changed", change }),
        }),
    );
    this.bus = new EventBus({ emit, payloadSchemas: options.payloadSchemas, logger: this.logger, clock: this.clock });
    this.bus.subscribe("**", (event) => this.route(event));

    const profiles = new Map<string, ScenePeerProfile>();
    for (const agent of scene.agents) {
      const profile = options.profileOf(agent.instanceId, agent);
      if (!profile) {
        throw new SceneError("UNKNOWN_PROFILE", `No agent profile "${agent.profileId}" for instance "${agent.instanceId}": create that profile or change the scene's profileId.`, {
          instanceId: agent.instanceId,
        });
      }
      profiles.set(agent.instanceId, profile);
      this.addAgent(agent, profile);
    }
    this.router = new SceneRouter(scene, (id) => profiles.get(id)?.subscribedEvents ?? []);
    this.budget = new StepBudget(scene.stepBudget, new Set(this.mailboxes.keys()));
    scene.triggers.forEach((t, index) => {
      if (t.kind !== "timer") return;
      const id = t.id ?? `timer-${index}`;
      const targets = t.instanceIds ?? scene.agents.map((a) => a.instanceId);
      this.timers.set(id, new IntervalTimer(id, t.everyMs, (tick) => this.deliver(targets, { kind: "timer", timerId: id, message: t.message, tick })));
    });
    if (options.store) {
      const persister = (this.persister = new ScenePersister(options.store, scene.id, () => this.serialize(), this.logger, options.persistEveryMs));
      this.log.onAppend((entry) => persister.add(entry));
    }
  }

  status(): SceneStatusInfo {
    const at = this.clock();
    return {
      ...this.current,
      budget: { limit: this.budget.limit, used: this.budget.used },
      clock: { runningMs: this.sceneClock.runningMs(at), at },
      agents: [...this.mailboxes.values()].map((m) => ({ instanceId: m.instanceId, busy: m.busy, waiting: m.waiting().length })),
    };
  }

  start(): void {
    if (this.current.status !== "idle") throw this.transitionError("start");
    this.setStatus("running");
  }

  pause(): void {
    if (this.current.status === "paused") return;
    if (this.current.status !== "running") throw this.transitionError("pause");
    this.setStatus("paused", { code: "REQUESTED", message: "Paused by request; running deliberations finish, new triggers wait." });
  }

  /** Continues a paused scene; after the step budget ran out this grants a new one. */
  resume(): void {
    if (this.current.status === "running") return;
    if (this.current.status !== "paused") throw this.transitionError("resume");
    if (this.current.reason?.code === "STEP_BUDGET_EXHAUSTED") this.budget.reset();
    this.setStatus("running");
  }

  /** Stops for good: timers end, running deliberations are aborted and awaited, the state is saved. */
  async stop(): Promise<void> {
    if (this.current.status === "stopped") return;
    this.setStatus("stopped", { code: "REQUESTED", message: "Stopped by request." });
    for (const timer of this.timers.values()) timer.stop();
    await Promise.all([...this.mailboxes.values()].map((m) => m.close("the scene stopped")));
    this.checkIdle();
    if (this.persister) await this.persister.flush();
  }

  /**
   * A user message to one agent or to all (`"all"`). It waits in the agents' mailboxes like any
   * trigger, and grants a new step budget: the budget bounds what agents do between user messages.
   * The timeline sees it as a `scene.event` on topic `user.message`; it is not routed through the bus.
   */
  sendMessage(to: string, text: string): AgentTrigger[] {
    if (this.current.status === "stopped") throw new SceneError("SCENE_STOPPED", "The scene has stopped; restore it into a new runtime to talk to its agents.");
    if (typeof text !== "string" || text.trim() === "") throw new SceneError("INVALID_MESSAGE", "A message needs some text.");
    if (to !== "all") this.requireInstance(to);
    const targets = to === "all" ? [...this.mailboxes.keys()] : [to];
    this.emit({ type: "scene.event", topic: "user.message", payload: { to, text }, source: "user" });
    this.budget.reset();
    if (this.current.status === "paused" && this.current.reason?.code === "STEP_BUDGET_EXHAUSTED") this.setStatus("running");
    return this.deliver(targets, { kind: "user", text, to });
  }

  /** One agent's mailbox: the trigger it deliberates on (null when free) and the triggers waiting, oldest first. */
  queueOf(instanceId: string): { inFlight: AgentTrigger | null; waiting: AgentTrigger[] } {
    this.requireInstance(instanceId);
    const mailbox = this.mailboxes.get(instanceId) as AgentMailbox;
    return { inFlight: mailbox.inFlight, waiting: mailbox.waiting() };
  }

  /** World, events and private state as one agent's nodes see them. */
  servicesFor(instanceId: string): NodeServices {
    this.requireInstance(instanceId);
    let services = this.services.get(instanceId);
    if (!services) {
      services = agentServices(instanceId, this.world, this.bus, this.privateState(instanceId), () => this.current.status === "stopped", this.options.effectGate);
      this.services.set(instanceId, services);
    }
    return services;
  }

  privateState(instanceId: string): PrivateState {
    this.requireInstance(instanceId);
    return this.privates.get(instanceId) as PrivateState;
  }

  /** Patterns an agent listens to (its profile's subscriptions and the scene's event triggers). */
  subscriptionsOf(instanceId: string): string[] {
    this.requireInstance(instanceId);
    return this.router.patternsOf(instanceId);
  }

  pauseTimer(id: string): void {
    this.requireTimer(id).pause();
    this.persister?.schedule();
  }

  resumeTimer(id: string): void {
    this.requireTimer(id).resume();
    this.persister?.schedule();
  }

  /** Records a model output of a deliberation step in the session log, for replay. */
  recordLlmOutput(instanceId: string, triggerId: string, step: number, text: string, reasoning?: string, toolCalls?: ToolCall[]): void {
    this.requireInstance(instanceId);
    this.log.append({ kind: "llm.output", instanceId, triggerId, step, text, ...(reasoning !== undefined ? { reasoning } : {}), ...(toolCalls && toolCalls.length > 0 ? { toolCalls } : {}) });
  }

  /**
   * A replay: each agent deliberates exactly the given triggers, in this order (see
   * `recordedTriggerScript`); published events and user messages no longer reach mailboxes and
   * nothing is charged to the step budget. Call it on a fresh runtime, before `start`.
   */
  followScript(script: ReadonlyMap<string, readonly AgentTrigger[]>): void {
    if (this.current.status !== "idle" || this.log.nextSeq > 0) {
      throw new SceneError("INVALID_TRANSITION", "followScript() needs a fresh runtime: create a new SceneRuntime for the replay and give it the script before it starts.");
    }
    this.scripted = true;
    for (const [id, triggers] of script) {
      // An agent the scene no longer has: its recorded outputs stay unused, which the replay reports.
      this.mailboxes.get(id)?.load({ queue: [...triggers], inFlight: null, delivered: 0, dropped: 0, coalesced: 0 });
    }
  }

  /** Resolves once no agent deliberates and none has a trigger it could start now. */
  whenIdle(): Promise<void> {
    return new Promise((resolve) => {
      this.idleWaiters.push(resolve);
      this.checkIdle();
    });
  }

  /** Waits until everything changed so far is in the store (no-op without a store). */
  async persist(): Promise<void> {
    await this.persister?.flush();
  }

  serialize(): SceneRuntimeState {
    return serializeScene(this.parts(), this.current, this.clock());
  }

  /**
   * Continues a saved scene in this fresh runtime (before `start`): world, private states, queued
   * and interrupted triggers, budget, timers, numbering and status. A scene saved while running
   * runs again at once; a trigger that was being deliberated is delivered again.
   */
  restore(state: unknown): void {
    if (this.current.status !== "idle" || this.log.nextSeq > 0) {
      throw new SceneError("INVALID_TRANSITION", "restore() needs a fresh runtime: create a new SceneRuntime for the scene and restore into it before anything runs.");
    }
    const saved = restoreSceneState(this.parts(), state);
    this.setStatus(saved.status, saved.status === "running" ? { code: "RESTORED", message: "Restored from a saved state." } : saved.reason);
  }

  /**
   * Loads the scene's saved state from the store and continues it; false when none was saved. A
   * deliberation the save caught in flight resumes from the committed log: its recorded model
   * answers are served again and the world writes, publishes and private writes it had made are not
   * made twice (effects exactly once, as far as the scene's own services go).
   */
  async restoreFromStore(): Promise<boolean> {
    const store = this.options.store;
    const state = await store?.loadState(this.scene.id);
    if (!store || !state) return false;
    const inFlight = new Map<string, string>();
    for (const [id, mailbox] of Object.entries(state.mailboxes)) if (mailbox.inFlight) inFlight.set(id, mailbox.inFlight.id);
    if (inFlight.size > 0) this.resumes = resumePlans(await store.readLog(this.scene.id), inFlight);
    this.restore(state);
    return true;
  }

  private parts(): SceneParts {
    const { scene, world, bus, log, privates, mailboxes, timers, budget, counters, sceneClock } = this;
    return { scene, world, bus, log, privates, mailboxes, timers, budget, counters, clock: sceneClock };
  }

  private addAgent(agent: SceneAgent, profile: ScenePeerProfile): void {
    const id = agent.instanceId;
    const initial = { ...(profile.initialPrivateState ?? {}), ...(agent.initialPrivateState ?? {}) };
    const onChange = (c: JsonStateChange) => this.log.append({ kind: "private.changed", instanceId: id, op: c.op, path: c.path, ...(c.after !== undefined ? { after: c.after } : {}) });
    this.privates.set(
      id,
      definitionPart(`initialPrivateState of "${id}"`, () => new PrivateState(id, initial, onChange)),
    );
    const config = { ...this.scene.mailbox, ...(agent.mailbox ?? {}) };
    const run = (trigger: AgentTrigger, signal: AbortSignal) => {
      const plan = trigger.resumed ? this.takeResumePlan(id, trigger.id) : undefined;
      const record = new DeliberationRecord(plan, {
        output: (step, output) => this.recordLlmOutput(id, trigger.id, step, output.text, output.reasoning, output.toolCalls),
        action: (step, index, call, outcome) => void this.log.append(actionEntry(id, trigger.id, step, index, call, outcome)),
        commit: (work) => (this.persister ? this.persister.flushSoon(work) : work()),
        warn: (message, details) => this.logger.warn(message, { instanceId: id, triggerId: trigger.id, ...details }),
      });
      const services = plan ? agentServices(id, this.world, this.bus, this.privateState(id), () => this.current.status === "stopped", this.options.effectGate, record.done) : this.servicesFor(id);
      const deliberate = () =>
        this.options.deliberate(id, trigger, {
          sceneId: this.scene.id,
          signal,
          services,
          llm: (inner) => record.llm(inner),
          conversations: (inner) => record.conversations(inner),
          sessions: (inner) => record.sessions(inner),
          actions: record.actions,
          resumeAfter: (steps) => record.resumeAfter(steps),
        });
      const tracing = this.options.tracing;
      return tracing ? traceSceneStep(tracing, this.scene, id, trigger, deliberate) : deliberate();
    };
    const merges = new MergedTriggers();
    const mailbox = new AgentMailbox(id, config, run, {
      admit: (trigger) => this.admit(id, trigger),
      onQueued: (trigger) => this.log.append({ kind: "trigger.queued", instanceId: id, trigger }),
      onCoalesced: (trigger, replaced) => merges.merged(trigger, replaced),
      onDropped: (trigger) => {
        merges.forget(trigger);
        this.log.append({ kind: "trigger.dropped", instanceId: id, trigger, policy: config.overflow });
      },
      onStarted: (trigger) => {
        const replacedId = merges.started(trigger);
        if (replacedId !== undefined) this.log.append({ kind: "trigger.coalesced", instanceId: id, trigger, replacedId });
        this.log.append({ kind: "deliberation.started", instanceId: id, triggerId: trigger.id, budgetUsed: this.budget.used });
      },
      onFinished: (trigger, error) => {
        const message = error === undefined ? undefined : messageOf(error);
        if (message !== undefined) this.logger.warn("deliberation failed", { instanceId: id, triggerId: trigger.id, error: message });
        this.log.append({ kind: "deliberation.finished", instanceId: id, triggerId: trigger.id, ok: message === undefined, ...(message !== undefined ? { error: message } : {}) });
        // Every other agent would hit the same budget: the scene waits until it is raised and the scene resumed.
        if (error instanceof DeliberationOverBudget && this.current.status === "running") this.setStatus("paused", { code: "BUDGET_EXCEEDED", message: error.message });
        queueMicrotask(() => this.checkIdle());
      },
    });
    this.mailboxes.set(id, mailbox);
  }

  private takeResumePlan(instanceId: string, triggerId: string): ResumePlan | undefined {
    const plan = this.resumes.get(instanceId);
    if (plan?.triggerId !== triggerId) return undefined;
    this.resumes.delete(instanceId);
    return plan;
  }

  private admit(instanceId: string, trigger: AgentTrigger): boolean {
    if (this.current.status !== "running") return false;
    if (this.scripted) return true;
    // Delivered again after a restore: its step was charged before the save.
    if (trigger.resumed || this.budget.tryCharge(instanceId, trigger)) return true;
    this.setStatus("paused", { code: "STEP_BUDGET_EXHAUSTED", message: this.budget.report() });
    return false;
  }

  private route(event: BusEvent): void {
    this.log.append({ kind: "event", topic: event.topic, payload: event.payload, source: event.source, eventSeq: event.seq });
    if (this.current.status === "stopped") return;
    this.deliver(this.router.targets(event.topic, event.source), { kind: "event", topic: event.topic, payload: event.payload, source: event.source, eventSeq: event.seq });
  }

  private deliver(instanceIds: readonly string[], body: TriggerBody): AgentTrigger[] {
    if (this.scripted) return [];
    const at = this.clock();
    return instanceIds.map((id) => {
      const trigger = { ...body, id: `t${++this.counters.trigger}`, at, coalesced: 0 } as AgentTrigger;
      this.mailboxes.get(id)?.push(trigger);
      return trigger;
    });
  }

  private setStatus(status: SceneStatus, reason?: SceneStatusReason): void {
    this.current = reason ? { status, reason } : { status };
    this.emit({ type: "scene.status", status, ...(reason ? { reason: reason.message } : {}) });
    this.log.append({ kind: "status", status, ...(reason ? { reason } : {}) });
    for (const timer of this.timers.values()) timer.setActive(status === "running");
    this.sceneClock.setRunning(status === "running");
    if (status === "running") for (const m of this.mailboxes.values()) m.pump();
    this.checkIdle();
  }

  private checkIdle(): void {
    if (this.idleWaiters.length === 0) return;
    const running = this.current.status === "running";
    for (const m of this.mailboxes.values()) if (m.busy || (running && m.ready)) return;
    const waiters = this.idleWaiters;
    this.idleWaiters = [];
    for (const resolve of waiters) resolve();
  }

  private emit(draft: RunEventDraft): void {
    if (!this.options.onEvent) return;
    this.options.onEvent({ ...draft, streamId: this.scene.id, seq: this.counters.stream++, ts: this.clock() } as RunEvent);
  }

  private requireInstance(instanceId: string): void {
    if (this.mailboxes.has(instanceId)) return;
    const known = [...this.mailboxes.keys()];
    throw new SceneError("UNKNOWN_INSTANCE", `Unknown agent instance ${JSON.stringify(instanceId)}; this scene's agents are: ${known.join(", ") || "(none)"}${known.length ? ' (or "all")' : ""}.`, {
      instanceId,
      known,
    });
  }

  private requireTimer(id: string): IntervalTimer {
    const timer = this.timers.get(id);
    if (timer) return timer;
    throw new SceneError("UNKNOWN_TIMER", `Unknown timer "${id}"; this scene's timers are: ${[...this.timers.keys()].join(", ") || "(none)"}.`);
  }

  private transitionError(action: string): SceneError {
    const hint = this.current.status === "stopped" ? " A stopped scene does not run again: restore its saved state into a new runtime." : "";
    return new SceneError("INVALID_TRANSITION", `Cannot ${action} a scene that is ${this.current.status}.${hint}`);
  }
}

/** Builds part of a scene from its definition; a value that is not JSON is an INVALID_SCENE naming the part. */
function definitionPart<T>(part: string, build: () => T): T {
  try {
    return build();
  } catch (err) {
    throw new SceneError("INVALID_SCENE", `The scene's ${part} is not valid: ${messageOf(err)}`);
  }
}

import { messageOf } from "@weft/types";
import { randomUUID } from "node:crypto";
import {
  RecordedEffectOrder,
  RecordedLlm,
  replayScene,
  SceneRuntime,
  sceneDeliberate,
  sceneStateDifferences,
  type AgentInstance,
  type Deliberate,
  type ExecutionEngine,
  type Tracing,
} from "@weft/agent-runtime";
import type { AgentProfile, AgentTrigger, PermissionAnswer, RunEvent, Scene, SceneReplayProgress, SceneReplayResult, SceneStateView } from "@weft/types";
import { notFound, ServiceError } from "../service-error.ts";
import { createReplayAgents, createSceneAgents, loadSceneProfiles, type SceneAgentDeps } from "./scene-agents.ts";
import { logSignalStore } from "./log-signal-store.ts";
import { liveStateView, savedStateView, stepsAfter } from "./scene-views.ts";
import { decodeTimelineCursor, encodeTimelineCursor } from "./scene-timeline-cursor.ts";
import { TIMELINE_MAX_BYTES, TimelinePageBuilder, type TimelinePage } from "./scene-timeline-page.ts";
import type { SceneSession, SceneStore } from "./scene-store.ts";
import { SceneTurns } from "./scene-turns.ts";
import type { SceneHost } from "./scene-host.ts";

function tracingOf(engine: ExecutionEngine): { tracing?: Tracing } {
  return engine.tracing ? { tracing: engine.tracing } : {};
}

export interface SceneServiceDeps extends SceneAgentDeps {
  store: SceneStore;
}

interface LiveScene {
  scene: Scene;
  runtime: SceneRuntime;
  agents: Map<string, AgentInstance>;
  profiles: Map<string, AgentProfile>;
  session: SceneSession;
  /** Set once unloaded (shutdown, a new session): its late events are not the session's any more. */
  closed: boolean;
  /** Set when unloaded to be continued elsewhere (handed back, or lost): its last held events are dropped, as at shutdown. */
  frozen: boolean;
}

/**
 * Runs scenes for the API: one SceneRuntime per started scene, its agents' AgentInstances plugged
 * in through the scene bridge. Scene and agent events go through the journal on the scene's stream
 * (stored before they are sent); the state and session log are saved together in SQLite, at most
 * 100 ms after a change and after those events, so a scene that was running or paused when the server stopped continues on the next start.
 */
export class SceneService implements SceneHost {
  private readonly live = new Map<string, LiveScene>();
  private readonly busy = new Set<string>();
  /** Every scene's agents (and replays) take turns on the event loop; see scene-turns.ts. */
  private readonly turns = new SceneTurns();
  private stopping = false;

  constructor(private readonly deps: SceneServiceDeps) {}

  /** Loads the scenes saved as running or paused; a running one goes on at once. Returns their ids. */
  async recover(): Promise<string[]> {
    const recovered: string[] = [];
    for (const { sceneId, status } of await this.deps.store.savedStatuses()) {
      try {
        if (await this.restore(sceneId, status)) recovered.push(sceneId);
      } catch (error) {
        this.deps.log.error("scene not resumed", { sceneId, error: messageOf(error) });
      }
    }
    return recovered;
  }

  /**
   * Loads one scene saved as running or paused (a running one goes on at once); false when there is
   * nothing to continue: saved stopped, never started, or its definition deleted (its saved rows go then).
   * `savedStatus`: its status as the caller just read it from the store (else read here).
   */
  async restore(sceneId: string, savedStatus?: string): Promise<boolean> {
    if (!(await this.deps.storage.scenes.get(sceneId))) {
      // Its definition was deleted while it was not loaded here (e.g. by a Builder apply): nothing is left to resume.
      await this.deps.store.forget(sceneId);
      return false;
    }
    const status = savedStatus ?? (await this.deps.store.savedStatuses()).find((s) => s.sceneId === sceneId)?.status;
    if (status !== "running" && status !== "paused") return false;
    return this.exclusive(sceneId, async () => {
      if (this.live.has(sceneId)) return true;
      await this.open(sceneId, "restore");
      return true;
    });
  }

  /** Continues a scene whose state was saved as running by another path than a session (a fork); as `restore`. */
  async continueSaved(sceneId: string): Promise<void> {
    if (!(await this.restore(sceneId))) throw new ServiceError("CONFLICT", `Scene "${sceneId}" has no saved state to continue.`);
  }

  /** What `start` refuses before it loads anything: an unknown scene, or one naming an agent profile that does not exist. */
  async checkStartable(sceneId: string): Promise<void> {
    await loadSceneProfiles(this.deps.storage, await this.definition(sceneId));
  }

  /**
   * Unloads one scene so that another process can continue it: `save` (handing it back) saves it
   * as it is first; without (its worker lost it to another) nothing more is written. Either way its
   * deliberations are stopped here without a trace in the store or the stream, as at shutdown.
   */
  async release(sceneId: string, save: boolean): Promise<void> {
    const live = this.live.get(sceneId);
    if (live) {
      if (save) await live.runtime.persist().catch((error: unknown) => this.deps.log.error("scene not saved on hand-back", { sceneId, error: messageOf(error) }));
      live.frozen = true;
      this.unload(sceneId);
      await live.runtime.stop();
    }
    // Its stream's numbering is read from storage again if it comes back here (also after a `forget`): meanwhile another process may have added to it.
    this.deps.journal.close(sceneId);
  }

  /** Starts a new session of the scene from its definition (the previous session's state and log are replaced). */
  async start(sceneId: string, startedBy?: string): Promise<SceneStateView> {
    return this.exclusive(sceneId, async () => {
      const current = this.live.get(sceneId);
      const status = current?.runtime.status().status;
      if (current && status !== "stopped") {
        throw new ServiceError("CONFLICT", `Scene "${sceneId}" is already ${status}; stop it first (POST /api/scenes/${sceneId}/stop) to start a new session.`, { status });
      }
      if (current) this.unload(sceneId);
      const live = await this.open(sceneId, "new", startedBy);
      await live.runtime.start();
      await live.runtime.persist();
      return this.state(sceneId);
    });
  }

  async pause(sceneId: string): Promise<SceneStateView> {
    const live = this.require(sceneId);
    await live.runtime.pause();
    await live.runtime.persist();
    return this.state(sceneId);
  }

  async resume(sceneId: string): Promise<SceneStateView> {
    const live = this.require(sceneId);
    await live.runtime.resume();
    await live.runtime.persist();
    return this.state(sceneId);
  }

  /** Stops for good: running deliberations are aborted; the state stays viewable and replayable. */
  async stop(sceneId: string): Promise<SceneStateView> {
    const live = this.require(sceneId);
    await live.runtime.stop();
    for (const agent of live.agents.values()) agent.dispose();
    await this.deps.journal.flush();
    return this.state(sceneId);
  }

  /** A user message to one agent instance or to `all`; it waits in the mailboxes like any trigger. */
  async sendMessage(sceneId: string, to: string, text: string): Promise<{ triggers: AgentTrigger[] }> {
    const live = this.require(sceneId);
    const triggers = await live.runtime.sendMessage(to, text);
    return { triggers };
  }

  /** Answers the question an agent asked the user (ask_user); the answer reaches its loop as the user's reply. */
  async answerQuestion(sceneId: string, instanceId: string, text: string): Promise<{ triggers: AgentTrigger[] }> {
    const live = this.require(sceneId);
    const agent = this.agent(live, instanceId);
    if (agent.pendingQuestion === undefined) {
      throw new ServiceError("CONFLICT", `Agent "${instanceId}" of scene "${sceneId}" asked nothing; send it a message instead (POST /api/scenes/${sceneId}/messages).`, { instanceId });
    }
    return this.sendMessage(sceneId, instanceId, text);
  }

  async answerPermission(sceneId: string, instanceId: string, requestId: string, answer: PermissionAnswer): Promise<void> {
    const agent = this.agent(this.require(sceneId), instanceId);
    const result = agent.answerPermission(requestId, answer);
    if (!result.ok) throw notFound("permission request", requestId, result.error.hint ?? "");
  }

  async state(sceneId: string): Promise<SceneStateView> {
    const streamSeq = await this.deps.storage.events.lastSeq(sceneId);
    const live = this.live.get(sceneId);
    if (live) return liveStateView(live.runtime, live.agents, live.scene, live.session, streamSeq);
    const scene = await this.definition(sceneId);
    const [saved, session] = await Promise.all([this.deps.store.loadState(sceneId), this.deps.store.loadSession(sceneId)]);
    return savedStateView(scene, saved, session, streamSeq);
  }

  /**
   * The session log from `fromSeq` (at most `limit` entries) and the agents' step traces, together
   * at most `maxBytes` of JSON (`more` when cut there); with `since` (an earlier answer's cursor) only
   * the entries and steps stored after it, unless the session changed since: then the new one's from
   * its start, with `reset`.
   */
  async timeline(sceneId: string, query: { fromSeq: number; limit: number; since?: string; maxBytes?: number }): Promise<TimelinePage> {
    await this.definition(sceneId);
    // The log is saved in batches: what the live scene logged so far is written before it is read.
    await this.live.get(sceneId)?.runtime.persist();
    const cursor = query.since !== undefined ? decodeTimelineCursor(query.since) : undefined;
    for (let attempt = 1; ; attempt++) {
      const session = await this.session(sceneId);
      const sessionId = session?.sessionId ?? null;
      const incremental = cursor !== undefined && cursor.s === sessionId;
      const fromSeq = incremental ? cursor.l : cursor ? 0 : query.fromSeq;
      const page = new TimelinePageBuilder(query.maxBytes ?? TIMELINE_MAX_BYTES);
      let nextSeq = fromSeq;
      for (const entry of await this.deps.store.readLog(sceneId, fromSeq, query.limit)) {
        if (!page.addEntry(entry)) break;
        nextSeq = entry.seq + 1;
      }
      const after = incremental ? cursor.m : {};
      const positions = session ? await stepsAfter(this.deps.storage, session, after, page) : {};
      // A new session started while this was read: what was read may mix both; read the new one.
      if (attempt < 3 && ((await this.session(sceneId))?.sessionId ?? null) !== sessionId) continue;
      return page.finish({
        ...(sessionId !== null ? { sessionId } : {}),
        nextSeq,
        cursor: encodeTimelineCursor({ s: sessionId, l: nextSeq, m: positions }),
        reset: !incremental,
      });
    }
  }

  /** Replays the stored session (see `prepareReplay`) and answers once it is done. */
  async replay(sceneId: string): Promise<SceneReplayResult> {
    return (await this.prepareReplay(sceneId))();
  }

  /**
   * Checks that the scene has a recorded session to replay (refusing with the API's error when not),
   * and gives the replay to run: the stored session log again in a separate runtime, with model
   * outputs from the record, its states compared with the recorded ones. The live scene is not touched.
   */
  async prepareReplay(sceneId: string): Promise<(onProgress?: (progress: SceneReplayProgress) => void) => Promise<SceneReplayResult>> {
    const scene = await this.definition(sceneId);
    const log = await this.deps.store.readLog(sceneId);
    if (!log.some((e) => e.kind === "trigger.queued" && e.trigger.kind === "user")) {
      throw new ServiceError("CONFLICT", `Scene "${sceneId}" has no recorded session with a user message to replay; start it and send a message first.`);
    }
    const profiles = await loadSceneProfiles(this.deps.storage, scene);
    return async (onProgress) => {
      const live = this.live.get(sceneId);
      const recordedState = live ? live.runtime.serialize() : await this.deps.store.loadState(sceneId);
      const recorded = new RecordedLlm(log);
      const effects = new RecordedEffectOrder(log);
      const agents = await createReplayAgents(this.deps, scene, profiles, recorded, this.turns);
      try {
        const runtime = new SceneRuntime({
          scene: { ...scene, triggers: scene.triggers.filter((t) => t.kind !== "timer") },
          profileOf: (id) => profileView(profiles.get(id)),
          deliberate: this.inTurn(sceneDeliberate((id) => agents.get(id), { replay: recorded })),
          effectGate: effects,
          logger: this.deps.log,
        });
        const report = await replayScene(runtime, log, recorded, effects, onProgress);
        const recordedView = { world: recordedState?.world.document ?? {}, privateStates: recordedState?.privateStates ?? {} };
        const differences = sceneStateDifferences(recordedView, { world: report.world, privateStates: report.privateStates });
        return { ...report, matches: differences.length === 0, differences, recorded: recordedView };
      } finally {
        for (const agent of agents.values()) agent.dispose();
      }
    };
  }

  /**
   * A deleted scene: stops it if it is loaded (its late writes and events are dropped) and removes
   * its saved state, session log and session. Its agents' conversations and runs stay.
   */
  async forget(sceneId: string): Promise<void> {
    const live = this.live.get(sceneId);
    if (live) {
      this.unload(sceneId);
      await live.runtime.stop();
    }
    await this.deps.store.forget(sceneId);
  }

  /**
   * Saves every loaded scene as it is, then stops them without saving again: a scene running now
   * continues on the next start, its interrupted deliberations delivered again.
   */
  async shutdown(): Promise<void> {
    this.stopping = true;
    for (const live of this.live.values()) await live.runtime.persist().catch((error: unknown) => this.deps.log.error("scene not saved on shutdown", { sceneId: live.scene.id, error: String(error) }));
    this.deps.store.freeze();
    for (const sceneId of [...this.live.keys()]) {
      const live = this.live.get(sceneId) as LiveScene;
      this.unload(sceneId);
      await live.runtime.stop();
    }
  }

  /** `startedBy`: the user starting a new session (a restored one keeps the one it was saved with). */
  private async open(sceneId: string, mode: "new" | "restore", startedBy?: string): Promise<LiveScene> {
    const { store, journal } = this.deps;
    const scene = await this.definition(sceneId);
    const profiles = await loadSceneProfiles(this.deps.storage, scene);
    const saved = mode === "restore" ? await store.loadSession(sceneId) : undefined;
    const session: SceneSession = saved ?? { sessionId: randomUUID(), startedAt: Date.now(), conversations: {}, ...(startedBy !== undefined ? { startedBy } : {}) };
    for (const agent of scene.agents) session.conversations[agent.instanceId] ??= randomUUID();
    if (mode === "new") await store.clear(sceneId);
    await store.saveSession(sceneId, session);
    await journal.open(sceneId);
    let live: LiveScene | undefined;
    const onEvent = (event: RunEvent) => {
      if (!live?.closed) journal.append(sceneId, event);
    };
    const agents = await createSceneAgents(this.deps, scene, profiles, session, onEvent, this.turns);
    // Not while shutting down: the store is frozen then and writes nothing.
    const signalled = logSignalStore(store, {
      onStored: (nextSeq) => {
        if (!this.stopping && !live?.closed) journal.append(sceneId, { type: "scene.log", nextSeq });
      },
      accepts: () => !live?.closed,
      frozen: () => live?.frozen === true,
      events: journal.hold(sceneId),
    });
    try {
      const runtime = new SceneRuntime({
        scene,
        profileOf: (id) => profileView(profiles.get(id)),
        deliberate: this.inTurn(sceneDeliberate((id) => agents.get(id), { userId: () => session.startedBy })),
        onEvent,
        store: signalled,
        logger: this.deps.log,
        // The process's tracing (the engines' own): each deliberation a `scene step` span.
        ...tracingOf(this.deps.engineFor(sceneId)),
      });
      live = { scene: runtime.scene, runtime, agents, profiles, session, closed: false, frozen: false };
      if (mode === "restore") await runtime.restoreFromStore();
    } catch (error) {
      for (const agent of agents.values()) agent.dispose();
      throw error;
    }
    this.live.set(sceneId, live);
    return live;
  }

  /**
   * A deliberation starts in a turn of its own: a published event wakes every subscriber at once,
   * and their starts (context building, the workflow's first nodes) must not all run in the publisher's turn.
   */
  private inTurn(deliberate: Deliberate): Deliberate {
    return async (instanceId, trigger, context) => {
      await this.turns.turn();
      return deliberate(instanceId, trigger, context);
    };
  }

  private async session(sceneId: string): Promise<SceneSession | undefined> {
    return this.live.get(sceneId)?.session ?? (await this.deps.store.loadSession(sceneId));
  }

  private unload(sceneId: string): void {
    const live = this.live.get(sceneId);
    if (!live) return;
    live.closed = true;
    this.live.delete(sceneId);
    for (const agent of live.agents.values()) agent.dispose();
  }

  private async exclusive<T>(sceneId: string, work: () => Promise<T>): Promise<T> {
    if (this.stopping) throw new ServiceError("SERVICE_UNAVAILABLE", "The server is shutting down; start the scene again once it is back.");
    if (this.busy.has(sceneId)) throw new ServiceError("CONFLICT", `Scene "${sceneId}" is being started; wait for that request to finish.`);
    this.busy.add(sceneId);
    try {
      return await work();
    } finally {
      this.busy.delete(sceneId);
    }
  }

  private require(sceneId: string): LiveScene {
    if (this.stopping) throw new ServiceError("SERVICE_UNAVAILABLE", "The server is shutting down; try again once it is back.");
    const live = this.live.get(sceneId);
    if (!live) throw new ServiceError("CONFLICT", `Scene "${sceneId}" is not running; start it with POST /api/scenes/${sceneId}/start.`, { sceneId });
    return live;
  }

  private agent(live: LiveScene, instanceId: string): AgentInstance {
    const agent = live.agents.get(instanceId);
    if (!agent) throw notFound("agent instance", instanceId, `Scene "${live.scene.id}" has: ${[...live.agents.keys()].join(", ")}.`);
    return agent;
  }

  private async definition(sceneId: string): Promise<Scene> {
    const scene = (await this.deps.storage.scenes.get(sceneId))?.document;
    if (!scene) throw notFound("scene", sceneId, "GET /api/scenes lists them.");
    return scene;
  }
}

/** What the runtime needs of an instance's profile. */
export function profileView(profile: AgentProfile | undefined): { subscribedEvents: string[]; initialPrivateState: Record<string, unknown> } | undefined {
  return profile ? { subscribedEvents: profile.subscribedEvents, initialPrivateState: profile.initialPrivateState } : undefined;
}

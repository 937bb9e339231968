import { randomUUID } from "node:crypto";
import { z } from "zod";
import { forkSceneRecord, isForkCut, SceneRuntime, type SceneForkEdit, type SceneForkPoint } from "@weft/agent-runtime";
import type { ConversationForkChanges, Scene, SceneLogEntry, VersionAuthor } from "@weft/types";
import type { AgentsStorage } from "../agents/agents-storage.ts";
import { notFound, ServiceError } from "../service-error.ts";
import { loadSceneProfiles } from "./scene-agents.ts";
import { forkConversations } from "./scene-fork-conversations.ts";
import type { SceneHost } from "./scene-host.ts";
import { profileView } from "./scene-service.ts";
import type { SceneStore } from "./scene-store.ts";

/** An edited output or observation is a model's text: bounded as a conversation fork's. */
const MAX_EDIT_CHARS = 200_000;
/**
 * The most session log entries a fork reads: its state is built from every entry before the point, in memory. A busy
 * scene logs ~10 entries per agent step, so this is some thousands of steps; a later point is refused, not read.
 */
export const MAX_FORK_LOG_ENTRIES = 50_000;
/** Entries read per query while looking for the fork point. */
const FORK_LOG_PAGE = 1_000;

/** POST /api/scenes/:id/fork: the agent's step to fork at, and what to change there. */
export const SceneForkBodySchema = z
  .object({
    instanceId: z.string().min(1).max(200),
    /** The trigger whose deliberation holds the step (`triggerId` of the agent's steps in the timeline). */
    triggerId: z.string().min(1).max(200),
    /** The step (1, 2, …) of that deliberation: the steps before it come from the record. */
    step: z.number().int().positive().max(100_000),
    llmOutput: z.string().min(1, "is empty; give the LLM output the step should have had (its text, with its <ACTION> block)").max(MAX_EDIT_CHARS).optional(),
    observation: z
      .object({ index: z.number().int().nonnegative().max(1_000).default(0), text: z.string().min(1, "is empty; give the observation the call should have had").max(MAX_EDIT_CHARS) })
      .strict()
      .optional(),
    /** The version of the agent's profile its live steps run with (`GET /api/agents/:id/versions`); absent: the profile as it is. */
    agentVersion: z.number().int().positive().optional(),
  })
  .strict()
  .refine((b) => (b.llmOutput === undefined) !== (b.observation === undefined), {
    message: "give llmOutput or observation (one of them): what the forked step should have had",
    path: ["llmOutput"],
  });
export type SceneForkBody = z.infer<typeof SceneForkBodySchema>;

export interface SceneForkDeps {
  storage: AgentsStorage;
  store: SceneStore;
  host: SceneHost;
}

/**
 * The session log up to and including the entry where the fork cuts it (`isForkCut`), read page by page: nothing after
 * the point is read. The whole log when the point is not in it (the fork then says how many steps were recorded); a
 * point beyond `maxEntries` entries is refused (VALIDATION_FAILED) before more is read.
 */
export async function readLogUpToFork(store: Pick<SceneStore, "readLog">, sceneId: string, point: SceneForkPoint, edit: SceneForkEdit, maxEntries = MAX_FORK_LOG_ENTRIES): Promise<SceneLogEntry[]> {
  const log: SceneLogEntry[] = [];
  for (;;) {
    const page = await store.readLog(sceneId, log.length, Math.min(FORK_LOG_PAGE, maxEntries + 1 - log.length));
    const cut = page.findIndex((e) => isForkCut(e, point, edit));
    log.push(...(cut < 0 ? page : page.slice(0, cut + 1)));
    if (cut >= 0 && log.length <= maxEntries) return log;
    if (log.length > maxEntries) {
      throw new ServiceError(
        "VALIDATION_FAILED",
        `body.step: step ${point.step} of "${point.instanceId}" lies beyond the first ${maxEntries} entries of scene "${sceneId}"'s session log; a fork rebuilds the scene from at most that many. Fork at an earlier step.`,
        { issues: [{ path: ["step"], message: `the fork point is past log entry ${maxEntries}`, code: "too_big" }], maxEntries },
      );
    }
    if (page.length === 0 || (cut < 0 && page.length < FORK_LOG_PAGE)) return log;
  }
}

/**
 * Forks a scene's recorded session at an agent's step (issue #33 item 3): a new stored scene (`<scene>--fork-<id>`, the
 * same agents, the forked one on `agentVersion` of its profile when given, `forkOf` saying where it came from and what
 * changed) whose saved state and log are the original's up to the step (`forkSceneRecord` in the runtime), and whose
 * agents' conversations are copies of the original's up to there (`forkConversations`), continued by the host as a
 * scene saved while running: the steps before the point come from the record (no model or tool call), the edited step
 * is applied, the rest runs live.
 */
export async function forkScene(deps: SceneForkDeps, sceneId: string, body: SceneForkBody, by: VersionAuthor | undefined): Promise<{ sceneId: string }> {
  const source = (await deps.storage.scenes.get(sceneId))?.document;
  if (!source) throw notFound("scene", sceneId, "GET /api/scenes lists them.");
  const agent = source.agents.find((a) => a.instanceId === body.instanceId);
  if (!agent) throw notFound("agent instance", body.instanceId, `Scene "${sceneId}" has: ${source.agents.map((a) => a.instanceId).join(", ")}.`);
  const edit: SceneForkEdit = body.observation ? { kind: "observation", index: body.observation.index, observation: body.observation.text } : { kind: "llmOutput", text: body.llmOutput ?? "" };
  const point = { instanceId: body.instanceId, triggerId: body.triggerId, step: body.step };
  const log = await readLogUpToFork(deps.store, sceneId, point, edit);
  if (log.length === 0) throw new ServiceError("CONFLICT", `Scene "${sceneId}" has no recorded session to fork; start it (POST /api/scenes/${sceneId}/start) first.`);
  const forkId = `${sceneId}--fork-${randomUUID().slice(0, 8)}`;
  const at = Date.now();
  const agents = source.agents.map((a) => (a.instanceId === body.instanceId && body.agentVersion !== undefined ? { ...a, profileVersion: body.agentVersion } : a));
  const draft: Scene = { ...source, id: forkId, name: `${source.name} (fork)`, agents, revision: 0 };
  // Refuses a version the agent does not have before anything is stored.
  const profiles = await loadSceneProfiles(deps.storage, draft);
  // A fresh runtime's state of the fork's scene (initial world, private states, timers) is what the record is applied to.
  const base = new SceneRuntime({ scene: draft, profileOf: (id) => profileView(profiles.get(id)), deliberate: async () => undefined }).serialize();
  const record = forkSceneRecord(base, log, point, edit, at);
  const after = edit.kind === "observation" ? edit.observation : edit.text;
  const forkOf = {
    sceneId,
    ...point,
    changed: edit.kind,
    ...(edit.kind === "observation" ? { index: edit.index } : {}),
    before: record.replaced,
    after,
    ...(body.agentVersion !== undefined ? { agentVersion: body.agentVersion } : {}),
    at,
  };
  const created = await deps.storage.scenes.create({ ...draft, forkOf }, { ...(by ? { by } : {}), message: `fork of "${sceneId}" at step ${body.step} of ${body.instanceId}` });
  if (created.kind !== "created") throw new ServiceError("CONFLICT", `A scene with the id "${forkId}" already exists; fork again.`);
  const changes: ConversationForkChanges = {
    ...(edit.kind === "observation" ? { observation: after } : { llmOutput: after }),
    ...(body.agentVersion !== undefined ? { agentVersion: body.agentVersion } : {}),
  };
  const conversations = await forkConversations(deps.storage, await deps.store.loadSession(sceneId), draft, record.log, { instanceId: body.instanceId, step: body.step, changes });
  await deps.store.saveSession(forkId, { sessionId: randomUUID(), startedAt: at, conversations, ...(by ? { startedBy: by.id } : {}) });
  await deps.store.appendLog(forkId, record.log);
  await deps.store.saveState(record.state);
  await deps.host.continueSaved(forkId);
  return { sceneId: forkId };
}

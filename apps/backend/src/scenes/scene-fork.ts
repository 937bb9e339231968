import { randomUUID } from "node:crypto";
import { z } from "zod";
import { forkSceneRecord, SceneRuntime, type SceneForkEdit } from "@weft/agent-runtime";
import type { Scene, VersionAuthor } from "@weft/types";
import type { AgentsStorage } from "../agents/agents-storage.ts";
import { notFound, ServiceError } from "../service-error.ts";
import { loadSceneProfiles } from "./scene-agents.ts";
import type { SceneHost } from "./scene-host.ts";
import { profileView } from "./scene-service.ts";
import type { SceneStore } from "./scene-store.ts";

/** An edited output or observation is a model's text: bounded as a conversation fork's. */
const MAX_EDIT_CHARS = 200_000;

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
 * Forks a scene's recorded session at an agent's step (issue #33 item 3): a new stored scene (`<scene>--fork-<id>`, the
 * same agents, `forkOf` saying where it came from and what changed) whose saved state and log are the original's up to
 * the step (`forkSceneRecord` in the runtime), continued by the host as a scene saved while running: the steps before the
 * point come from the record (no model or tool call), the edited step is applied, the rest runs live.
 */
export async function forkScene(deps: SceneForkDeps, sceneId: string, body: SceneForkBody, by: VersionAuthor | undefined): Promise<{ sceneId: string }> {
  const source = (await deps.storage.scenes.get(sceneId))?.document;
  if (!source) throw notFound("scene", sceneId, "GET /api/scenes lists them.");
  const log = await deps.store.readLog(sceneId);
  if (log.length === 0) throw new ServiceError("CONFLICT", `Scene "${sceneId}" has no recorded session to fork; start it (POST /api/scenes/${sceneId}/start) first.`);
  const edit: SceneForkEdit = body.observation ? { kind: "observation", index: body.observation.index, observation: body.observation.text } : { kind: "llmOutput", text: body.llmOutput ?? "" };
  const forkId = `${sceneId}--fork-${randomUUID().slice(0, 8)}`;
  const at = Date.now();
  const draft: Scene = { ...source, id: forkId, name: `${source.name} (fork)`, revision: 0 };
  const profiles = await loadSceneProfiles(deps.storage, draft);
  // A fresh runtime's state of the fork's scene (initial world, private states, timers) is what the record is applied to.
  const base = new SceneRuntime({ scene: draft, profileOf: (id) => profileView(profiles.get(id)), deliberate: async () => undefined }).serialize();
  const point = { instanceId: body.instanceId, triggerId: body.triggerId, step: body.step };
  const record = forkSceneRecord(base, log, point, edit, at);
  const forkOf = {
    sceneId,
    ...point,
    changed: edit.kind,
    ...(edit.kind === "observation" ? { index: edit.index } : {}),
    before: record.replaced,
    after: edit.kind === "observation" ? edit.observation : edit.text,
    at,
  };
  const created = await deps.storage.scenes.create({ ...draft, forkOf }, { ...(by ? { by } : {}), message: `fork of "${sceneId}" at step ${body.step} of ${body.instanceId}` });
  if (created.kind !== "created") throw new ServiceError("CONFLICT", `A scene with the id "${forkId}" already exists; fork again.`);
  await deps.store.saveSession(forkId, { sessionId: randomUUID(), startedAt: at, conversations: {}, ...(by ? { startedBy: by.id } : {}) });
  await deps.store.appendLog(forkId, record.log);
  await deps.store.saveState(record.state);
  await deps.host.continueSaved(forkId);
  return { sceneId: forkId };
}

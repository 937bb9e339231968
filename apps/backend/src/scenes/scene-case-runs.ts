import { recordedUserMessages } from "@weft/agent-runtime";
import { messageOf, type JsonObject, type Scene, type SceneLogEntry, type SceneStateView, type VersionAuthor } from "@weft/types";
import type { DocumentRepository } from "../storage/document-table.ts";
import type { SceneHost } from "./scene-host.ts";
import { TIMELINE_BYTES_RANGE } from "./scene-timeline-page.ts";

const POLL_MS = 100;
/** How long one message of a script may keep the scene busy before the variation is reported as not settling. */
const SETTLE_MS = 120_000;

/** Nothing left to do: every agent idle (or waiting for a person) with an empty mailbox, or the scene paused or stopped. */
function settled(state: SceneStateView): boolean {
  if (state.status === "paused" || state.status === "stopped") return true;
  return state.agents.every((a) => a.status !== "deliberating" && a.queue.length === 0 && a.inFlight === null);
}

/** Every entry of the scene's current session log, read page by page. */
async function wholeLog(host: SceneHost, sceneId: string): Promise<SceneLogEntry[]> {
  const entries: SceneLogEntry[] = [];
  let fromSeq = 0;
  for (;;) {
    const page = (await host.timeline(sceneId, { fromSeq, limit: 5_000, maxBytes: TIMELINE_BYTES_RANGE.max })).answer;
    if (page.entries.length === 0) return entries;
    entries.push(...page.entries);
    fromSeq = page.nextSeq;
  }
}

async function untilSettled(host: SceneHost, sceneId: string, what: string): Promise<void> {
  const deadline = Date.now() + SETTLE_MS;
  for (;;) {
    if (settled(await host.state(sceneId))) return;
    if (Date.now() > deadline) throw new Error(`the scene was still busy ${SETTLE_MS / 1000} s after ${what}; an agent loop? Lower the scene's stepBudget`);
    await Bun.sleep(POLL_MS);
  }
}

/**
 * The scenes side of scene suites (`../evals/scene-suite-service.ts`'s port): each variation runs as an ordinary scene
 * run of a stored copy of the scene (same agents, its own initial world), so it is kept, shown and replayable like any.
 */
export function sceneCaseRuns(deps: { host: SceneHost; scenes: DocumentRepository<Scene> }) {
  return {
    async scene(sceneId: string): Promise<Scene | undefined> {
      return (await deps.scenes.get(sceneId))?.document;
    },
    async recordedScript(sceneId: string) {
      return recordedUserMessages(await wholeLog(deps.host, sceneId));
    },
    async run(spec: { source: Scene; copyId: string; copyName: string; initialWorld: JsonObject; script: Array<{ to: string; text: string }>; startedBy?: VersionAuthor }) {
      const copy: Scene = { ...spec.source, id: spec.copyId, name: spec.copyName, initialWorldState: spec.initialWorld, revision: 0 };
      const created = await deps.scenes.create(copy, { ...(spec.startedBy ? { by: spec.startedBy } : {}), message: `scene suite run of "${spec.source.id}"` });
      if (created.kind !== "created") throw new Error(`a scene with the id "${spec.copyId}" already exists; run the suite again`);
      let error: string | undefined;
      try {
        await deps.host.start(spec.copyId, spec.startedBy?.id);
        for (const [i, message] of spec.script.entries()) {
          await deps.host.sendMessage(spec.copyId, message.to, message.text);
          await untilSettled(deps.host, spec.copyId, `message ${i + 1} of the script`);
        }
      } catch (e) {
        error = messageOf(e);
      }
      // Stopped, the run stays viewable and replayable; its log is what the invariants are checked over.
      await deps.host.stop(spec.copyId).catch(() => undefined);
      return { entries: await wholeLog(deps.host, spec.copyId), ...(error !== undefined ? { error } : {}) };
    },
    /** As `DELETE /api/scenes/:id`: the definition, then its runtime state and log. */
    async remove(copyId: string) {
      if (await deps.scenes.delete(copyId)) await deps.host.forget(copyId);
    },
  };
}

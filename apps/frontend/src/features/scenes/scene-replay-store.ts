import { defineStore } from "pinia";
import { shallowRef } from "vue";
import type { SceneReplayProgress, SceneReplayResult } from "@weft/types";
import { sceneApi } from "./scenes-api.ts";
import { describeApiError } from "../../shared/api/errors.ts";

/** A replay of one scene's recorded session: under way with its progress, or its result, or why it failed. */
export type SceneReplayRun = { sceneId: string; sessionId: string | undefined } & (
  { phase: "running"; progress: SceneReplayProgress | null } | { phase: "done"; result: SceneReplayResult } | { phase: "failed"; message: string }
);

/**
 * Deterministic replay from the Scenes view: runs the selected scene's recorded session again with
 * the model outputs from the record and keeps, per scene, the last run (its progress while it runs).
 */
export const useSceneReplayStore = defineStore("sceneReplay", () => {
  const runs = shallowRef<Record<string, SceneReplayRun>>({});
  /** Bumped per run: a run forgotten or started again no longer writes its late progress. */
  const tickets: Record<string, number> = {};

  function set(run: SceneReplayRun) {
    runs.value = { ...runs.value, [run.sceneId]: run };
  }

  function of(sceneId: string | null): SceneReplayRun | null {
    return sceneId ? (runs.value[sceneId] ?? null) : null;
  }

  /** `sessionId`: the session shown when the replay was asked for (the one the server replays). */
  async function run(sceneId: string, sessionId: string | undefined): Promise<void> {
    if (runs.value[sceneId]?.phase === "running") return;
    const ticket = (tickets[sceneId] = (tickets[sceneId] ?? 0) + 1);
    const current = () => tickets[sceneId] === ticket;
    set({ sceneId, sessionId, phase: "running", progress: null });
    const r = await sceneApi.replay(sceneId, (progress) => {
      if (current()) set({ sceneId, sessionId, phase: "running", progress });
    });
    if (!current()) return;
    // Shown in the replay panel, where the user asked for it.
    set(r.ok ? { sceneId, sessionId, phase: "done", result: r.value } : { sceneId, sessionId, phase: "failed", message: describeApiError(r.error) });
  }

  /** A deleted scene: its replay is not shown again (a scene made with the same id starts clean). */
  function forget(sceneId: string) {
    tickets[sceneId] = (tickets[sceneId] ?? 0) + 1;
    const rest = { ...runs.value };
    delete rest[sceneId];
    runs.value = rest;
  }

  return { runs, of, run, forget };
});

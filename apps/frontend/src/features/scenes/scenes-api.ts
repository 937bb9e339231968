import { z } from "zod";
import {
  AgentTriggerSchema,
  SceneSchema,
  SceneStateViewSchema,
  SceneReplayLineSchema,
  SceneTimelineSchema,
  type PermissionAnswer,
  type SceneInput,
  type SceneReplayLine,
  type SceneReplayProgress,
  type SceneReplayResult,
  type SceneTimeline,
} from "@weft/types";
import { combineTimelinePages } from "./scene-timeline-sync.ts";
import { ApiClient } from "../../shared/api/client.ts";
import { fail, ok, type ApiResult } from "../../shared/api/errors.ts";
import { OkSchema } from "../../shared/api/schemas.ts";

const SceneListSchema = z.object({ scenes: z.array(SceneSchema) });
const SceneResponseSchema = z.object({ scene: SceneSchema });
const TriggersSchema = z.object({ triggers: z.array(AgentTriggerSchema) });
const ForkedSchema = z.object({ sceneId: z.string() });

/** What a scene fork changes at its step: the model's output, or the observation of the step's call `index`. */
export type SceneForkChange = { llmOutput: string } | { observation: { index: number; text: string } };

/** Log entries per timeline request (the server allows up to 5,000). */
const TIMELINE_PAGE = 2000;

/** Scenes (docs/api.md "Scenes"): definitions, running them, their live state and timeline. */
export class SceneApi extends ApiClient {
  async listScenes() {
    const r = await this.request("GET", "/api/scenes", SceneListSchema);
    return r.ok ? ok(r.value.scenes) : r;
  }

  async createScene(scene: SceneInput) {
    const r = await this.request("POST", "/api/scenes", SceneResponseSchema, { scene });
    return r.ok ? ok(r.value.scene) : r;
  }

  async deleteScene(id: string) {
    const r = await this.request("DELETE", `/api/scenes/${enc(id)}`, OkSchema);
    return r.ok ? ok(true as const) : r;
  }

  control(id: string, action: "start" | "pause" | "resume" | "stop") {
    return this.request("POST", `/api/scenes/${enc(id)}/${action}`, SceneStateViewSchema);
  }

  /**
   * Forks the scene's session at an agent's step (`triggerId`, `step` within that deliberation), its live steps on
   * `agentVersion` of the agent's profile when given; the fork's scene id.
   */
  async fork(id: string, point: { instanceId: string; triggerId: string; step: number }, change: SceneForkChange, agentVersion?: number) {
    const r = await this.request("POST", `/api/scenes/${enc(id)}/fork`, ForkedSchema, { ...point, ...change, ...(agentVersion !== undefined ? { agentVersion } : {}) });
    return r.ok ? ok(r.value.sceneId) : r;
  }

  state(id: string) {
    return this.request("GET", `/api/scenes/${enc(id)}/state`, SceneStateViewSchema);
  }

  /**
   * The timeline after `since` (a cursor of an earlier answer; null: all of it), every page of it,
   * as one answer: append it, or replace what is held when it says `reset`.
   */
  async timeline(id: string, since: string | null): Promise<ApiResult<SceneTimeline>> {
    const pages: SceneTimeline[] = [];
    let cursor = since;
    for (;;) {
      const query = cursor === null ? "" : `&since=${enc(cursor)}`;
      const r = await this.request("GET", `/api/scenes/${enc(id)}/timeline?limit=${TIMELINE_PAGE}${query}`, SceneTimelineSchema);
      if (!r.ok) return r;
      pages.push(r.value);
      cursor = r.value.cursor;
      // A page cut at the server's byte bound says `more`, whatever its number of entries.
      if (r.value.entries.length < TIMELINE_PAGE && r.value.more !== true) return ok(combineTimelinePages(pages));
    }
  }

  /**
   * Replays the scene's recorded session (model outputs from the record), telling `onProgress` how
   * far it is; the result says whether it reached the recorded state.
   */
  async replay(id: string, onProgress: (progress: SceneReplayProgress) => void): Promise<ApiResult<SceneReplayResult>> {
    const end: { line?: Exclude<SceneReplayLine, { type: "progress" }> } = {};
    const r = await this.requestLines("POST", `/api/scenes/${enc(id)}/replay`, SceneReplayLineSchema, (line) => {
      if (line.type === "progress") onProgress(line.progress);
      else end.line = line;
    });
    if (!r.ok) return r;
    const last = end.line;
    if (last?.type === "result") return ok(last.result);
    if (last?.type === "error") return fail({ code: last.error.code, status: 200, message: last.error.message });
    return fail({ code: "BAD_RESPONSE", status: 200, message: "The replay ended without a result." });
  }

  /** `to`: an agent instance id, or "all". */
  async sendMessage(id: string, to: string, text: string) {
    const r = await this.request("POST", `/api/scenes/${enc(id)}/messages`, TriggersSchema, { to, text });
    return r.ok ? ok(r.value.triggers) : r;
  }

  /** The user's answer to the agent's `ask_user` question. */
  async answerQuestion(id: string, instanceId: string, text: string) {
    const r = await this.request("POST", `/api/scenes/${enc(id)}/agents/${enc(instanceId)}/answer`, TriggersSchema, { text });
    return r.ok ? ok(r.value.triggers) : r;
  }

  async answerPermission(id: string, instanceId: string, requestId: string, answer: PermissionAnswer) {
    const r = await this.request("POST", `/api/scenes/${enc(id)}/agents/${enc(instanceId)}/permissions/${enc(requestId)}`, OkSchema, answer);
    return r.ok ? ok(true as const) : r;
  }
}

const enc = encodeURIComponent;

export const sceneApi = new SceneApi();

import { z } from "zod";
import {
  AgentProfileSchema,
  AgentTriggerSchema,
  SceneSchema,
  SceneStateViewSchema,
  SceneTimelineSchema,
  type PermissionAnswer,
  type SceneInput,
  type SceneLogEntry,
  type SceneTimeline,
} from "@weft/types";
import { ApiClient } from "./client.ts";
import { ok, type ApiResult } from "./errors.ts";
import { OkSchema } from "./schemas.ts";

const SceneListSchema = z.object({ scenes: z.array(SceneSchema) });
const SceneResponseSchema = z.object({ scene: SceneSchema });
const AgentListSchema = z.object({ agents: z.array(AgentProfileSchema) });
const TriggersSchema = z.object({ triggers: z.array(AgentTriggerSchema) });

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

  /** Agent profiles, to pick a new scene's agents from. */
  async listAgents() {
    const r = await this.request("GET", "/api/agents", AgentListSchema);
    return r.ok ? ok(r.value.agents) : r;
  }

  control(id: string, action: "start" | "pause" | "resume" | "stop") {
    return this.request("POST", `/api/scenes/${enc(id)}/${action}`, SceneStateViewSchema);
  }

  state(id: string) {
    return this.request("GET", `/api/scenes/${enc(id)}/state`, SceneStateViewSchema);
  }

  /** The session log from `fromSeq` on (every page of it) and every agent's step traces. */
  async timeline(id: string, fromSeq: number): Promise<ApiResult<SceneTimeline>> {
    const entries: SceneLogEntry[] = [];
    let from = fromSeq;
    for (;;) {
      const r = await this.request("GET", `/api/scenes/${enc(id)}/timeline?fromSeq=${from}&limit=${TIMELINE_PAGE}`, SceneTimelineSchema);
      if (!r.ok) return r;
      entries.push(...r.value.entries);
      from = r.value.nextSeq;
      if (r.value.entries.length < TIMELINE_PAGE) return ok({ entries, nextSeq: from, steps: r.value.steps });
    }
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

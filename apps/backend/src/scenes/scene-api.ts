import { Elysia } from "elysia";
import { z } from "zod";
import { AgentTriggerSchema, PermissionAnswerSchema, SceneReplayResultSchema, SceneStateViewSchema, SceneTimelineSchema, type Logger, type VersionAuthor } from "@weft/types";
import { parseWith, readBody } from "../api/body.ts";
import { answer } from "../api/errors.ts";
import { OkAnswer, route, type ApiRoute } from "../api/openapi-routes.ts";
import { NDJSON, replayStream } from "./scene-replay-stream.ts";
import { TIMELINE_BYTES_RANGE, TIMELINE_MAX_BYTES } from "./scene-timeline-page.ts";
import type { SceneHost } from "./scene-host.ts";
import { actorOf, authorOf } from "../auth/principal.ts";
import { SceneForkBodySchema, type SceneForkBody } from "./scene-fork.ts";

const MessageBody = z.object({
  /** An agent instance id, or "all". */
  to: z.string().min(1).default("all"),
  text: z.string().trim().min(1, "a message needs some text"),
});
const AnswerBody = z.object({ text: z.string().trim().min(1, "an answer needs some text") });
const TimelineQuery = z.object({
  fromSeq: z.coerce.number().int().min(0).default(0),
  limit: z.coerce.number().int().min(1).max(5000).default(1000),
  /** The `cursor` of an earlier answer: only what is new after it. */
  since: z.string().min(1).optional(),
  /** Entries and steps together stay within this many bytes of JSON (one larger item comes alone); `more` says when cut. */
  maxBytes: z.coerce.number().int().min(TIMELINE_BYTES_RANGE.min).max(TIMELINE_BYTES_RANGE.max).default(TIMELINE_MAX_BYTES),
});

/** Forks a scene's session at an agent's step (`scene-fork.ts`); the fork's scene id. */
export type SceneForker = (sceneId: string, body: SceneForkBody, by: VersionAuthor | undefined) => Promise<{ sceneId: string }>;
/** POST /api/scenes/:id/fork: the fork, a new scene continuing from the fork point. */
const ForkedScene = z.object({ sceneId: z.string() });

/** What a message or an answer to an agent woke: one trigger per agent that will deliberate. */
const TriggeredAnswer = z.object({ triggers: z.array(AgentTriggerSchema) });

/**
 * Running scenes (the CRUD of their definitions is in scene-documents-api.ts): start, pause, resume, stop,
 * messages, answers to agents' questions and permission requests, live state, timeline, replay.
 * Live events: subscribe to the scene id on `/ws`.
 */
export function sceneRuntimeApi(scenes: SceneHost, maxBodyBytes: number, log: Logger, fork: SceneForker) {
  return (
    new Elysia()
      .post("/api/scenes/:id/start", async ({ params, request }) => answer(SceneStateViewSchema, await scenes.start(params.id, actorOf(request))))
      .post("/api/scenes/:id/pause", async ({ params }) => answer(SceneStateViewSchema, await scenes.pause(params.id)))
      .post("/api/scenes/:id/resume", async ({ params }) => answer(SceneStateViewSchema, await scenes.resume(params.id)))
      .post("/api/scenes/:id/stop", async ({ params }) => answer(SceneStateViewSchema, await scenes.stop(params.id)))
      .post("/api/scenes/:id/messages", async ({ params, request }) => {
        const body = await readBody(request, MessageBody, maxBodyBytes);
        return answer(TriggeredAnswer, await scenes.sendMessage(params.id, body.to, body.text), 202);
      })
      .post("/api/scenes/:id/agents/:instanceId/answer", async ({ params, request }) => {
        const body = await readBody(request, AnswerBody, maxBodyBytes);
        return answer(TriggeredAnswer, await scenes.answerQuestion(params.id, params.instanceId, body.text), 202);
      })
      .post("/api/scenes/:id/agents/:instanceId/permissions/:requestId", async ({ params, request }) => {
        const body = await readBody(request, PermissionAnswerSchema, maxBodyBytes);
        await scenes.answerPermission(params.id, params.instanceId, params.requestId, body);
        return answer(OkAnswer, { ok: true });
      })
      .post("/api/scenes/:id/fork", async ({ params, request }) => {
        const body = await readBody(request, SceneForkBodySchema, maxBodyBytes);
        return answer(ForkedScene, await fork(params.id, body, authorOf(request)), 202);
      })
      .get("/api/scenes/:id/state", async ({ params }) => answer(SceneStateViewSchema, await scenes.state(params.id)))
      .get("/api/scenes/:id/timeline", async ({ params, query }) => {
        const { fromSeq, limit, since, maxBytes } = parseWith(TimelineQuery, query, "query");
        const page = await scenes.timeline(params.id, { fromSeq, limit, maxBytes, ...(since !== undefined ? { since } : {}) });
        // Sent as the page built it: its items were serialized once, to measure them against maxBytes.
        return new Response(page.json, { headers: { "content-type": "application/json; charset=utf-8" } });
      })
      // Asked for as NDJSON, the replay reports its progress line by line; otherwise one JSON answer at the end.
      .post("/api/scenes/:id/replay", async ({ params, request }) => {
        const run = await scenes.prepareReplay(params.id);
        return request.headers.get("accept")?.includes(NDJSON) ? replayStream(run, log) : answer(SceneReplayResultSchema, await run());
      })
  );
}

/** The running scenes' routes, as the OpenAPI document describes them. */
export const SCENE_RUNTIME_ROUTES: readonly ApiRoute[] = [
  route("POST", "/api/scenes/:id/start", "scenes", "Start a scene", { response: SceneStateViewSchema }),
  route("POST", "/api/scenes/:id/pause", "scenes", "Pause a scene", { response: SceneStateViewSchema }),
  route("POST", "/api/scenes/:id/resume", "scenes", "Resume a scene", { response: SceneStateViewSchema }),
  route("POST", "/api/scenes/:id/stop", "scenes", "Stop a scene", { response: SceneStateViewSchema }),
  route("POST", "/api/scenes/:id/replay", "scenes", "Replay a scene from its log and compare (with Accept: application/x-ndjson, progress lines first)", { response: SceneReplayResultSchema }),
  route("POST", "/api/scenes/:id/messages", "scenes", "Post a message into a scene", { body: MessageBody, response: TriggeredAnswer, status: 202 }),
  route("POST", "/api/scenes/:id/agents/:instanceId/answer", "scenes", "Answer an agent's question", { body: AnswerBody, response: TriggeredAnswer, status: 202 }),
  route("POST", "/api/scenes/:id/agents/:instanceId/permissions/:requestId", "scenes", "Answer an agent's permission request", { body: PermissionAnswerSchema, response: OkAnswer }),
  route("POST", "/api/scenes/:id/fork", "scenes", "Fork a scene's session at an agent's step: the world and events as they were, the steps before from the record, the rest live", {
    body: SceneForkBodySchema,
    response: ForkedScene,
    status: 202,
  }),
  route("GET", "/api/scenes/:id/state", "scenes", "A scene's current state", { response: SceneStateViewSchema }),
  route("GET", "/api/scenes/:id/timeline", "scenes", "A scene's timeline: log entries and agent steps, paged", { query: TimelineQuery, response: SceneTimelineSchema }),
];

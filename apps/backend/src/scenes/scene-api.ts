import { Elysia } from "elysia";
import { z } from "zod";
import { PermissionAnswerSchema, type Logger } from "@weft/types";
import { parseWith, readBody } from "../api/body.ts";
import { jsonResponse } from "../api/errors.ts";
import { route, type ApiRoute } from "../api/openapi-routes.ts";
import { NDJSON, replayStream } from "./scene-replay-stream.ts";
import { TIMELINE_BYTES_RANGE, TIMELINE_MAX_BYTES } from "./scene-timeline-page.ts";
import type { SceneHost } from "./scene-host.ts";
import { actorOf } from "../auth/principal.ts";

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

/**
 * Running scenes (the CRUD of their definitions is in scene-documents-api.ts): start, pause, resume, stop,
 * messages, answers to agents' questions and permission requests, live state, timeline, replay.
 * Live events: subscribe to the scene id on `/ws`.
 */
export function sceneRuntimeApi(scenes: SceneHost, maxBodyBytes: number, log: Logger) {
  return (
    new Elysia()
      .post("/api/scenes/:id/start", async ({ params, request }) => jsonResponse(await scenes.start(params.id, actorOf(request))))
      .post("/api/scenes/:id/pause", async ({ params }) => jsonResponse(await scenes.pause(params.id)))
      .post("/api/scenes/:id/resume", async ({ params }) => jsonResponse(await scenes.resume(params.id)))
      .post("/api/scenes/:id/stop", async ({ params }) => jsonResponse(await scenes.stop(params.id)))
      .post("/api/scenes/:id/messages", async ({ params, request }) => {
        const body = await readBody(request, MessageBody, maxBodyBytes);
        return jsonResponse(await scenes.sendMessage(params.id, body.to, body.text), 202);
      })
      .post("/api/scenes/:id/agents/:instanceId/answer", async ({ params, request }) => {
        const body = await readBody(request, AnswerBody, maxBodyBytes);
        return jsonResponse(await scenes.answerQuestion(params.id, params.instanceId, body.text), 202);
      })
      .post("/api/scenes/:id/agents/:instanceId/permissions/:requestId", async ({ params, request }) => {
        const body = await readBody(request, PermissionAnswerSchema, maxBodyBytes);
        await scenes.answerPermission(params.id, params.instanceId, params.requestId, body);
        return jsonResponse({ ok: true });
      })
      .get("/api/scenes/:id/state", async ({ params }) => jsonResponse(await scenes.state(params.id)))
      .get("/api/scenes/:id/timeline", async ({ params, query }) => {
        const { fromSeq, limit, since, maxBytes } = parseWith(TimelineQuery, query, "query");
        const page = await scenes.timeline(params.id, { fromSeq, limit, maxBytes, ...(since !== undefined ? { since } : {}) });
        // Sent as the page built it: its items were serialized once, to measure them against maxBytes.
        return new Response(page.json, { headers: { "content-type": "application/json; charset=utf-8" } });
      })
      // Asked for as NDJSON, the replay reports its progress line by line; otherwise one JSON answer at the end.
      .post("/api/scenes/:id/replay", async ({ params, request }) => {
        const run = await scenes.prepareReplay(params.id);
        return request.headers.get("accept")?.includes(NDJSON) ? replayStream(run, log) : jsonResponse(await run());
      })
  );
}

/** The running scenes' routes, as the OpenAPI document describes them. */
export const SCENE_RUNTIME_ROUTES: readonly ApiRoute[] = [
  route("POST", "/api/scenes/:id/start", "scenes", "Start a scene"),
  route("POST", "/api/scenes/:id/pause", "scenes", "Pause a scene"),
  route("POST", "/api/scenes/:id/resume", "scenes", "Resume a scene"),
  route("POST", "/api/scenes/:id/stop", "scenes", "Stop a scene"),
  route("POST", "/api/scenes/:id/replay", "scenes", "Replay a scene"),
  route("POST", "/api/scenes/:id/messages", "scenes", "Post a message into a scene"),
  route("POST", "/api/scenes/:id/agents/:instanceId/answer", "scenes", "Answer an agent's question"),
  route("POST", "/api/scenes/:id/agents/:instanceId/permissions/:requestId", "scenes", "Answer an agent's permission request", { body: PermissionAnswerSchema }),
  route("GET", "/api/scenes/:id/state", "scenes", "A scene's current state"),
  route("GET", "/api/scenes/:id/timeline", "scenes", "A scene's timeline"),
];

import { Elysia } from "elysia";
import { z } from "zod";
import { PermissionAnswerSchema } from "@weft/types";
import type { ApiDeps } from "./deps.ts";
import { jsonResponse } from "./errors.ts";
import { readBody } from "./body.ts";

const AnswerBody = PermissionAnswerSchema.strict();

/** Agent conversations: read back the log and step traces, stop a loop, answer permission questions. */
export function conversationsApi(deps: ApiDeps) {
  const { agents, maxBodyBytes } = deps;
  return new Elysia()
    .get("/api/conversations/:id", async ({ params }) => jsonResponse(await agents.conversation(params.id)))
    .post("/api/conversations/:id/cancel", async ({ params }) => {
      await agents.cancel(params.id);
      return jsonResponse({ ok: true });
    })
    .post("/api/conversations/:id/permissions/:requestId", async ({ params, request }) => {
      const body = await readBody(request, AnswerBody, maxBodyBytes);
      await agents.answerPermission(params.id, params.requestId, body);
      return jsonResponse({ ok: true });
    });
}

export const MessageBody = z
  .object({
    message: z.string().trim().min(1, "is empty; send the user's message").max(100_000),
    conversationId: z.string().min(1).max(200).optional(),
  })
  .strict();

import { Elysia } from "elysia";
import { z } from "zod";
import { PermissionAnswerSchema } from "@weft/types";
import { answer } from "../api/errors.ts";
import { readBody } from "../api/body.ts";
import { OkAnswer, route, type ApiRoute } from "../api/openapi-routes.ts";
import { actorOf } from "../auth/principal.ts";
import { ConversationViewSchema, type AgentHost } from "./agent-host.ts";
import { ConversationForkBodySchema } from "./conversation-fork.ts";

const AnswerBody = PermissionAnswerSchema.strict();

/** Agent conversations: read back the log and step traces, stop a loop, answer permission questions, fork at a step. */
export function conversationsApi(agents: AgentHost, maxBodyBytes: number) {
  return new Elysia()
    .get("/api/conversations/:id", async ({ params }) => answer(ConversationViewSchema, await agents.conversation(params.id)))
    .post("/api/conversations/:id/cancel", async ({ params }) => {
      await agents.cancel(params.id);
      return answer(OkAnswer, { ok: true });
    })
    .post("/api/conversations/:id/permissions/:requestId", async ({ params, request }) => {
      const body = await readBody(request, AnswerBody, maxBodyBytes);
      await agents.answerPermission(params.id, params.requestId, body);
      return answer(OkAnswer, { ok: true });
    })
    .post("/api/conversations/:id/fork", async ({ params, request }) => {
      const body = await readBody(request, ConversationForkBodySchema, maxBodyBytes);
      return answer(Forked, await agents.fork(params.id, body, actorOf(request)), 202);
    });
}

/** POST /api/conversations/:id/fork: the fork, a new conversation whose loop goes on from the fork point. */
const Forked = z.object({ conversationId: z.string() });

export const MessageBody = z
  .object({
    message: z.string().trim().min(1, "is empty; send the user's message").max(100_000),
    conversationId: z.string().min(1).max(200).optional(),
  })
  .strict();

/** The conversation routes, as the OpenAPI document describes them. */
export const CONVERSATIONS_ROUTES: readonly ApiRoute[] = [
  route("GET", "/api/conversations/:id", "agents", "A conversation: its messages, step traces, forks and its agent's live state", { response: ConversationViewSchema }),
  route("POST", "/api/conversations/:id/cancel", "agents", "Cancel a conversation's turn", { response: OkAnswer }),
  route("POST", "/api/conversations/:id/permissions/:requestId", "agents", "Answer a permission request", { body: PermissionAnswerSchema, response: OkAnswer }),
  route("POST", "/api/conversations/:id/fork", "agents", "Fork an agent conversation at a step: the steps before it come from the record, the loop goes on live", {
    body: ConversationForkBodySchema,
    response: Forked,
    status: 202,
  }),
];

import { Elysia } from "elysia";
import { z } from "zod";
import {
  BuilderApplyResponseSchema,
  BuilderChangeSetResponseSchema,
  BuilderChangeSetSchema,
  BuilderInterruptResponseSchema,
  BuilderSessionDetailSchema,
  BuilderSessionListSchema,
  BuilderSessionStateSchema,
  BuilderSettingsSchema,
  BuilderTurnResponseSchema,
  ChangePreviewSchema,
  SessionScopeSchema,
  type BuilderSessionState,
  type ConversationStore,
} from "@weft/types";
import { answer } from "../../api/errors.ts";
import { parseWith, readBody } from "../../api/body.ts";
import { route, type ApiRoute } from "../../api/openapi-routes.ts";
import type { ApplyOrchestrator } from "../apply/apply-orchestrator.ts";
import { viewOf, type BuilderContext } from "../builder-context.ts";
import type { ChangeSetService } from "../changes/change-set-service.ts";
import type { OverlayEntry } from "../domain/change-set.ts";
import { AuditEventSchema, type SessionRecord } from "../domain/records.ts";
import { previewChangeSet } from "../preview/change-preview.ts";
import { BUILDER_PROFILE_KEY, type SessionService } from "../session/session-service.ts";
import { ApplyBody, AuditQuery, CreateSessionBody, ListQuery, MessageBody, SessionQuery } from "./bodies.ts";
import { changeSetView, paneMessages, sessionView } from "./views.ts";

export interface BuilderApiDeps {
  ctx: BuilderContext;
  sessions: SessionService;
  changeSets: ChangeSetService;
  apply: ApplyOrchestrator;
  conversations: ConversationStore;
  maxBodyBytes: number;
  /** Refuses an apply the request's principal may not make (agent ids an owner's rule names, see agents/agent-governance.ts). */
  guardApply?: (entries: readonly OverlayEntry[], request: Request) => Promise<void>;
  /** The user a request acts for (named on the usage of the model calls a message makes). */
  actorOf?: (request: Request) => string | undefined;
}

/** A new session: its state, with the first turn when the request carried a message. */
const CreatedSession = BuilderSessionStateSchema.extend({ turn: BuilderTurnResponseSchema.shape.turn.optional() });
const ChangeSetsAnswer = z.object({ changeSets: z.array(BuilderChangeSetSchema) });
const AuditAnswer = z.object({ events: z.array(AuditEventSchema) });

/** `latest` names the session's newest change set. */
const changeSetIdOf = (param: string) => (param === "latest" ? undefined : param);

/** The Builder AI's HTTP API (docs/api.md, "Builder AI"). */
export function builderApi(deps: BuilderApiDeps) {
  const { ctx, sessions, changeSets, apply, conversations, maxBodyBytes } = deps;

  const current = async (session: SessionRecord): Promise<BuilderSessionState> => {
    const latest = session.latestChangeSetId ? await ctx.store.getChangeSet(session.latestChangeSetId) : undefined;
    return { session: sessionView(session, sessions.isBusy(session.id)), latestChangeSet: latest ? changeSetView(latest) : null };
  };

  return new Elysia({ prefix: "/api/builder" })
    .get("/settings", async () => answer(BuilderSettingsSchema, { llmProfileId: (await ctx.storage.meta.get(BUILDER_PROFILE_KEY)) || null }))
    .put("/settings", async ({ request }) => {
      const body = await readBody(request, BuilderSettingsSchema, maxBodyBytes);
      if (body.llmProfileId !== null) await sessions.requireProfile(body.llmProfileId);
      // The meta store has no delete: an empty value means "no choice, use the default profile".
      await ctx.storage.meta.set(BUILDER_PROFILE_KEY, body.llmProfileId ?? "");
      return answer(BuilderSettingsSchema, { llmProfileId: body.llmProfileId });
    })
    .post("/sessions", async ({ request, server }) => {
      const body = await readBody(request, CreateSessionBody, maxBodyBytes);
      const { message, ...input } = body;
      const session = await sessions.create(input);
      if (message === undefined) return answer(CreatedSession, await current(session), 201);
      // A turn can outlast Bun's idle timeout; the client waits for the answer.
      server?.timeout(request, 0);
      const turn = await sessions.message(session.id, message);
      return answer(CreatedSession, { ...(await current(await changeSets.requireSession(session.id))), turn }, 201);
    })
    .get("/sessions", async ({ query }) => {
      const q = parseWith(ListQuery, query, "query");
      const list = await ctx.store.listSessions({
        ...(q.targetType ? { targetType: q.targetType } : {}),
        ...(q.targetId ? { targetKey: q.targetId } : {}),
        ...(q.status ? { status: q.status } : {}),
        limit: q.limit,
      });
      return answer(BuilderSessionListSchema, { sessions: list.map((s) => sessionView(s, sessions.isBusy(s.id))) });
    })
    .get("/sessions/:id", async ({ params, query }) => {
      const session = await changeSets.requireSession(params.id);
      const q = parseWith(SessionQuery, query, "query");
      const messages = paneMessages(await conversations.messages(session.conversationId));
      return answer(BuilderSessionDetailSchema, { ...(await current(session)), messages: q.messages === 0 ? [] : messages.slice(-q.messages), totalMessages: messages.length });
    })
    .post("/sessions/:id/messages", async ({ params, request, server }) => {
      const body = await readBody(request, MessageBody, maxBodyBytes);
      server?.timeout(request, 0);
      const turn = await sessions.message(params.id, body.content, deps.actorOf?.(request));
      return answer(BuilderTurnResponseSchema, { ...(await current(await changeSets.requireSession(params.id))), turn });
    })
    .post("/sessions/:id/interrupt", async ({ params }) => answer(BuilderInterruptResponseSchema, { interrupted: await sessions.interrupt(params.id) }))
    .post("/sessions/:id/cancel", async ({ params }) => answer(BuilderSessionStateSchema, await current(await sessions.cancel(params.id))))
    .put("/sessions/:id/scope", async ({ params, request }) => {
      const scope = await readBody(request, SessionScopeSchema, maxBodyBytes);
      return answer(BuilderSessionStateSchema, await current(await sessions.setScope(params.id, scope)));
    })
    .get("/sessions/:id/change-sets", async ({ params }) => {
      const session = await changeSets.requireSession(params.id);
      return answer(ChangeSetsAnswer, { changeSets: (await ctx.store.listChangeSets(session.id)).map(changeSetView) });
    })
    .get("/sessions/:id/change-sets/:csId", async ({ params }) =>
      answer(BuilderChangeSetResponseSchema, { changeSet: changeSetView(await changeSets.require(await changeSets.requireSession(params.id), changeSetIdOf(params.csId))) }),
    )
    .get("/sessions/:id/change-sets/:csId/preview", async ({ params }) => {
      const session = await changeSets.requireSession(params.id);
      const cs = await changeSets.require(session, changeSetIdOf(params.csId));
      return answer(ChangePreviewSchema, await previewChangeSet(await viewOf(ctx, session, cs.entries), cs));
    })
    .post("/sessions/:id/change-sets/:csId/validate", async ({ params }) =>
      answer(BuilderChangeSetResponseSchema, { changeSet: changeSetView(await changeSets.validate(params.id, changeSetIdOf(params.csId))) }),
    )
    .post("/sessions/:id/change-sets/:csId/discard", async ({ params }) =>
      answer(BuilderChangeSetResponseSchema, { changeSet: changeSetView(await changeSets.discard(params.id, changeSetIdOf(params.csId))) }),
    )
    .post("/sessions/:id/apply", async ({ params, request }) => {
      const body = await readBody(request, ApplyBody, maxBodyBytes);
      if (deps.guardApply) await deps.guardApply((await changeSets.require(await changeSets.requireSession(params.id), body.changeSetId)).entries, request);
      const result = await apply.apply(params.id, {
        changeSetId: body.changeSetId,
        confirmSource: body.confirmSource,
        confirmStale: body.confirmStale,
        ...(body.revisionBase ? { revisionBase: body.revisionBase } : {}),
      });
      return answer(BuilderApplyResponseSchema, { ...result, ...(await current(await changeSets.requireSession(params.id))) });
    })
    .get("/sessions/:id/audit", async ({ params, query }) => {
      const session = await changeSets.requireSession(params.id);
      const q = parseWith(AuditQuery, query, "query");
      return answer(AuditAnswer, { events: await ctx.store.listAudit(session.id, q.after, q.limit) });
    });
}

/** The Builder's routes, as the OpenAPI document describes them. */
export const BUILDER_ROUTES: readonly ApiRoute[] = [
  route("GET", "/api/builder/settings", "builder", "The Builder's settings", { response: BuilderSettingsSchema }),
  route("PUT", "/api/builder/settings", "builder", "Replace the Builder's settings", { body: BuilderSettingsSchema, response: BuilderSettingsSchema }),
  route("GET", "/api/builder/sessions", "builder", "List Builder sessions", { query: ListQuery, response: BuilderSessionListSchema }),
  route("POST", "/api/builder/sessions", "builder", "Start a Builder session (with `message`: answered after its first turn)", { body: CreateSessionBody, response: CreatedSession, status: 201 }),
  route("GET", "/api/builder/sessions/:id", "builder", "A Builder session with its latest messages", { query: SessionQuery, response: BuilderSessionDetailSchema }),
  route("POST", "/api/builder/sessions/:id/messages", "builder", "Send the Builder a message (answered after the turn)", { body: MessageBody, response: BuilderTurnResponseSchema }),
  route("PUT", "/api/builder/sessions/:id/scope", "builder", "Set what the session may change", { body: SessionScopeSchema, response: BuilderSessionStateSchema }),
  route("POST", "/api/builder/sessions/:id/cancel", "builder", "Cancel the session's turn", { response: BuilderSessionStateSchema }),
  route("POST", "/api/builder/sessions/:id/interrupt", "builder", "Interrupt the session's turn", { response: BuilderInterruptResponseSchema }),
  route("POST", "/api/builder/sessions/:id/apply", "builder", "Apply staged change sets", { body: ApplyBody, response: BuilderApplyResponseSchema }),
  route("GET", "/api/builder/sessions/:id/audit", "builder", "The session's audit log", { query: AuditQuery, response: AuditAnswer }),
  route("GET", "/api/builder/sessions/:id/change-sets", "builder", "The session's change sets", { response: ChangeSetsAnswer }),
  route("GET", "/api/builder/sessions/:id/change-sets/:csId", "builder", "A change set (csId `latest`: the newest)", { response: BuilderChangeSetResponseSchema }),
  route("GET", "/api/builder/sessions/:id/change-sets/:csId/preview", "builder", "A change set's preview", { response: ChangePreviewSchema }),
  route("POST", "/api/builder/sessions/:id/change-sets/:csId/discard", "builder", "Discard a change set", { response: BuilderChangeSetResponseSchema }),
  route("POST", "/api/builder/sessions/:id/change-sets/:csId/validate", "builder", "Validate a change set", { response: BuilderChangeSetResponseSchema }),
];

import { randomUUID } from "node:crypto";
import { targetObject, type BuilderMode, type BuilderTarget, type BuilderTurn, type ConversationStore, type SessionScope } from "@weft/types";
import type { BuilderStorage } from "../builder-storage.ts";
import { viewOf, type BuilderContext } from "../builder-context.ts";
import type { ChangeSetService } from "../changes/change-set-service.ts";
import { BuilderError } from "../domain/errors.ts";
import type { SessionRecord } from "../domain/records.ts";
import { describeTarget } from "../domain/target.ts";
import type { EffectiveView } from "../overlay/effective-view.ts";
import { mentionedAssetPaths } from "../references/references.ts";
import { targetState } from "../overlay/target-state.ts";
import type { TurnRunner } from "./turn-runner.ts";

/** The meta key of the LLM profile the user chose for the Builder (seed 001 §4.1, one user in Weft). */
export const BUILDER_PROFILE_KEY = "builder.llmProfileId";

/** The session's own profile, else the one chosen for the Builder, else the default profile (undefined). */
export async function profileForSession(storage: Pick<BuilderStorage, "meta">, session: Pick<SessionRecord, "llmProfileId">): Promise<string | undefined> {
  return session.llmProfileId ?? ((await storage.meta.get(BUILDER_PROFILE_KEY)) || undefined);
}

export interface CreateSessionInput {
  target: BuilderTarget;
  mode: BuilderMode;
  llmProfileId?: string;
  scope: SessionScope;
  maxRepairRounds: number;
}

/** Sessions (seed 001 §4.2, §5.2): created from a target, one message at a time, cancelled without touching what is stored. */
export class SessionService {
  /** The turn in progress per session, to refuse a second one and to stop it. */
  private readonly running = new Map<string, AbortController>();

  constructor(
    private readonly ctx: BuilderContext,
    private readonly changeSets: ChangeSetService,
    private readonly turns: TurnRunner,
    private readonly conversations: ConversationStore,
  ) {}

  isBusy(sessionId: string): boolean {
    return this.running.has(sessionId);
  }

  async requireProfile(id: string): Promise<void> {
    if (!(await this.ctx.storage.llmProfiles.get(id))) throw new BuilderError("NOT_FOUND", `No LLM profile has the id "${id}". GET /api/llm-profiles lists them.`, { kind: "LLM profile", id });
  }

  async create(input: CreateSessionInput): Promise<SessionRecord> {
    if (input.llmProfileId !== undefined) await this.requireProfile(input.llmProfileId);
    const id = `bs_${randomUUID()}`;
    const view = await viewOf(this.ctx, { id }, []);
    const state = await targetState(view, input.target);
    await this.checkTarget(input, state.exists, view);
    const label = describeTarget(input.target);
    const conversation = await this.conversations.create({ title: `Builder AI: ${label}`, activeMode: "chat" });
    const now = Date.now();
    const session: SessionRecord = {
      id,
      conversationId: conversation.id,
      target: input.target,
      mode: input.mode,
      status: "active",
      ...(input.llmProfileId !== undefined ? { llmProfileId: input.llmProfileId } : {}),
      scope: input.scope,
      maxRepairRounds: input.maxRepairRounds,
      contextEnvelope: {
        targetLabel: label,
        targetRevision: state.storedRevision,
        referencedAssetPaths: input.target.type === "asset" ? [input.target.path] : mentionedAssetPaths(state.snapshot),
      },
      createdAt: now,
      updatedAt: now,
    };
    const { store, storage } = this.ctx;
    await storage.transaction(async () => {
      await store.saveSession(session);
      await store.appendAudit(id, "ai.session.created", { target: input.target, mode: input.mode }, now);
    });
    return session;
  }

  private async checkTarget(input: CreateSessionInput, exists: boolean, view: EffectiveView): Promise<void> {
    const { target, mode } = input;
    const label = describeTarget(target);
    if (target.type === "node" && !(await view.workflow(target.workflowId)).value) {
      throw new BuilderError("AI_TARGET_NOT_FOUND", `No workflow has the id "${target.workflowId}"; a node session starts from an existing workflow.`, { target });
    }
    if (target.type === "asset") {
      const state = await view.assets.state(target.path);
      if (state.kind === "refused") throw new BuilderError("AI_TARGET_NOT_FOUND", `${target.path} cannot be used: ${state.message}`, { target, code: state.code });
    }
    if (mode === "optimize" && !exists) throw new BuilderError("AI_TARGET_NOT_FOUND", `${label} does not exist; to make it, start the session with mode "create".`, { target });
    if (mode === "create" && exists) throw new BuilderError("AI_TARGET_EXISTS", `${label} already exists; to improve it, start the session with mode "optimize".`, { target });
  }

  /** Runs one user message to the end (model replies, tool calls, repair rounds). One at a time per session. */
  async message(sessionId: string, text: string, userId?: string): Promise<BuilderTurn> {
    await this.changeSets.requireActive(sessionId);
    if (this.running.has(sessionId)) {
      throw new BuilderError("AI_SESSION_BUSY", "This session is still working on the previous message; wait for it, or stop it with POST …/interrupt.", { sessionId });
    }
    const controller = new AbortController();
    this.running.set(sessionId, controller);
    try {
      return await this.turns.run(sessionId, text, controller.signal, userId);
    } finally {
      this.running.delete(sessionId);
    }
  }

  /** Stops the running turn, if any; the session stays active. */
  async interrupt(sessionId: string): Promise<boolean> {
    await this.changeSets.requireSession(sessionId);
    const controller = this.running.get(sessionId);
    controller?.abort();
    return controller !== undefined;
  }

  /** Seed 001 §5.2 cancel: the session ends, its working copy is discarded, nothing stored is touched. */
  async cancel(sessionId: string): Promise<SessionRecord> {
    const { store, storage } = this.ctx;
    this.running.get(sessionId)?.abort();
    return storage.transaction(async () => {
      const session = await this.changeSets.lockActive(sessionId);
      const now = Date.now();
      for (const open of await store.listChangeSets(sessionId, "open")) await store.saveChangeSet({ ...open, status: "rejected", statusReason: "cancelled", updatedAt: now });
      await store.clearOverlay(sessionId);
      const next: SessionRecord = { ...session, status: "cancelled", updatedAt: now };
      await store.saveSession(next);
      await store.appendAudit(sessionId, "ai.session.cancelled", {}, now);
      return next;
    });
  }

  /** Widens or narrows what the session may change beyond its target. */
  async setScope(sessionId: string, scope: SessionScope): Promise<SessionRecord> {
    const { store, storage } = this.ctx;
    return storage.transaction(async () => {
      const session = await this.changeSets.lockActive(sessionId);
      const home = targetObject(session.target);
      const next: SessionRecord = { ...session, scope: { extra: scope.extra.filter((l) => !(l.type === home.type && l.id === home.id)) }, updatedAt: Date.now() };
      await store.saveSession(next);
      return next;
    });
  }
}

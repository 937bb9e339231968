import { randomUUID } from "node:crypto";
import { isOpenChangeSet, type BuilderIssue } from "@weft/types";
import { viewOf, type BuilderContext } from "../builder-context.ts";
import type { StageRequest } from "../domain/change-set.ts";
import { BuilderError } from "../domain/errors.ts";
import type { ChangeSetRecord, SessionRecord } from "../domain/records.ts";
import { stageOperations } from "../overlay/stage-operations.ts";
import { validateChange } from "../validation/pipeline.ts";

export type StageOutcome = { ok: true; changeSet: ChangeSetRecord; notes: string[] } | { ok: false; errors: BuilderIssue[] };

/** Stage, validate and discard (seed 001 §6.2): the same operations for the model's tools and the user's HTTP calls. */
export class ChangeSetService {
  constructor(private readonly ctx: BuilderContext) {}

  async requireSession(sessionId: string): Promise<SessionRecord> {
    return this.found(sessionId, await this.ctx.store.getSession(sessionId));
  }

  async requireActive(sessionId: string): Promise<SessionRecord> {
    return this.active(sessionId, await this.requireSession(sessionId));
  }

  /** `requireActive` inside a transaction: the session stays locked until it ends, so its writers take turns (see BuilderStore.getSession). */
  async lockActive(sessionId: string): Promise<SessionRecord> {
    return this.active(sessionId, this.found(sessionId, await this.ctx.store.getSession(sessionId, "lock")));
  }

  private found(sessionId: string, session: SessionRecord | undefined): SessionRecord {
    if (!session) throw new BuilderError("NOT_FOUND", `No Builder session has the id "${sessionId}". GET /api/builder/sessions lists them.`, { kind: "builder session", id: sessionId });
    return session;
  }

  private active(sessionId: string, session: SessionRecord): SessionRecord {
    if (session.status !== "active") {
      throw new BuilderError("AI_SESSION_NOT_ACTIVE", `Builder session "${sessionId}" is ${session.status}; start a new session to make more changes.`, { status: session.status });
    }
    return session;
  }

  /** The change set `id` of this session, or its latest one when `id` is absent. */
  async require(session: SessionRecord, id?: string): Promise<ChangeSetRecord> {
    const wanted = id ?? session.latestChangeSetId;
    const cs = wanted === undefined ? undefined : await this.ctx.store.getChangeSet(wanted);
    if (!cs || cs.sessionId !== session.id) {
      throw new BuilderError("NOT_FOUND", wanted === undefined ? "Nothing has been staged in this session yet." : `Builder session "${session.id}" has no change set "${wanted}".`, {
        kind: "change set",
        id: wanted ?? null,
      });
    }
    return cs;
  }

  async requireOpen(session: SessionRecord, id?: string): Promise<ChangeSetRecord> {
    const cs = await this.require(session, id);
    if (cs.status === "superseded") {
      throw new BuilderError("AI_CHANGESET_SUPERSEDED", `Change set ${cs.id} (version ${cs.version}) was replaced by a later stage (${session.latestChangeSetId}); use the latest one.`, {
        latestChangeSetId: session.latestChangeSetId ?? null,
      });
    }
    if (!isOpenChangeSet(cs)) {
      throw new BuilderError("AI_CHANGESET_NOT_APPLICABLE", `Change set ${cs.id} is ${cs.status}${cs.statusReason ? ` (${cs.statusReason})` : ""}; stage a new change to continue.`, {
        status: cs.status,
      });
    }
    return cs;
  }

  /** Adds operations to the working copy and records the result as the session's new change set. */
  async stage(sessionId: string, request: StageRequest): Promise<StageOutcome> {
    const session = await this.requireActive(sessionId);
    const staged = await stageOperations(await viewOf(this.ctx, session), request.operations);
    if (!staged.ok) return staged;
    const { store, storage } = this.ctx;
    const changeSet = await storage.transaction(async () => {
      // Re-read: the session may have been cancelled while the operations were being worked out.
      const fresh = await this.lockActive(sessionId);
      const now = Date.now();
      await store.putOverlay(sessionId, staged.entries, now);
      for (const open of await store.listChangeSets(sessionId, "open")) await store.saveChangeSet({ ...open, status: "superseded", updatedAt: now });
      const record: ChangeSetRecord = {
        id: `cs_${randomUUID()}`,
        sessionId,
        version: await store.nextVersion(sessionId),
        status: "staged",
        summary: request.summary,
        operations: request.operations,
        entries: await store.overlay(sessionId),
        createdAt: now,
        updatedAt: now,
      };
      await store.saveChangeSet(record);
      await store.saveSession({ ...fresh, latestChangeSetId: record.id, updatedAt: now });
      return record;
    });
    return { ok: true, changeSet, notes: staged.notes };
  }

  /** Runs the validation pipeline on a change set and records the report (`validated`, or `rejected` as invalid). */
  async validate(sessionId: string, changeSetId?: string): Promise<ChangeSetRecord> {
    const session = await this.requireActive(sessionId);
    const cs = await this.requireOpen(session, changeSetId);
    const report = await validateChange({
      session,
      entries: cs.entries,
      view: await viewOf(this.ctx, session, cs.entries),
      catalog: this.ctx.catalog,
      validator: this.ctx.validator,
      llmProfileExists: async (id) => (await this.ctx.storage.llmProfiles.get(id)) !== undefined,
    });
    const { store, storage } = this.ctx;
    return storage.transaction(async () => {
      // The session's lock first, so an apply or stage of this session cannot change the change set under this write.
      await store.getSession(sessionId, "lock");
      const current = await store.getChangeSet(cs.id);
      // Superseded or applied meanwhile: its status is no longer the validation's to set.
      if (!current || !isOpenChangeSet(current)) return { ...cs, validation: report };
      const now = Date.now();
      const next: ChangeSetRecord = { ...current, validation: report, updatedAt: now, status: report.valid ? "validated" : "rejected" };
      if (report.valid) delete next.statusReason;
      else next.statusReason = "invalid";
      await store.saveChangeSet(next);
      await store.appendAudit(
        sessionId,
        report.valid ? "ai.validation.passed" : "ai.validation.failed",
        {
          changeSetId: cs.id,
          version: cs.version,
          errors: report.errors.map((e) => e.code),
          warnings: report.warnings.map((w) => w.code),
        },
        now,
      );
      return next;
    });
  }

  /** Drops the working copy and rejects the latest change set: reads show the stored objects again. */
  async discard(sessionId: string, changeSetId?: string): Promise<ChangeSetRecord> {
    const { store, storage } = this.ctx;
    return storage.transaction(async () => {
      const session = await this.lockActive(sessionId);
      const cs = await this.requireOpen(session, changeSetId);
      const now = Date.now();
      const next: ChangeSetRecord = { ...cs, status: "rejected", statusReason: "discarded", updatedAt: now };
      await store.saveChangeSet(next);
      await store.clearOverlay(sessionId);
      await store.saveSession({ ...session, updatedAt: now });
      await store.appendAudit(sessionId, "ai.change.discarded", { changeSetId: cs.id, version: cs.version }, now);
      return next;
    });
  }
}

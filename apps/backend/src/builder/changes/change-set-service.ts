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

  requireSession(sessionId: string): SessionRecord {
    const session = this.ctx.repo.getSession(sessionId);
    if (!session) throw new BuilderError("NOT_FOUND", `No Builder session has the id "${sessionId}". GET /api/builder/sessions lists them.`, { kind: "builder session", id: sessionId });
    return session;
  }

  requireActive(sessionId: string): SessionRecord {
    const session = this.requireSession(sessionId);
    if (session.status !== "active") {
      throw new BuilderError("AI_SESSION_NOT_ACTIVE", `Builder session "${sessionId}" is ${session.status}; start a new session to make more changes.`, { status: session.status });
    }
    return session;
  }

  /** The change set `id` of this session, or its latest one when `id` is absent. */
  require(session: SessionRecord, id?: string): ChangeSetRecord {
    const wanted = id ?? session.latestChangeSetId;
    const cs = wanted === undefined ? undefined : this.ctx.repo.getChangeSet(wanted);
    if (!cs || cs.sessionId !== session.id) {
      throw new BuilderError("NOT_FOUND", wanted === undefined ? "Nothing has been staged in this session yet." : `Builder session "${session.id}" has no change set "${wanted}".`, {
        kind: "change set",
        id: wanted ?? null,
      });
    }
    return cs;
  }

  requireOpen(session: SessionRecord, id?: string): ChangeSetRecord {
    const cs = this.require(session, id);
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
    const session = this.requireActive(sessionId);
    const staged = await stageOperations(viewOf(this.ctx, session), request.operations);
    if (!staged.ok) return staged;
    const { repo } = this.ctx;
    const changeSet = repo.transaction(() => {
      // Re-read: the session may have been cancelled while the operations were being worked out.
      const fresh = this.requireActive(sessionId);
      const now = Date.now();
      repo.putOverlay(sessionId, staged.entries, now);
      for (const open of repo.openChangeSets(sessionId)) repo.updateChangeSet({ ...open, status: "superseded", updatedAt: now });
      const record: ChangeSetRecord = {
        id: `cs_${randomUUID()}`,
        sessionId,
        version: repo.nextVersion(sessionId),
        status: "staged",
        summary: request.summary,
        operations: request.operations,
        entries: repo.overlay(sessionId),
        createdAt: now,
        updatedAt: now,
      };
      repo.insertChangeSet(record);
      repo.updateSession({ ...fresh, latestChangeSetId: record.id, updatedAt: now });
      return record;
    });
    return { ok: true, changeSet, notes: staged.notes };
  }

  /** Runs the validation pipeline on a change set and records the report (`validated`, or `rejected` as invalid). */
  async validate(sessionId: string, changeSetId?: string): Promise<ChangeSetRecord> {
    const session = this.requireActive(sessionId);
    const cs = this.requireOpen(session, changeSetId);
    const report = await validateChange({
      session,
      entries: cs.entries,
      view: viewOf(this.ctx, session, cs.entries),
      catalog: this.ctx.catalog,
      validator: this.ctx.validator,
      llmProfileExists: async (id) => (await this.ctx.storage.llmProfiles.get(id)) !== undefined,
    });
    const { repo } = this.ctx;
    return repo.transaction(() => {
      const current = repo.getChangeSet(cs.id);
      // Superseded or applied meanwhile: its status is no longer the validation's to set.
      if (!current || !isOpenChangeSet(current)) return { ...cs, validation: report };
      const now = Date.now();
      const next: ChangeSetRecord = { ...current, validation: report, updatedAt: now, status: report.valid ? "validated" : "rejected" };
      if (report.valid) delete next.statusReason;
      else next.statusReason = "invalid";
      repo.updateChangeSet(next);
      repo.appendAudit(
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
  discard(sessionId: string, changeSetId?: string): ChangeSetRecord {
    const { repo } = this.ctx;
    return repo.transaction(() => {
      const session = this.requireActive(sessionId);
      const cs = this.requireOpen(session, changeSetId);
      const now = Date.now();
      const next: ChangeSetRecord = { ...cs, status: "rejected", statusReason: "discarded", updatedAt: now };
      repo.updateChangeSet(next);
      repo.clearOverlay(sessionId);
      repo.updateSession({ ...session, updatedAt: now });
      repo.appendAudit(sessionId, "ai.change.discarded", { changeSetId: cs.id, version: cs.version }, now);
      return next;
    });
  }
}

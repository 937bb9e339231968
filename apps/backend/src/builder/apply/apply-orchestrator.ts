import { z } from "zod";
import { APPLY_CONFIRM_SOURCE, type RevisionBase, type RevisionWarning, messageOf } from "@weft/types";
import { assetsFor, viewOf, type BuilderContext } from "../builder-context.ts";
import type { ChangeSetService } from "../changes/change-set-service.ts";
import type { OverlayEntry } from "../domain/change-set.ts";
import { BuilderError } from "../domain/errors.ts";
import type { ChangeSetRecord, SessionRecord } from "../domain/records.ts";
import { sha256Text, type AssetAccess } from "../overlay/asset-access.ts";
import type { EffectiveView } from "../overlay/effective-view.ts";
import type { DocumentRepository } from "../../storage/document-table.ts";
import type { BuilderStorage } from "../builder-storage.ts";

const revisions = z.record(z.string(), z.number().int().min(0).nullable());
export const RevisionBaseInputSchema = z
  .object({ workflows: revisions.optional(), agents: revisions.optional(), scenes: revisions.optional(), assets: z.record(z.string(), z.string().nullable()).optional() })
  .strict();
export type RevisionBaseInput = z.infer<typeof RevisionBaseInputSchema>;

export interface ApplyRequest {
  changeSetId: string;
  confirmSource: string;
  /** The revisions the user reviewed (the preview's `revisionBase`); by default the ones the change was staged on. */
  revisionBase?: RevisionBaseInput;
  /** The user saw the revision warnings and applies anyway (warning-first, seed 001 §5.2). */
  confirmStale?: boolean;
}

export type ApplyResult =
  | { applied: true; sessionStatus: "active"; changeSetId: string; newRevision: RevisionBase; warnings: RevisionWarning[] }
  | { applied: false; requiresConfirmation: true; changeSetId: string; warnings: RevisionWarning[] };

/** One object as apply found it before writing: the change, the stored state and what to restore. */
interface Planned {
  entry: OverlayEntry;
  current: number | string | null;
  before: unknown;
}

const PLURAL: Record<OverlayEntry["type"], keyof RevisionBase> = { workflow: "workflows", agent: "agents", scene: "scenes", asset: "assets" };

function fieldOf(entry: Pick<OverlayEntry, "type" | "key">): string {
  return `${PLURAL[entry.type]}[${JSON.stringify(entry.key)}].${entry.type === "asset" ? "sha256" : "revision"}`;
}

type DocumentEntry = Exclude<OverlayEntry, { type: "asset" }>;

function repositoryOf(storage: BuilderStorage, entry: DocumentEntry) {
  switch (entry.type) {
    case "workflow":
      return storage.workflows;
    case "agent":
      return storage.agents;
    case "scene":
      return storage.scenes;
    default: {
      const never: never = entry;
      return never;
    }
  }
}

/** The change's revision field moved while apply ran: nothing is applied. */
function conflict(entry: Pick<OverlayEntry, "type" | "key">, current: number | null): BuilderError {
  return new BuilderError("AI_APPLY_CONFLICT", `${fieldOf(entry)} changed while the change was being applied (now ${current ?? "deleted"}); nothing was applied. Review the preview and apply again.`, {
    field: fieldOf(entry),
    current,
  });
}

/**
 * Writes one document over `stored` (the revision apply found; null: none), inside the storage's
 * transaction: create at revision 1, update or delete only from `stored` (optimistic, in the same
 * statement, so a writer on another connection that got in first makes it a conflict). Returns the
 * new revision.
 */
async function writeWith<T extends { id: string; name: string; revision: number }>(
  repo: DocumentRepository<T>,
  entry: { type: DocumentEntry["type"]; key: string; value: T | null },
  stored: number | null,
): Promise<number | null> {
  if (entry.value === null) {
    if (stored !== null && !(await repo.delete(entry.key, stored))) throw conflict(entry, await repo.revision(entry.key));
    return null;
  }
  if (stored === null) {
    const created = await repo.create(entry.value);
    if (created.kind === "created") return created.record.document.revision;
    throw conflict(entry, await repo.revision(entry.key));
  }
  const updated = await repo.update(entry.value, stored);
  switch (updated.kind) {
    case "updated":
      return updated.record.document.revision;
    case "conflict":
      throw conflict(entry, updated.current.document.revision);
    case "not-found":
      throw conflict(entry, null);
    default: {
      const never: never = updated;
      return never;
    }
  }
}

function writeDocument(storage: BuilderStorage, entry: DocumentEntry, stored: number | null): Promise<number | null> {
  switch (entry.type) {
    case "workflow":
      return writeWith(storage.workflows, entry, stored);
    case "agent":
      return writeWith(storage.agents, entry, stored);
    case "scene":
      return writeWith(storage.scenes, entry, stored);
    default: {
      const never: never = entry;
      return never;
    }
  }
}

/**
 * Apply (seed 001 §9), only ever from the user's request: re-validate against the store as it is
 * now, compare revisions (a stale base is a non-blocking warning the user confirms), write assets
 * through the ToolHost, then every document, the change set's status, the audit event and the
 * working-copy reset in one transaction of the server's storage (SQLite or PostgreSQL). A failure rolls back (assets are restored) and is
 * reported as AI_APPLY_FAILED / AI_APPLY_CONFLICT with its cause; the session stays active.
 */
export class ApplyOrchestrator {
  constructor(
    private readonly ctx: BuilderContext,
    private readonly changeSets: ChangeSetService,
  ) {}

  async apply(sessionId: string, request: ApplyRequest): Promise<ApplyResult> {
    if (request.confirmSource !== APPLY_CONFIRM_SOURCE) {
      throw new BuilderError("AI_CONFIRM_SOURCE_REQUIRED", `Apply needs confirmSource "${APPLY_CONFIRM_SOURCE}": only the user's confirmation in the workbench applies a change.`, {
        expected: APPLY_CONFIRM_SOURCE,
      });
    }
    const session = await this.changeSets.requireActive(sessionId);
    await this.changeSets.requireOpen(session, request.changeSetId);
    const cs = await this.changeSets.validate(sessionId, request.changeSetId);
    if (!cs.validation?.valid) {
      throw new BuilderError("AI_CHANGESET_INVALID", `Change set ${cs.id} does not pass validation (${cs.validation?.errors.length ?? 0} errors); nothing was applied.`, {
        errors: cs.validation?.errors ?? [],
      });
    }
    const assets = assetsFor(this.ctx, session);
    const planned = await this.plan(cs, await viewOf(this.ctx, session, cs.entries));
    const warnings = this.compare(planned, request.revisionBase);
    if (warnings.length > 0 && request.confirmStale !== true) {
      await this.ctx.store.appendAudit(sessionId, "ai.apply.revision_mismatch", { changeSetId: cs.id, warnings: warnings.map((w) => ({ field: w.field, provided: w.provided, current: w.current })) });
      return { applied: false, requiresConfirmation: true, changeSetId: cs.id, warnings };
    }

    const written = await this.writeAssets(session, cs, planned, assets);
    try {
      const newRevision = await this.commit(session, cs, planned, warnings, written);
      return { applied: true, sessionStatus: "active", changeSetId: cs.id, newRevision, warnings };
    } catch (error) {
      const leftoverFiles = await this.restoreAssets(written, assets);
      const cause = messageOf(error);
      await this.ctx.store.appendAudit(sessionId, "ai.apply.failed", { changeSetId: cs.id, cause, leftoverFiles });
      if (error instanceof BuilderError) throw new BuilderError(error.code, error.message, { ...error.details, leftoverFiles });
      this.ctx.log.error("builder apply failed", { sessionId, changeSetId: cs.id, cause });
      throw new BuilderError("AI_APPLY_FAILED", `Applying ${cs.id} failed and was rolled back: ${cause}`, { cause, leftoverFiles });
    }
  }

  private async plan(cs: ChangeSetRecord, view: EffectiveView): Promise<Planned[]> {
    const planned: Planned[] = [];
    for (const entry of cs.entries) {
      if (entry.type === "asset") {
        const state = await view.assets.state(entry.key);
        if (state.kind === "refused") throw new BuilderError("AI_CHANGESET_INVALID", `${entry.key}: ${state.message}`, { path: entry.key, code: state.code });
        planned.push({ entry, current: state.kind === "file" ? state.sha256 : null, before: state.kind === "file" ? state.content : null });
        continue;
      }
      const stored = await view.repository(entry.type).get(entry.key);
      planned.push({ entry, current: stored ? stored.document.revision : null, before: stored?.document ?? null });
    }
    return planned;
  }

  /** Warning-first revision comparison: every object whose stored state is not the one the change (or the user) was based on. */
  private compare(planned: readonly Planned[], given: RevisionBaseInput | undefined): RevisionWarning[] {
    const warnings: RevisionWarning[] = [];
    for (const { entry, current } of planned) {
      const fromUser = given?.[PLURAL[entry.type]];
      const provided = fromUser && entry.key in fromUser ? (fromUser[entry.key] ?? null) : entry.base;
      if (provided === current) continue;
      const field = fieldOf(entry);
      warnings.push({
        code: "AI_REVISION_BASE_MISMATCH",
        stage: "revision",
        message: `${field} mismatch: the change is based on ${provided === null ? "no stored version" : provided}, the store now has ${current === null ? "none" : current}`,
        hint: "someone changed it since the change was staged: review the preview again; applying replaces their version (it stays in the audit event)",
        objectType: entry.type,
        objectKey: entry.key,
        field,
        provided,
        current,
        blocking: false,
      });
    }
    return warnings;
  }

  private async writeAssets(session: SessionRecord, cs: ChangeSetRecord, planned: readonly Planned[], assets: AssetAccess): Promise<Planned[]> {
    const written: Planned[] = [];
    for (const item of planned) {
      const { entry } = item;
      if (entry.type !== "asset") continue;
      if (entry.value === null) throw new BuilderError("AI_APPLY_FAILED", `${entry.key}: assets cannot be deleted by the Builder.`, { path: entry.key });
      const result = await assets.write(entry.key, entry.value, item.current as string | null);
      if (!result.ok) {
        const leftoverFiles = await this.restoreAssets(written, assets);
        const cause = `${entry.key}: ${result.error.code} ${result.error.message}`;
        await this.ctx.store.appendAudit(session.id, "ai.apply.failed", { changeSetId: cs.id, cause, leftoverFiles });
        const conflict = result.error.code === "E_PRECONDITION_FAILED" || result.error.code === "EEXIST";
        throw new BuilderError(conflict ? "AI_APPLY_CONFLICT" : "AI_APPLY_FAILED", `Applying ${cs.id} stopped, nothing stored was changed: ${cause}`, { cause, path: entry.key, leftoverFiles });
      }
      written.push(item);
    }
    return written;
  }

  /**
   * Puts back the files an interrupted apply replaced. The tools never delete files, so a file the
   * apply created stays; its path is returned for the error report.
   */
  private async restoreAssets(written: readonly Planned[], assets: AssetAccess): Promise<string[]> {
    const leftover: string[] = [];
    for (const item of written) {
      if (typeof item.before !== "string") {
        leftover.push(item.entry.key);
        continue;
      }
      const now = await assets.state(item.entry.key);
      const result = await assets.write(item.entry.key, item.before, now.kind === "file" ? now.sha256 : null);
      if (!result.ok) {
        leftover.push(item.entry.key);
        this.ctx.log.error("builder apply could not restore an asset", { path: item.entry.key, code: result.error.code });
      }
    }
    return leftover;
  }

  private async commit(session: SessionRecord, cs: ChangeSetRecord, planned: readonly Planned[], warnings: readonly RevisionWarning[], written: readonly Planned[]): Promise<RevisionBase> {
    const { store, storage } = this.ctx;
    return storage.transaction(async () => {
      const fresh = await this.changeSets.lockActive(session.id);
      const current = await this.changeSets.requireOpen(fresh, cs.id);
      const now = Date.now();
      const newRevision: RevisionBase = { workflows: {}, agents: {}, scenes: {}, assets: {} };
      const objects: Record<string, unknown>[] = [];
      for (const { entry, current: seen, before } of planned) {
        if (entry.type === "asset") {
          const after = written.find((w) => w.entry.key === entry.key);
          newRevision.assets[entry.key] = after && entry.value !== null ? sha256Text(entry.value) : null;
          objects.push({ type: "asset", key: entry.key, from: seen, to: newRevision.assets[entry.key], before });
          continue;
        }
        const stored = await repositoryOf(storage, entry).revision(entry.key);
        if (stored !== seen) throw conflict(entry, stored);
        const next = await writeDocument(storage, entry, stored);
        newRevision[PLURAL[entry.type] as "workflows" | "agents" | "scenes"][entry.key] = next;
        objects.push({ type: entry.type, key: entry.key, from: stored, to: next, before });
      }
      const appliedRevisions = objects.map((o) => ({ type: o.type as OverlayEntry["type"], key: o.key as string, revision: o.to as number | string | null }));
      await store.saveChangeSet({ ...current, status: "applied", appliedRevisions, updatedAt: now });
      await store.clearOverlay(session.id);
      await store.saveSession({ ...fresh, updatedAt: now });
      await store.appendAudit(
        session.id,
        "ai.apply.succeeded",
        { changeSetId: cs.id, version: cs.version, confirmSource: APPLY_CONFIRM_SOURCE, objects, warnings: warnings.map((w) => ({ field: w.field, provided: w.provided, current: w.current })) },
        now,
      );
      return newRevision;
    });
  }
}

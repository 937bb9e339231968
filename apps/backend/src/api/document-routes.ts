import { Elysia } from "elysia";
import { z } from "zod";
import { SaveMessageSchema, type LimitIssue, type Logger, type VersionAuthor } from "@weft/types";
import type { DocumentRepository, Listing, StoredDocument } from "../storage/document-table.ts";
import type { SaveNote } from "../storage/document-versions.ts";
import { versionRoutes } from "./version-routes.ts";
import { ApiError, jsonResponse, notFound } from "./errors.ts";
import { parseWith, readJsonBody } from "./body.ts";
import { refuseOverLimits } from "./write-limits.ts";

export interface DocumentRoutesOptions<T extends { id: string; name: string; revision: number }> {
  /** URL segment, e.g. `agents`. */
  segment: string;
  /** Singular key in bodies and answers, e.g. `agent`. */
  key: string;
  /** Plural key of the list answer, e.g. `agents`. */
  listKey: string;
  /** How errors name the kind, e.g. `agent profile`. */
  kind: string;
  schema: z.ZodType<T>;
  repo: DocumentRepository<T>;
  maxBodyBytes: number;
  /** Its ids, names and descriptions over their write limits (`@weft/types` write-limits.ts), checked on create and update. */
  limits: (document: T) => LimitIssue[];
  /** Checks beyond the schema (e.g. references to other documents); returns problems to refuse with. */
  check?: (document: T) => Promise<{ path: (string | number)[]; message: string }[]>;
  /**
   * Refuses a write the request's principal may not make (throws an ApiError); runs after `check`, on a
   * creation (`stored` undefined) and an update (`stored`: the document it replaces).
   */
  guard?: (document: T, request: Request, stored: T | undefined) => Promise<void>;
  /**
   * Fields only the server sets (a scene's `forkOf`, set by its fork route): given what a write sent and the stored
   * document it replaces (undefined on a creation), the document to store, with the stored values of those fields.
   */
  serverSet?: (document: T, stored: T | undefined) => T;
  /** Told of every stored creation, update and deletion, with the document before and after (e.g. to record who changed it). */
  onWritten?: (change: DocumentWrite<T>, request: Request) => Promise<void>;
  /** Cleans up what hangs on a document once it is deleted (e.g. a scene's runtime state). */
  onDeleted?: (id: string) => Promise<void>;
  /** Who a request acts for: each save's version names them. */
  savedBy: (request: Request) => VersionAuthor | undefined;
  log: Logger;
}

/** One write through the routes: `before` is the stored document it replaced, `after` the one stored. */
export type DocumentWrite<T> = { kind: "created"; after: T } | { kind: "updated"; before: T | undefined; after: T } | { kind: "deleted"; before: T };

/**
 * A list answer: `{ <listKey>: items }`, plus `skipped` (id, code, message) when stored records
 * could not be read; those are also logged, so a broken record is seen without breaking the list.
 */
export function listAnswer<T>(listKey: string, listing: Listing<T>, log: Logger): Response {
  if (listing.skipped.length === 0) return jsonResponse({ [listKey]: listing.items });
  log.warn("stored records left out of a list: they do not read", { list: listKey, skipped: listing.skipped });
  return jsonResponse({ [listKey]: listing.items, skipped: listing.skipped });
}

/**
 * CRUD with optimistic concurrency for a revisioned document kind (agent profiles, scenes):
 * list, get, create (the document, or `{ <key>: document }`), update with `{ <key>, baseRevision }`, delete.
 */
export function documentRoutes<T extends { id: string; name: string; revision: number }>(o: DocumentRoutesOptions<T>) {
  const base = `/api/${o.segment}`;
  const UpdateBody = z.object({ [o.key]: z.unknown(), baseRevision: z.number().int().min(0), message: SaveMessageSchema.optional() }).strict();
  const answer = (record: StoredDocument<T>, status = 200) => jsonResponse({ [o.key]: record.document, updatedAt: record.updatedAt }, status);

  async function parseDocument(value: unknown, where: string): Promise<T> {
    const document = parseWith(o.schema, value, where);
    refuseOverLimits(o.limits(document), where);
    const problems = o.check ? await o.check(document) : [];
    if (problems.length > 0) {
      throw new ApiError("VALIDATION_FAILED", `${where}.${problems[0].path.join(".")}: ${problems[0].message}`, {
        issues: problems.map((p) => ({ ...p, code: "custom" })),
      });
    }
    return document;
  }

  /** An update (PUT, or a restore of an old version): checked, guarded and stored as one save. */
  async function update(request: Request, id: string, raw: unknown, baseRevision: number, note: SaveNote, where: string): Promise<Response> {
    const parsed = await parseDocument(raw, where);
    if (parsed.id !== id) {
      throw new ApiError("VALIDATION_FAILED", `${where}.id is "${parsed.id}" but the path names "${id}"; they must match.`, {
        issues: [{ path: [o.key, "id"], message: "must equal the id in the path", code: "custom" }],
      });
    }
    const before = o.onWritten || o.guard || o.serverSet ? (await o.repo.get(id))?.document : undefined;
    // Judged against `before`'s revision: a write based on another one is a conflict below, whatever it kept.
    const document = o.serverSet ? o.serverSet(parsed, before) : parsed;
    // The guard judges the write against what it replaces: a revision other than that one is a conflict below.
    if (before?.revision === baseRevision) await o.guard?.(document, request, before);
    const result = await o.repo.update(document, baseRevision, note);
    switch (result.kind) {
      case "updated":
        await o.onWritten?.({ kind: "updated", before, after: result.record.document }, request);
        return answer(result.record);
      case "conflict":
        throw new ApiError(
          "REVISION_CONFLICT",
          `The ${o.kind} "${id}" is at revision ${result.current.document.revision}, not ${baseRevision}: it was saved meanwhile. Reload it (details.current), reapply your change and save with baseRevision ${result.current.document.revision}.`,
          { currentRevision: result.current.document.revision, current: result.current.document },
        );
      case "not-found":
        throw notFound(o.kind, id, `Create it with POST ${base}.`);
      default: {
        const never: never = result;
        return never;
      }
    }
  }

  return new Elysia()
    .use(
      versionRoutes<T>({
        segment: o.segment,
        kind: o.kind,
        repo: o.repo,
        maxBodyBytes: o.maxBodyBytes,
        savedBy: o.savedBy,
        save: (request, document, baseRevision, note) => update(request, (document as { id: string }).id, document, baseRevision, note, "the restored version"),
      }),
    )
    .get(base, async () => {
      const { items, skipped } = await o.repo.list();
      return listAnswer(o.listKey, { items: items.map((r) => ({ ...r.document, updatedAt: r.updatedAt })), skipped }, o.log);
    })
    .get(`${base}/:id`, async ({ params }) => {
      const record = await o.repo.get(params.id);
      if (!record) throw notFound(o.kind, params.id, `GET ${base} lists them.`);
      return answer(record);
    })
    .post(base, async ({ request }) => {
      const raw = await readJsonBody(request, o.maxBodyBytes);
      const wrapped = typeof raw === "object" && raw !== null && !Array.isArray(raw) && o.key in raw && !("id" in raw);
      const parsed = await parseDocument(wrapped ? (raw as Record<string, unknown>)[o.key] : raw, wrapped ? `body.${o.key}` : "body");
      const document = o.serverSet ? o.serverSet(parsed, undefined) : parsed;
      await o.guard?.(document, request, undefined);
      const by = o.savedBy(request);
      const result = await o.repo.create(document, by ? { by } : {});
      if (result.kind === "exists") {
        throw new ApiError("ALREADY_EXISTS", `A ${o.kind} with the id "${document.id}" exists; pick another id, or update it with PUT ${base}/${document.id}.`, { id: document.id });
      }
      await o.onWritten?.({ kind: "created", after: result.record.document }, request);
      return answer(result.record, 201);
    })
    .put(`${base}/:id`, async ({ params, request }) => {
      const body = parseWith(UpdateBody, await readJsonBody(request, o.maxBodyBytes), "body");
      const by = o.savedBy(request);
      const note: SaveNote = { ...(by ? { by } : {}), ...(body.message ? { message: body.message as string } : {}) };
      return await update(request, params.id, body[o.key], body.baseRevision as number, note, `body.${o.key}`);
    })
    .delete(`${base}/:id`, async ({ params, request }) => {
      const before = o.onWritten ? await o.repo.get(params.id) : undefined;
      // With a hook, only the revision it read is deleted, so the record names the document that went.
      if (!(await o.repo.delete(params.id, before?.document.revision))) throw notFound(o.kind, params.id);
      if (before) await o.onWritten?.({ kind: "deleted", before: before.document }, request);
      await o.onDeleted?.(params.id);
      return jsonResponse({ ok: true });
    });
}

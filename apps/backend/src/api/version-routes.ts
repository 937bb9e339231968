import { Elysia } from "elysia";
import { z } from "zod";
import { jsonDiff, SaveMessageSchema, type DocumentVersion, type GraphDiff, type VersionAuthor } from "@weft/types";
import type { DocumentRepository } from "../storage/document-table.ts";
import type { SaveNote } from "../storage/document-versions.ts";
import { ApiError, jsonResponse, notFound } from "./errors.ts";
import { parseWith, readBody } from "./body.ts";

export interface VersionRoutesOptions<T extends { id: string; name: string; revision: number }> {
  /** URL segment, e.g. `workflows`. */
  segment: string;
  /** How errors name the kind, e.g. `workflow`. */
  kind: string;
  repo: DocumentRepository<T>;
  maxBodyBytes: number;
  /** Workflows: the node-by-node difference of two versions' contents (`graphDiff`). */
  graph?: (before: unknown, after: unknown) => GraphDiff | undefined;
  /**
   * Stores `document` over revision `baseRevision` exactly as the kind's update route does (its checks, guards and
   * hooks), noting `note` on the version it makes; answers as that route does.
   */
  save: (request: Request, document: unknown, baseRevision: number, note: SaveNote) => Promise<Response>;
  /** Who a request acts for (the version's author). */
  savedBy: (request: Request) => VersionAuthor | undefined;
}

export const VersionPageQuery = z.object({
  limit: z.coerce.number().int().min(1).max(200).default(50),
  before: z.coerce.number().int().min(1).optional(),
});
const VersionNumber = z.coerce.number().int().min(1);
export const RestoreBody = z.object({ baseRevision: z.number().int().min(0), message: SaveMessageSchema.optional() }).strict();

/**
 * A revisioned document kind's version history (`../storage/document-versions.ts`): list (newest first, paged), one
 * version's content, the difference of two, and restore (a new save whose content is the old version's, with the
 * same optimistic revision check as an update). Readers read; restoring is a save (route-rules.ts: editors).
 */
export function versionRoutes<T extends { id: string; name: string; revision: number }>(o: VersionRoutesOptions<T>) {
  const base = `/api/${o.segment}`;

  async function requireDocument(id: string): Promise<void> {
    if ((await o.repo.revision(id)) === null) throw notFound(o.kind, id, `GET /api/${o.segment} lists them.`);
  }

  async function content(id: string, raw: string | undefined, where: string): Promise<{ version: DocumentVersion; content: unknown }> {
    const number = parseWith(VersionNumber, raw, where);
    const found = await o.repo.versions.get(id, number);
    if (!found) {
      const latest = (await o.repo.versions.latest(id))?.number ?? 0;
      throw new ApiError(
        "NOT_FOUND",
        `The ${o.kind} "${id}" has no version ${number} (its versions are 1 to ${latest}, fewer if retention removed old ones; GET /api/${o.segment}/${id}/versions lists them).`,
        {
          id,
          version: number,
        },
      );
    }
    return found;
  }

  return new Elysia()
    .get(`${base}/:id/versions`, async ({ params, query }) => {
      const page = parseWith(VersionPageQuery, query, "query");
      await requireDocument(params.id);
      const versions = await o.repo.versions.list(params.id, page.limit + 1, page.before);
      const latest = page.before === undefined ? (versions[0]?.number ?? 0) : ((await o.repo.versions.latest(params.id))?.number ?? 0);
      const more = versions.length > page.limit;
      const shown = versions.slice(0, page.limit);
      return jsonResponse({ versions: shown, latest, ...(more ? { nextBefore: shown[shown.length - 1].number } : {}) });
    })
    .get(`${base}/:id/versions/:n`, async ({ params }) => {
      await requireDocument(params.id);
      return jsonResponse(await content(params.id, params.n, "path.n"));
    })
    .get(`${base}/:id/versions/:n/diff/:to`, async ({ params }) => {
      await requireDocument(params.id);
      const [a, b] = [await content(params.id, params.n, "path.n"), await content(params.id, params.to, "path.to")];
      const graph = o.graph?.(a.content, b.content);
      return jsonResponse({ from: a.version.number, to: b.version.number, changes: jsonDiff(a.content, b.content), ...(graph ? { graph } : {}) });
    })
    .post(`${base}/:id/versions/:n/restore`, async ({ params, request }) => {
      const body = await readBody(request, RestoreBody, o.maxBodyBytes);
      await requireDocument(params.id);
      const old = await content(params.id, params.n, "path.n");
      const by = o.savedBy(request);
      const note: SaveNote = { ...(by ? { by } : {}), message: body.message || `Restored version ${old.version.number}` };
      const document = { ...(old.content as Record<string, unknown>), id: params.id, revision: body.baseRevision };
      return await o.save(request, document, body.baseRevision, note);
    });
}

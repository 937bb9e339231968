import { z } from "zod";
import { DocumentVersionSchema, SaveMessageSchema, VersionDiffSchema, VersionPageSchema } from "@weft/types";
import { RestoreBody, VersionPageQuery } from "./version-routes.ts";
import { NodeCatalogAnswer } from "./health.ts";

/**
 * The OpenAPI route registry's parts: each domain describes its own routes next to their handlers
 * (`…_ROUTES` in its `*-api.ts`), and the composition (../api-routes.ts) hands the whole list to openapi.ts.
 */

export type HttpMethod = "GET" | "POST" | "PUT" | "DELETE";

/** One route as the OpenAPI document describes it: the zod schemas its handler reads with, where it has them. */
export interface ApiRoute {
  method: HttpMethod;
  /** Elysia's form, `:id` for a parameter. */
  path: string;
  tag: string;
  summary: string;
  body?: z.ZodType;
  /** The handler takes no body as `{}` (a generated client may send none). */
  bodyOptional?: boolean;
  query?: z.ZodObject;
  /** The success answer's body; absent where the answer is described in docs/api.md only. */
  response?: z.ZodType;
  /** The success status (default 200; 204 answers no body). */
  status?: number;
  /** The success answer's media type, where it is not JSON (the reference page's HTML). */
  mediaType?: string;
  /** The refusals' body where a route speaks another protocol's error shape (the OpenAI-compatible `/v1/`); default the API's. */
  error?: z.ZodType;
}

export const route = (method: HttpMethod, path: string, tag: string, summary: string, more: Omit<ApiRoute, "method" | "path" | "tag" | "summary"> = {}): ApiRoute => ({
  method,
  path,
  tag,
  summary,
  ...more,
});

/** `{ <key>: document, baseRevision }`, the update body of every revisioned document kind. */
const documentUpdate = (key: string) => z.object({ [key]: z.unknown(), baseRevision: z.number().int().min(0), message: SaveMessageSchema.optional() }).strict();

/** `{ ok: true }`: what a delete and other acknowledgements answer. */
export const OkAnswer = z.object({ ok: z.literal(true) });

/** A stored record that could not be read, left out of a list answer (`listAnswer` in document-routes.ts). */
export const SkippedRecordSchema = z.object({ id: z.string(), code: z.string(), message: z.string() });

/**
 * The version history of a document kind (`versionRoutes` in version-routes.ts). `content`: the kind's schema without
 * `revision`; `saved`: what its update answers (a restore answers the same); `graph`: whether diffs have one (workflows).
 */
export function versionRouteEntries(segment: string, tag: string, content: z.ZodType, saved: z.ZodType, graph: boolean): ApiRoute[] {
  const base = `/api/${segment}/:id/versions`;
  return [
    route("GET", base, tag, `List one of ${segment}'s versions, newest first`, { query: VersionPageQuery, response: VersionPageSchema }),
    route("GET", `${base}/:n`, tag, "Get one version with its content", { response: z.object({ version: DocumentVersionSchema, content }) }),
    route("GET", `${base}/:n/diff/:to`, tag, "The difference from version n to version to", { response: graph ? VersionDiffSchema : VersionDiffSchema.omit({ graph: true }) }),
    route("POST", `${base}/:n/restore`, tag, "Restore a version: a new save whose content is that version's", { body: RestoreBody, response: saved }),
  ];
}

/** CRUD of a revisioned document kind (`documentRoutes` in document-routes.ts) and its versions, each answer as that function sends it. */
export function documentRouteEntries(segment: string, tag: string, key: string, schema: z.ZodObject<{ revision: z.ZodType }>): ApiRoute[] {
  const base = `/api/${segment}`;
  const stored = z.object({ [key]: schema, updatedAt: z.number().describe("milliseconds since the epoch") });
  const list = z.object({ [segment]: z.array(z.intersection(schema, z.object({ updatedAt: z.number() }))), skipped: z.array(SkippedRecordSchema).optional() });
  return [
    route("GET", base, tag, `List ${segment}`, { response: list }),
    route("POST", base, tag, `Create one of ${segment}`, { body: schema, response: stored, status: 201 }),
    route("GET", `${base}/:id`, tag, `Get one of ${segment}`, { response: stored }),
    route("PUT", `${base}/:id`, tag, `Update one of ${segment} (optimistic concurrency on baseRevision)`, { body: documentUpdate(key), response: stored }),
    route("DELETE", `${base}/:id`, tag, `Delete one of ${segment}`, { response: OkAnswer }),
    // A version's content is the document without its revision. Rebuilt from the shape: a refined schema (a scene's) has no
    // omit, and the refinements do not show in a JSON Schema.
    ...versionRouteEntries(segment, tag, z.object(schema.shape).omit({ revision: true }), stored, false),
  ];
}

/** This document, as far as a client needs to know its shape (the OpenAPI 3.1 schema describes the rest). */
const OpenApiDocumentAnswer = z.looseObject({ openapi: z.literal("3.1.0"), info: z.looseObject({ title: z.string(), version: z.string() }), paths: z.record(z.string(), z.unknown()) });

/** The kit's own routes: the node catalog and this document. (`GET /api/health` is ops/'s.) */
export const KIT_ROUTES: readonly ApiRoute[] = [
  route("GET", "/api/nodes", "health", "The node catalog: every node type with its ports", { response: NodeCatalogAnswer }),
  route("GET", "/api/openapi.json", "health", "This OpenAPI document", { response: OpenApiDocumentAnswer }),
  route("GET", "/api/reference", "health", "This document as a browsable page (HTML)", { response: z.string(), mediaType: "text/html; charset=utf-8" }),
];

import { Elysia } from "elysia";
import { z } from "zod";
import {
  graphDiff,
  MAX_ID_CHARS,
  MAX_NAME_CHARS,
  SaveMessageSchema,
  ValidationIssueSchema,
  WorkflowSchema,
  WorkflowSummarySchema,
  workflowLimitIssues,
  type VersionAuthor,
  type Workflow,
} from "@weft/types";
import type { Logger } from "@weft/types";
import { ApiError, answer, notFound } from "../api/errors.ts";
import { listAnswer } from "../api/document-routes.ts";
import { parseWith, readBody, readJsonBody } from "../api/body.ts";
import { refuseOverLimits } from "../api/write-limits.ts";
import { OkAnswer, SkippedRecordSchema, route, versionRouteEntries, type ApiRoute } from "../api/openapi-routes.ts";
import { versionRoutes } from "../api/version-routes.ts";
import type { StoredDocument } from "../storage/document-table.ts";
import type { SaveNote } from "../storage/document-versions.ts";
import type { WorkflowsStorage } from "./workflow-repository.ts";
import type { WorkflowCaches } from "./workflow-caches.ts";
import { SKILL_CALLING_TYPES } from "./skill-references.ts";
import type { WorkflowValidator } from "./workflow-validator.ts";
import { refuseBuiltIn } from "./built-in-guard.ts";
import { refuseBadErrorWorkflow } from "./error-workflow-check.ts";

export interface WorkflowsApiDeps {
  storage: WorkflowsStorage;
  validator: WorkflowValidator;
  /** A saved workflow's output cache is dropped with it. */
  caches: WorkflowCaches;
  maxBodyBytes: number;
  log: Logger;
  /** The shipped workflows: built-in ones are refused to every writer; both are marked in answers. */
  shipped: () => Promise<{ builtIn: ReadonlySet<string>; examples: ReadonlySet<string> }>;
  /** Who a request acts for: each save's version names them (the composition reads the trust boundary's principal). */
  savedBy: (request: Request) => VersionAuthor | undefined;
  /** Told of each stored save (a restore too; a new workflow is never on): the composition re-arms its schedules at once. */
  onSaved?: (workflowId: string) => void;
}

const CreateBody = z.object({ workflow: z.unknown() }).strict();
const UpdateBody = z.object({ workflow: z.unknown(), baseRevision: z.number().int().min(0), message: SaveMessageSchema.optional().describe("why: kept with the version this save makes") }).strict();
const DuplicateBody = z
  .object({
    id: z
      .string()
      .min(1)
      .max(MAX_ID_CHARS)
      .regex(/^[^\s/]+$/, "contains no whitespace and no /")
      .optional(),
    name: z.string().trim().min(1).max(MAX_NAME_CHARS).optional(),
  })
  .strict();
const ValidateBody = z.object({ workflow: z.unknown() }).strict();

/** `{ workflow, updatedAt }`: what a create, an update and a duplicate answer. */
const StoredWorkflow = z.object({ workflow: WorkflowSchema, updatedAt: z.number().describe("milliseconds since the epoch") });
const ImportedWorkflow = StoredWorkflow.extend({ renamedFrom: z.string().optional().describe("the id in the file, when it was taken") });
const WorkflowAnswer = StoredWorkflow.extend({ createdAt: z.number(), builtIn: z.literal(true).optional().describe("agents run it: duplicate it to change it") });
const CallersAnswer = z.object({ workflows: z.array(z.object({ id: z.string(), name: z.string() })) });
const ValidationAnswer = z.object({ ok: z.boolean(), issues: z.array(ValidationIssueSchema) });

/** A workflow from a request body, to be stored: within the write limits too. */
function parseWorkflow(value: unknown, where: string): Workflow {
  const workflow = parseWith(WorkflowSchema, value, where);
  refuseOverLimits(workflowLimitIssues(workflow), where);
  return workflow;
}

export function workflowsApi(deps: WorkflowsApiDeps) {
  const { storage, maxBodyBytes } = deps;
  const repo = storage.workflows;
  const builtIns = async () => (await deps.shipped()).builtIn;

  async function requireWorkflow(id: string): Promise<StoredDocument<Workflow>> {
    const record = await repo.get(id);
    if (!record) throw notFound("workflow", id, "GET /api/workflows lists them.");
    return record;
  }

  /** `base`, or `base-2`, `base-3`… whichever is free. */
  async function freeId(base: string): Promise<string> {
    const taken = new Set(await repo.ids());
    if (!taken.has(base)) return base;
    let n = 2;
    while (taken.has(`${base}-${n}`)) n++;
    return `${base}-${n}`;
  }

  /** An update (PUT, or a restore of an old version): checked and stored as one save. */
  async function update(id: string, raw: unknown, baseRevision: number, note: SaveNote, where: string): Promise<Response> {
    await refuseBuiltIn(builtIns, id, "change");
    const workflow = parseWorkflow(raw, where);
    if (workflow.id !== id) {
      throw new ApiError("VALIDATION_FAILED", `${where}.id is "${workflow.id}" but the path names "${id}"; to save under a new id use POST /api/workflows/${id}/duplicate.`, {
        issues: [{ path: ["workflow", "id"], message: "must equal the id in the path", code: "custom" }],
      });
    }
    refuseBadErrorWorkflow(workflow, (w) => repo.isStored(w), where);
    const result = await repo.update(workflow, baseRevision, note);
    switch (result.kind) {
      case "updated":
        deps.onSaved?.(id);
        // The cache stays: its keys cover config and inputs, so unchanged nodes are reused after the edit.
        return answer(StoredWorkflow, { workflow: result.record.document, updatedAt: result.record.updatedAt });
      case "conflict":
        throw new ApiError(
          "REVISION_CONFLICT",
          `Workflow "${id}" is at revision ${result.current.document.revision}, not ${baseRevision}: someone saved it meanwhile. Reload it (details.current), reapply your change and save with baseRevision ${result.current.document.revision}.`,
          { currentRevision: result.current.document.revision, current: result.current.document },
        );
      case "not-found":
        throw notFound("workflow", id, "Create it with POST /api/workflows.");
      default: {
        const never: never = result;
        return never;
      }
    }
  }

  /** Who saved, for a create. */
  const createdBy = (request: Request): SaveNote => {
    const by = deps.savedBy(request);
    return by ? { by } : {};
  };

  return new Elysia()
    .use(
      versionRoutes<Workflow>({
        segment: "workflows",
        kind: "workflow",
        repo,
        maxBodyBytes,
        savedBy: deps.savedBy,
        graph: (before, after) => {
          const [b, a] = [WorkflowSchema.safeParse(before), WorkflowSchema.safeParse(after)];
          return b.success && a.success ? graphDiff(b.data, a.data) : undefined;
        },
        save: (_request, document, baseRevision, note) => update((document as { id: string }).id, document, baseRevision, note, "the restored version"),
      }),
    )
    .get("/api/workflows", async () => {
      const [summaries, shipped] = await Promise.all([repo.summaries(), deps.shipped()]);
      const origin = (id: string) => (shipped.builtIn.has(id) ? "built-in" : shipped.examples.has(id) ? "example" : undefined);
      const items = summaries.items.map((s) => {
        const o = origin(s.id);
        return o ? { ...s, origin: o } : s;
      });
      return listAnswer("workflows", { ...summaries, items }, deps.log);
    })
    .get("/api/workflows/:id", async ({ params }) => {
      const [record, shipped] = await Promise.all([requireWorkflow(params.id), deps.shipped()]);
      return answer(WorkflowAnswer, { workflow: record.document, createdAt: record.createdAt, updatedAt: record.updatedAt, ...(shipped.builtIn.has(params.id) ? { builtIn: true } : {}) });
    })
    .post("/api/workflows", async ({ request }) => {
      const body = await readBody(request, CreateBody, maxBodyBytes);
      const workflow = parseWorkflow(body.workflow, "body.workflow");
      refuseBadErrorWorkflow(workflow, (w) => repo.isStored(w), "body.workflow");
      const result = await repo.create(workflow, createdBy(request));
      if (result.kind === "exists") {
        throw new ApiError("ALREADY_EXISTS", `A workflow with the id "${workflow.id}" exists; pick another id, or save over it with PUT /api/workflows/${workflow.id}.`, { id: workflow.id });
      }
      return answer(StoredWorkflow, { workflow: result.record.document, updatedAt: result.record.updatedAt }, 201);
    })
    .put("/api/workflows/:id", async ({ params, request }) => {
      const body = await readBody(request, UpdateBody, maxBodyBytes);
      const by = deps.savedBy(request);
      return await update(params.id, body.workflow, body.baseRevision, { ...(by ? { by } : {}), ...(body.message ? { message: body.message } : {}) }, "body.workflow");
    })
    .get("/api/workflows/:id/callers", async ({ params }) => {
      // Not requireWorkflow: callers of a deleted skill are exactly the ones to find and fix.
      const callers = await repo.callersOf(params.id, SKILL_CALLING_TYPES);
      return answer(CallersAnswer, { workflows: callers.filter((w) => w.id !== params.id) });
    })
    .delete("/api/workflows/:id", async ({ params }) => {
      await refuseBuiltIn(builtIns, params.id, "delete");
      if (!(await repo.delete(params.id))) throw notFound("workflow", params.id);
      deps.caches.drop(params.id);
      return answer(OkAnswer, { ok: true });
    })
    .post("/api/workflows/:id/duplicate", async ({ params, request }) => {
      const body = await readBody(request, DuplicateBody, maxBodyBytes, { allowEmpty: true });
      const source = await requireWorkflow(params.id);
      const id = body.id ?? (await freeId(`${params.id}-copy`));
      const copy: Workflow = { ...source.document, id, name: body.name ?? `${source.document.name.slice(0, MAX_NAME_CHARS - 7)} (copy)` };
      // The source may predate the limits: its copy is a new write.
      refuseOverLimits(workflowLimitIssues(copy), "the copy");
      const result = await repo.create(copy, { ...createdBy(request), message: `Duplicated from ${params.id}` });
      if (result.kind === "exists") throw new ApiError("ALREADY_EXISTS", `A workflow with the id "${id}" exists; pick another id.`, { id });
      return answer(StoredWorkflow, { workflow: result.record.document, updatedAt: result.record.updatedAt }, 201);
    })
    .get("/api/workflows/:id/export", async ({ params }) => {
      const { document } = await requireWorkflow(params.id);
      const filename = `${document.id.replace(/[^A-Za-z0-9._-]/g, "_")}.json`;
      return new Response(JSON.stringify(document, null, 2) + "\n", {
        headers: { "content-type": "application/json; charset=utf-8", "content-disposition": `attachment; filename="${filename}"` },
      });
    })
    .post("/api/workflows/import", async ({ request }) => {
      const workflow = parseWorkflow(await readJsonBody(request, maxBodyBytes), "body");
      const id = await freeId(workflow.id);
      // A copy beside an original of the same name is told apart by its name too, not only by its id.
      const sameName = id !== workflow.id && (await repo.get(workflow.id))?.document.name === workflow.name;
      refuseBadErrorWorkflow({ ...workflow, id }, (w) => repo.isStored(w), "body");
      const result = await repo.create({ ...workflow, id, ...(sameName ? { name: `${workflow.name} (imported)` } : {}) }, { ...createdBy(request), message: "Imported" });
      if (result.kind === "exists") throw new ApiError("ALREADY_EXISTS", `A workflow with the id "${id}" was created meanwhile; import again.`, { id });
      return answer(ImportedWorkflow, { workflow: result.record.document, updatedAt: result.record.updatedAt, ...(id !== workflow.id ? { renamedFrom: workflow.id } : {}) }, 201);
    })
    .post("/api/workflows/validate", async ({ request }) => {
      const body = await readBody(request, ValidateBody, maxBodyBytes);
      const result = deps.validator.validate(body.workflow);
      return answer(ValidationAnswer, result.ok ? { ok: true, issues: [] } : { ok: false, issues: result.issues });
    });
}

/** The workflow routes, as the OpenAPI document describes them. */
export const WORKFLOWS_ROUTES: readonly ApiRoute[] = [
  route("GET", "/api/workflows", "workflows", "List workflows", { response: z.object({ workflows: z.array(WorkflowSummarySchema), skipped: z.array(SkippedRecordSchema).optional() }) }),
  route("POST", "/api/workflows", "workflows", "Create a workflow", { body: CreateBody, response: StoredWorkflow, status: 201 }),
  route("POST", "/api/workflows/validate", "workflows", "Validate a workflow without saving it", {
    body: ValidateBody,
    response: ValidationAnswer,
  }),
  route("POST", "/api/workflows/import", "workflows", "Import an exported workflow (a free id is chosen)", {
    response: ImportedWorkflow,
    status: 201,
  }),
  route("GET", "/api/workflows/:id", "workflows", "Get a workflow", {
    response: WorkflowAnswer,
  }),
  route("PUT", "/api/workflows/:id", "workflows", "Update a workflow (optimistic concurrency on baseRevision)", { body: UpdateBody, response: StoredWorkflow }),
  route("DELETE", "/api/workflows/:id", "workflows", "Delete a workflow", { response: OkAnswer }),
  route("GET", "/api/workflows/:id/export", "workflows", "Export a workflow as a file", { response: WorkflowSchema }),
  route("POST", "/api/workflows/:id/duplicate", "workflows", "Duplicate a workflow", { body: DuplicateBody, bodyOptional: true, response: StoredWorkflow, status: 201 }),
  route("GET", "/api/workflows/:id/callers", "workflows", "The workflows that call this skill", { response: CallersAnswer }),
  ...versionRouteEntries("workflows", "workflows", WorkflowSchema.omit({ revision: true }), StoredWorkflow, true),
];

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { mkdirSync, writeFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import { ValidationIssueSchema, WorkflowSchema, WorkflowSummarySchema } from "@weft/types";
import { ErrorBodySchema } from "../testing/error-body.ts";
import { startTestServer, templateWorkflow, tempDir, type TestServer } from "../testing/test-server.ts";

/** The answers read here, through the shared schemas. */
const WorkflowAnswer = z.object({ workflow: WorkflowSchema });
const WorkflowList = z.object({ workflows: z.array(WorkflowSummarySchema) });
const ValidateAnswer = z.object({ ok: z.boolean(), issues: z.array(ValidationIssueSchema) });
/** POST /api/workflows/import: the stored workflow, and the id it came with when that was taken. */
const ImportAnswer = WorkflowAnswer.extend({ renamedFrom: z.string().optional() });
/** A REVISION_CONFLICT's details: the current revision and workflow. */
const ConflictDetails = z.object({ currentRevision: z.number().int(), current: WorkflowSchema });
/** A VALIDATION_FAILED's details: one issue per refused field. */
const IssueDetails = z.object({ issues: z.array(z.object({ path: z.array(z.union([z.string(), z.number()])) })) });
const errorOf = (body: unknown) => ErrorBodySchema.parse(body).error;
/** Node specs kept whole (loose), so a leaked `execute` would show. */
const NodeList = z.object({ nodes: z.array(z.looseObject({ type: z.string(), inputs: z.array(z.unknown()) })) });

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ maxBodyBytes: 64 * 1024 });
});
afterAll(() => t.stop());

describe("workflows API", () => {
  it("creates, reads, lists and updates a workflow with revisions", async () => {
    const created = await t.call("POST", "/api/workflows", { workflow: templateWorkflow("crud") });
    expect(created.status).toBe(201);
    expect(WorkflowAnswer.parse(created.body).workflow.revision).toBe(1);

    const got = await t.call("GET", "/api/workflows/crud");
    expect(got.status).toBe(200);
    expect(WorkflowAnswer.parse(got.body).workflow.nodes.map((n) => n.id)).toEqual(["topic", "fill", "out"]);

    const list = await t.call("GET", "/api/workflows");
    const summary = WorkflowList.parse(list.body).workflows.find((w) => w.id === "crud");
    expect(summary).toMatchObject({ revision: 1, isSkill: true });
    expect(summary?.interface.inputs.map((p) => p.name)).toEqual(["topic"]);
    expect(typeof summary?.updatedAt).toBe("number");

    const renamed = { ...WorkflowAnswer.parse(got.body).workflow, name: "Renamed" };
    const updated = await t.call("PUT", "/api/workflows/crud", { workflow: renamed, baseRevision: 1 });
    expect(updated.status).toBe(200);
    expect(WorkflowAnswer.parse(updated.body).workflow).toMatchObject({ name: "Renamed", revision: 2 });
    const listed = WorkflowList.parse((await t.call("GET", "/api/workflows")).body).workflows.find((w) => w.id === "crud");
    expect(listed).toMatchObject({ name: "Renamed", revision: 2, nodeCount: 3, isSkill: true });
  });

  it("refuses a stale revision with 409 and the current version, overwriting nothing", async () => {
    await t.call("POST", "/api/workflows", { workflow: templateWorkflow("race") });
    const base = WorkflowAnswer.parse((await t.call("GET", "/api/workflows/race")).body).workflow;
    const first = await t.call("PUT", "/api/workflows/race", { workflow: { ...base, name: "Alice's edit" }, baseRevision: 1 });
    expect(first.status).toBe(200);

    const second = await t.call("PUT", "/api/workflows/race", { workflow: { ...base, name: "Bob's edit" }, baseRevision: 1 });
    expect(second.status).toBe(409);
    expect(errorOf(second.body).code).toBe("REVISION_CONFLICT");
    expect(ConflictDetails.parse(errorOf(second.body).details).currentRevision).toBe(2);
    expect(ConflictDetails.parse(errorOf(second.body).details).current.name).toBe("Alice's edit");

    const stored = WorkflowAnswer.parse((await t.call("GET", "/api/workflows/race")).body).workflow;
    expect(stored).toMatchObject({ name: "Alice's edit", revision: 2 });
  });

  it("refuses creating a taken id with 409 ALREADY_EXISTS", async () => {
    await t.call("POST", "/api/workflows", { workflow: templateWorkflow("taken", "first {{0}}") });
    const again = await t.call("POST", "/api/workflows", { workflow: templateWorkflow("taken", "second {{0}}") });
    expect(again.status).toBe(409);
    expect(errorOf(again.body).code).toBe("ALREADY_EXISTS");
    const stored = WorkflowAnswer.parse((await t.call("GET", "/api/workflows/taken")).body).workflow;
    expect(stored.nodes[1].config.template).toBe("first {{0}}");
  });

  it("duplicates, exports as a file and imports under a fresh id when the id is taken", async () => {
    await t.call("POST", "/api/workflows", { workflow: templateWorkflow("orig") });
    const dup = await t.call("POST", "/api/workflows/orig/duplicate");
    expect(dup.status).toBe(201);
    expect(WorkflowAnswer.parse(dup.body).workflow).toMatchObject({ id: "orig-copy", name: "Notes (copy)", revision: 1 });
    const dup2 = await t.call("POST", "/api/workflows/orig/duplicate", { id: "orig-b", name: "B" });
    expect(WorkflowAnswer.parse(dup2.body).workflow).toMatchObject({ id: "orig-b", name: "B" });

    const exported = await t.fetch("/api/workflows/orig/export");
    expect(exported.headers.get("content-disposition")).toBe('attachment; filename="orig.json"');
    const file = await exported.json();
    expect(file.id).toBe("orig");

    const imported = await t.call("POST", "/api/workflows/import", file);
    expect(imported.status).toBe(201);
    expect(ImportAnswer.parse(imported.body).workflow.id).toBe("orig-2");
    expect(ImportAnswer.parse(imported.body).renamedFrom).toBe("orig");
    expect(WorkflowAnswer.parse((await t.call("GET", "/api/workflows/orig")).body).workflow.revision).toBe(1);
  });

  it("validates a workflow and lists every problem", async () => {
    const ok = await t.call("POST", "/api/workflows/validate", { workflow: templateWorkflow("v") });
    expect(ok.body).toEqual({ ok: true, issues: [] });
    const broken = templateWorkflow("v2");
    broken.nodes.push({ id: "ghost", type: "core:no-such-node" });
    broken.edges!.push({ id: "dangling", source: "nowhere", sourceHandle: "x", target: "out", targetHandle: "value" });
    const bad = await t.call("POST", "/api/workflows/validate", { workflow: broken });
    expect(bad.status).toBe(200);
    expect(ValidateAnswer.parse(bad.body).ok).toBe(false);
    const codes = ValidateAnswer.parse(bad.body).issues.map((i) => i.code);
    expect(codes).toContain("UNKNOWN_NODE_TYPE");
    expect(codes).toContain("DANGLING_EDGE");
  });

  it("names a called skill that no saved workflow has, at its node, and lists a skill's callers", async () => {
    await t.call("POST", "/api/workflows", { workflow: templateWorkflow("callee") });
    const caller = { id: "caller", name: "Caller", nodes: [{ id: "call", type: "core:skill", config: { workflowId: "callee" }, inputs: {} }], edges: [] };
    expect((await t.call("POST", "/api/workflows", { workflow: caller })).status).toBe(201);
    expect((await t.call("POST", "/api/workflows/validate", { workflow: caller })).body).toEqual({ ok: true, issues: [] });
    expect((await t.call("GET", "/api/workflows/callee/callers")).body).toEqual({ workflows: [{ id: "caller", name: "Caller" }] });

    await t.call("DELETE", "/api/workflows/callee");
    const checked = await t.call("POST", "/api/workflows/validate", { workflow: caller });
    expect(ValidateAnswer.parse(checked.body).ok).toBe(false);
    expect(ValidateAnswer.parse(checked.body).issues).toMatchObject([{ code: "SKILL_NOT_FOUND", nodeId: "call" }]);
    // A run is refused up front, with the same issue, instead of failing at the node.
    const run = await t.call("POST", "/api/workflows/caller/runs", { inputs: {} });
    expect(run.status).toBe(400);
    expect(z.object({ issues: z.array(ValidationIssueSchema) }).parse(errorOf(run.body).details).issues).toMatchObject([{ code: "SKILL_NOT_FOUND", nodeId: "call" }]);
  });

  it("deletes, then answers 404 for the id", async () => {
    await t.call("POST", "/api/workflows", { workflow: templateWorkflow("gone") });
    expect((await t.call("DELETE", "/api/workflows/gone")).body).toEqual({ ok: true });
    const res = await t.call("GET", "/api/workflows/gone");
    expect(res.status).toBe(404);
    expect(errorOf(res.body).code).toBe("NOT_FOUND");
    expect((await t.call("DELETE", "/api/workflows/gone")).status).toBe(404);
  });
});

describe("bad requests", () => {
  async function snapshot() {
    return JSON.stringify((await t.call("GET", "/api/workflows")).body);
  }

  it("answer 4xx with a precise error and leave stored data unchanged", async () => {
    await t.call("POST", "/api/workflows", { workflow: templateWorkflow("guarded") });
    const before = await snapshot();
    const cases: [string, string, unknown, number, string][] = [
      ["POST", "/api/workflows", "{not json", 400, "INVALID_JSON"],
      ["POST", "/api/workflows", "", 400, "INVALID_JSON"],
      ["POST", "/api/workflows", { workflow: { id: "x", name: "X", nodes: "many" } }, 400, "VALIDATION_FAILED"],
      ["POST", "/api/workflows", { wf: templateWorkflow("typo") }, 400, "VALIDATION_FAILED"],
      ["PUT", "/api/workflows/guarded", { workflow: templateWorkflow("guarded") }, 400, "VALIDATION_FAILED"],
      ["PUT", "/api/workflows/guarded", { workflow: templateWorkflow("other"), baseRevision: 1 }, 400, "VALIDATION_FAILED"],
      ["PUT", "/api/workflows/guarded", { workflow: { ...templateWorkflow("guarded"), nodes: [{ id: "a b", type: "core:x" }] }, baseRevision: 1 }, 400, "VALIDATION_FAILED"],
      ["PUT", "/api/workflows/missing", { workflow: templateWorkflow("missing"), baseRevision: 1 }, 404, "NOT_FOUND"],
      ["GET", "/api/workflows/missing", undefined, 404, "NOT_FOUND"],
      ["POST", "/api/workflows/missing/duplicate", {}, 404, "NOT_FOUND"],
      ["POST", "/api/workflows/import", [1, 2, 3], 400, "VALIDATION_FAILED"],
      ["POST", "/api/workflows", { workflow: { ...templateWorkflow("huge"), description: "x".repeat(100 * 1024) } }, 413, "PAYLOAD_TOO_LARGE"],
      ["DELETE", "/api/nothing-here", undefined, 404, "NOT_FOUND"],
    ];
    for (const [method, path, body, status, code] of cases) {
      const res = await t.call(method, path, body);
      expect({ method, path, status: res.status, code: ErrorBodySchema.safeParse(res.body).data?.error.code }).toEqual({ method, path, status, code });
      expect(typeof errorOf(res.body).message).toBe("string");
      expect(errorOf(res.body).message).not.toMatch(/\bat .+:\d+:\d+/); // no stack trace
    }
    expect(await snapshot()).toBe(before);
  });

  it("names the wrong field in a validation error", async () => {
    const res = await t.call("POST", "/api/workflows", { workflow: { id: "x", name: "X", nodes: [{ id: "a", type: "Bad Type" }] } });
    expect(res.status).toBe(400);
    expect(errorOf(res.body).message).toContain("body.workflow.nodes.0.type");
    expect(IssueDetails.parse(errorOf(res.body).details).issues[0]?.path).toEqual(["nodes", 0, "type"]);
  });

  it("refuses a large body sent without Content-Length (chunked) with 413", async () => {
    const chunk = new TextEncoder().encode("x".repeat(16 * 1024));
    const stream = new ReadableStream<Uint8Array>({
      start(controller) {
        for (let i = 0; i < 8; i++) controller.enqueue(chunk);
        controller.close();
      },
    });
    const res = await t.fetch("/api/workflows/import", { method: "POST", body: stream, headers: { "content-type": "application/json" } });
    expect(res.status).toBe(413);
    expect((await res.json()).error.code).toBe("PAYLOAD_TOO_LARGE");
  });
});

describe("health, nodes and the editor", () => {
  it("reports health and node specs without implementations", async () => {
    expect((await t.call("GET", "/api/health")).body).toMatchObject({ ok: true, version: expect.any(String) });
    const { nodes } = NodeList.parse((await t.call("GET", "/api/nodes")).body);
    const template = nodes.find((n) => n.type === "core:text-template");
    expect(template?.inputs.length).toBeGreaterThan(0);
    expect(template).toBeDefined();
    expect(template?.execute).toBeUndefined();
  });

  it("says how to build the editor when it is not built", async () => {
    const bare = await startTestServer({ frontendDir: join(tempDir(), "no-dist") });
    try {
      const res = await fetch(`${bare.url}/some/editor/route`);
      expect(res.status).toBe(503);
      expect(await res.text()).toContain("bun run build:frontend");
    } finally {
      await bare.stop();
    }
  });

  it("serves the built editor with an SPA fallback, and nothing outside its folder", async () => {
    // The editor's folder inside a temp folder of its own, so the file beside it is in that temp folder, not in /tmp.
    const dist = join(tempDir("weft-dist-"), "dist");
    mkdirSync(join(dist, "assets"), { recursive: true });
    writeFileSync(join(dist, "index.html"), "<!doctype html><title>editor</title>");
    writeFileSync(join(dist, "assets", "app.js"), "console.log('app')");
    writeFileSync(join(dist, "..", "secret.txt"), "outside");
    const app = await startTestServer({ frontendDir: dist });
    try {
      expect(await (await fetch(`${app.url}/`)).text()).toContain("editor");
      expect(await (await fetch(`${app.url}/workflows/abc/runs`)).text()).toContain("editor");
      const js = await fetch(`${app.url}/assets/app.js`);
      expect(await js.text()).toBe("console.log('app')");
      expect(js.headers.get("cache-control")).toContain("immutable");
      expect((await fetch(`${app.url}/assets/missing.js`)).status).toBe(404);
      const escape = await fetch(`${app.url}/..%2fsecret.txt`);
      expect(await escape.text()).not.toBe("outside");
      const api = await app.fetch("/api/not-a-route");
      expect(api.status).toBe(404);
      expect((await api.json()).error.code).toBe("NOT_FOUND");
    } finally {
      await app.stop();
    }
  });
});

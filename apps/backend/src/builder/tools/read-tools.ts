import { z } from "zod";
import { isSkill, ObjectLocatorSchema, workflowInterface, type NodeSpec } from "@weft/types";
import { viewOf } from "../builder-context.ts";
import { findReferences } from "../references/references.ts";
import { defineTool, failure, type BuilderTool, type ToolOutcome } from "./tool-registry.ts";

const Id = z.string().min(1).max(200);

function notFound(kind: string, id: string): ToolOutcome {
  return failure("AI_OBJECT_NOT_FOUND", `No ${kind} "${id}" exists in the working copy or the store.`, 'list what exists with builder_objects_list {"type": …}');
}

function portsOf(spec: NodeSpec) {
  const port = (p: NodeSpec["inputs"][number]) => ({
    id: p.id,
    type: p.type,
    required: p.required,
    multi: p.multi,
    ...(p.default !== undefined ? { default: p.default } : {}),
    ...(p.description ? { description: p.description } : {}),
  });
  return {
    inputs: spec.inputs.map(port),
    outputs: spec.outputs.map((p) => ({ id: p.id, type: p.type, ...(p.description ? { description: p.description } : {}) })),
    config: spec.config.map((c) => ({
      id: c.id,
      kind: c.kind,
      required: c.required,
      ...(c.default !== undefined ? { default: c.default } : {}),
      ...(c.options ? { options: c.options } : {}),
      ...(c.description ? { description: c.description } : {}),
    })),
  };
}

const objectsList = defineTool({
  name: "builder.objects.list",
  description: "List the workflows, agent profiles or scenes that exist (the working copy over the store), optionally filtered by words in their id or name.",
  args: z.object({ type: z.enum(["workflow", "agent", "scene"]), query: z.string().max(200).optional().describe("words in the id or name") }).strict(),
  async run({ type, query }, env) {
    const view = await viewOf(env.ctx, env.session);
    const needle = query?.toLowerCase().trim() ?? "";
    const docs = (await view.all(type)).filter((d) => !needle || d.id.toLowerCase().includes(needle) || d.name.toLowerCase().includes(needle));
    const items = docs.map((d) => {
      const staged = view.entry(type, d.id) !== undefined;
      if (type === "workflow" && "nodes" in d) {
        const iface = workflowInterface(d);
        return { id: d.id, name: d.name, staged, isSkill: isSkill(d), inputs: iface.inputs.map((p) => `${p.name}: ${p.type}`), outputs: iface.outputs.map((p) => `${p.name}: ${p.type}`) };
      }
      return { id: d.id, name: d.name, staged };
    });
    return { ok: true, type, items };
  },
});

const workflowRead = defineTool({
  name: "builder.workflow.read",
  description: "Read a workflow as this session sees it (its staged version when there is one), with its interface.",
  args: z.object({ workflowId: Id }).strict(),
  async run({ workflowId }, env) {
    const wf = await (await viewOf(env.ctx, env.session)).workflow(workflowId);
    if (!wf.value) return notFound("workflow", workflowId);
    return { ok: true, source: wf.source, storedRevision: wf.storedRevision, workflow: wf.value, interface: workflowInterface(wf.value) };
  },
});

const nodeRead = defineTool({
  name: "builder.node.read",
  description: "Read one node of a workflow: the node, its node type's ports and config fields, and the edges into and out of it.",
  args: z.object({ workflowId: Id, nodeId: Id }).strict(),
  async run({ workflowId, nodeId }, env) {
    const wf = await (await viewOf(env.ctx, env.session)).workflow(workflowId);
    if (!wf.value) return notFound("workflow", workflowId);
    const node = wf.value.nodes.find((n) => n.id === nodeId);
    if (!node) return failure("AI_OBJECT_NOT_FOUND", `Workflow "${workflowId}" has no node "${nodeId}".`, `its nodes are: ${wf.value.nodes.map((n) => n.id).join(", ")}`);
    const spec = env.ctx.catalog.get(node.type)?.spec;
    return {
      ok: true,
      source: wf.source,
      storedRevision: wf.storedRevision,
      node,
      nodeType: spec ? { type: spec.type, title: spec.title, description: spec.description, ...portsOf(spec) } : null,
      incoming: wf.value.edges.filter((e) => e.target === nodeId),
      outgoing: wf.value.edges.filter((e) => e.source === nodeId),
    };
  },
});

const agentRead = defineTool({
  name: "builder.agent.read",
  description: "Read an agent profile as this session sees it (its staged version when there is one).",
  args: z.object({ agentId: Id }).strict(),
  async run({ agentId }, env) {
    const doc = await (await viewOf(env.ctx, env.session)).document("agent", agentId);
    return doc.value ? { ok: true, source: doc.source, storedRevision: doc.storedRevision, agent: doc.value } : notFound("agent profile", agentId);
  },
});

const sceneRead = defineTool({
  name: "builder.scene.read",
  description: "Read a scene as this session sees it (its staged version when there is one).",
  args: z.object({ sceneId: Id }).strict(),
  async run({ sceneId }, env) {
    const doc = await (await viewOf(env.ctx, env.session)).document("scene", sceneId);
    return doc.value ? { ok: true, source: doc.source, storedRevision: doc.storedRevision, scene: doc.value } : notFound("scene", sceneId);
  },
});

const assetRead = defineTool({
  name: "builder.asset.read",
  description: "Read a text asset (@project/… or @pkg/…), or its staged text. Long files: read a window of lines with offset (from 1) and limit.",
  args: z
    .object({
      path: z.string().min(1).max(1024).describe("e.g. @project/prompts/intro.md"),
      offset: z.number().int().min(1).max(1_000_000).optional().describe("first line to return, from 1"),
      limit: z.number().int().min(1).max(100_000).optional().describe("how many lines"),
    })
    .strict(),
  async run({ path, offset, limit }, env) {
    const view = await viewOf(env.ctx, env.session);
    const { state, source } = await view.asset(path);
    if (source === "stored") {
      const result = await view.assets.read(path, { ...(offset ? { offset } : {}), ...(limit ? { limit } : {}) });
      return result.ok
        ? { ...result, source }
        : result.error.code === "ENOENT"
          ? failure("ENOENT", result.error.message, "check the path with builder_refs_find, or create the asset with asset.put")
          : failure(result.error.code, result.error.message, "use a path inside @project/ or @pkg/", result.error.details);
    }
    if (state.kind !== "file") return failure("ENOENT", `${state.path} is deleted in this session's working copy.`, "stage it again with asset.put to bring it back");
    const lines = state.content.split(/(?<=\n)/);
    const start = offset ?? 1;
    const end = Math.min(lines.length, limit === undefined ? lines.length : start + limit - 1);
    return { ok: true, source, path: state.path, sha256: state.sha256, totalLines: lines.length, lineStart: start, lineEnd: end, content: lines.slice(start - 1, end).join("") };
  },
});

const refsFind = defineTool({
  name: "builder.refs.find",
  description: "Find references: which workflows, agents and scenes point at an object (inbound), and what it points at (outbound, with whether each exists).",
  args: z.object({ locator: ObjectLocatorSchema.describe("{ type: workflow | agent | scene | asset, id: the id, or the asset path }") }).strict(),
  async run({ locator }, env) {
    const report = await findReferences(await viewOf(env.ctx, env.session), locator);
    return { ok: true, locator, ...report };
  },
});

const catalogList = defineTool({
  name: "builder.catalog.list",
  description: "List the node types (atomic tools) workflows can use. With a query (words in the type, title or description) or a category, you get their ports and config fields.",
  args: z.object({ query: z.string().max(200).optional().describe('words that must all appear, e.g. "text template"'), category: z.string().max(100).optional() }).strict(),
  async run({ query, category }, env) {
    const words = (query ?? "").toLowerCase().split(/\s+/).filter(Boolean);
    const specs = env.ctx.catalog
      .list()
      .filter((s) => !category || s.category === category)
      .filter((s) => words.every((w) => `${s.type} ${s.title} ${s.description}`.toLowerCase().includes(w)));
    const detailed = specs.length <= 20;
    return {
      ok: true,
      count: specs.length,
      nodeTypes: specs.map((s) =>
        detailed ? { type: s.type, title: s.title, category: s.category, description: s.description, ...portsOf(s) } : { type: s.type, title: s.title, category: s.category },
      ),
      ...(detailed ? {} : { hint: "More than 20 types match: narrow with query or category to see ports and config fields." }),
    };
  },
});

export const READ_TOOLS: readonly BuilderTool[] = [objectsList, workflowRead, nodeRead, agentRead, sceneRead, assetRead, refsFind, catalogList];

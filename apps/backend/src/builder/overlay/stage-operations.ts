import type { BuilderIssue, Workflow } from "@weft/types";
import type { ChangeOperation, OverlayEntry } from "../domain/change-set.ts";
import type { DocumentType } from "../domain/target.ts";
import { overlayKey, type DocumentKinds, type EffectiveView } from "./effective-view.ts";
import { fillSkillPorts } from "./skill-ports.ts";

export type StageResult = { ok: true; entries: OverlayEntry[]; notes: string[] } | { ok: false; errors: BuilderIssue[] };

interface Current<T> {
  value: T | null;
  base: number | null;
}

const KIND_NAME: Record<DocumentType, string> = { workflow: "workflow", agent: "agent profile", scene: "scene" };

/**
 * Applies staged operations, in order, to the effective view and returns the working-copy entries
 * they produce (each object whole, with the stored state it is based on). Nothing is written here;
 * an operation that cannot apply (its object, node or edge does not exist) refuses the whole stage.
 */
export async function stageOperations(view: EffectiveView, operations: readonly ChangeOperation[]): Promise<StageResult> {
  const pending = new Map<string, OverlayEntry>();
  const errors: BuilderIssue[] = [];
  const notes: string[] = [];

  async function current<T extends DocumentType>(type: T, id: string): Promise<Current<DocumentKinds[T]>> {
    const entry = pending.get(overlayKey(type, id)) ?? view.entry(type, id);
    if (entry) return { value: entry.value as DocumentKinds[T] | null, base: entry.base as number | null };
    const effective = await view.document(type, id);
    return { value: effective.value ?? null, base: effective.storedRevision };
  }

  function put<T extends DocumentType>(type: T, id: string, base: number | null, value: DocumentKinds[T] | null): void {
    const stamped = value === null ? null : { ...value, revision: base ?? 0 };
    pending.set(overlayKey(type, id), { type, key: id, base, value: stamped } as OverlayEntry);
  }

  function missing(type: DocumentType, id: string, at: number): void {
    errors.push({
      code: "AI_OBJECT_NOT_FOUND",
      stage: "shape",
      message: `operations.${at}: no ${KIND_NAME[type]} "${id}" exists in the working copy or the store`,
      hint: `check the id with builder_objects_list {"type":"${type}"}, or create it with a ${type}.put operation first`,
      objectType: type,
      objectKey: id,
      path: `operations.${at}`,
    });
  }

  async function editWorkflow(id: string, at: number, edit: (wf: Workflow) => Workflow | string): Promise<void> {
    const now = await current("workflow", id);
    if (!now.value) return missing("workflow", id, at);
    const next = edit(now.value);
    if (typeof next === "string") {
      errors.push({
        code: "AI_PART_NOT_FOUND",
        stage: "shape",
        message: `operations.${at}: ${next}`,
        hint: "read the workflow with builder_workflow_read and use ids it has",
        objectType: "workflow",
        objectKey: id,
        path: `operations.${at}`,
      });
      return;
    }
    put("workflow", id, now.base, next);
  }

  for (const [at, op] of operations.entries()) {
    switch (op.op) {
      case "workflow.put": {
        const now = await current("workflow", op.workflow.id);
        put("workflow", op.workflow.id, now.base, op.workflow);
        break;
      }
      case "workflow.delete": {
        const now = await current("workflow", op.workflowId);
        if (!now.value) missing("workflow", op.workflowId, at);
        else put("workflow", op.workflowId, now.base, null);
        break;
      }
      case "node.put":
        await editWorkflow(op.workflowId, at, (wf) => {
          const exists = wf.nodes.some((n) => n.id === op.node.id);
          return { ...wf, nodes: exists ? wf.nodes.map((n) => (n.id === op.node.id ? op.node : n)) : [...wf.nodes, op.node] };
        });
        break;
      case "node.remove":
        await editWorkflow(op.workflowId, at, (wf) => {
          if (!wf.nodes.some((n) => n.id === op.nodeId)) return `workflow "${wf.id}" has no node "${op.nodeId}"`;
          const attached = wf.edges.filter((e) => e.source === op.nodeId || e.target === op.nodeId);
          if (attached.length > 0) notes.push(`Removing node "${op.nodeId}" also removed its edges ${attached.map((e) => `"${e.id}"`).join(", ")}.`);
          return { ...wf, nodes: wf.nodes.filter((n) => n.id !== op.nodeId), edges: wf.edges.filter((e) => !attached.includes(e)) };
        });
        break;
      case "edge.put":
        await editWorkflow(op.workflowId, at, (wf) => {
          const exists = wf.edges.some((e) => e.id === op.edge.id);
          return { ...wf, edges: exists ? wf.edges.map((e) => (e.id === op.edge.id ? op.edge : e)) : [...wf.edges, op.edge] };
        });
        break;
      case "edge.remove":
        await editWorkflow(op.workflowId, at, (wf) =>
          wf.edges.some((e) => e.id === op.edgeId) ? { ...wf, edges: wf.edges.filter((e) => e.id !== op.edgeId) } : `workflow "${wf.id}" has no edge "${op.edgeId}"`,
        );
        break;
      case "agent.put": {
        const now = await current("agent", op.agent.id);
        put("agent", op.agent.id, now.base, op.agent);
        break;
      }
      case "agent.delete": {
        const now = await current("agent", op.agentId);
        if (!now.value) missing("agent", op.agentId, at);
        else put("agent", op.agentId, now.base, null);
        break;
      }
      case "scene.put": {
        const now = await current("scene", op.scene.id);
        put("scene", op.scene.id, now.base, op.scene);
        break;
      }
      case "scene.delete": {
        const now = await current("scene", op.sceneId);
        if (!now.value) missing("scene", op.sceneId, at);
        else put("scene", op.sceneId, now.base, null);
        break;
      }
      case "asset.put": {
        const stored = await view.assets.state(op.path);
        const known = pending.get(overlayKey("asset", stored.path)) ?? view.entry("asset", stored.path);
        const base = known ? (known.base as string | null) : stored.kind === "file" ? stored.sha256 : null;
        pending.set(overlayKey("asset", stored.path), { type: "asset", key: stored.path, base, value: op.content });
        break;
      }
      default: {
        const never: never = op;
        return never;
      }
    }
  }
  if (errors.length > 0) return { ok: false, errors };

  const skillOf = async (id: string) => (await current("workflow", id)).value ?? undefined;
  const entries: OverlayEntry[] = [];
  for (const entry of pending.values()) {
    entries.push(entry.type === "workflow" && entry.value ? { ...entry, value: await fillSkillPorts(entry.value, skillOf) } : entry);
  }
  return { ok: true, entries, notes };
}

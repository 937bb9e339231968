import type { Workflow, WorkflowNode } from "@weft/types";
import { isDraft, refuse, subjectNode, type EditEnv } from "./builder-env.ts";
import type { BuilderIntent } from "./builder-intent.ts";
import { draftInsert } from "./builder-insert.ts";
import { coerceConfig, coerceInput, fits } from "./builder-ports.ts";
import type { Draft } from "./builder-reads.ts";

/** The change an intent asks for, the reads it still needs, or why it cannot be done. */
export function draftChange(intent: BuilderIntent, env: EditEnv): Draft {
  switch (intent.kind) {
    case "rename":
      if (intent.name === env.workflow.name) return refuse(`The workflow is already named "${intent.name}".`);
      return workflowFields(env, `Rename the workflow to "${intent.name}"`, { name: intent.name });
    case "describe":
      return workflowFields(env, "Set the workflow's description", { description: intent.description });
    case "set":
      return draftSet(intent, env);
    case "add":
      return draftInsert(intent, env);
    case "remove":
      return draftRemove(intent, env);
    default: {
      const never: never = intent;
      return never;
    }
  }
}

function workflowFields(env: EditEnv, summary: string, fields: Partial<Pick<Workflow, "name" | "description">>): Draft {
  if (env.target.type === "node") {
    return refuse(`This session may change only node "${env.target.nodeId}"; the workflow's name and description belong to a Builder session on workflow "${env.workflow.id}".`);
  }
  return { kind: "change", summary, operations: [{ op: "workflow.put", workflow: { ...env.workflow, ...fields } }] };
}

function draftSet(intent: Extract<BuilderIntent, { kind: "set" }>, env: EditEnv): Draft {
  const node = subjectNode(env, intent.node, "change");
  if (isDraft(node)) return node;
  const read = env.reads.nodes([node.id]);
  if (!read.ok) return read.draft;
  const facts = read.value.facts.get(node.id);
  if (!facts) return refuse(`I could not read node "${node.id}".`);
  const setting = intent.setting.toLowerCase();
  const shown = JSON.stringify(intent.value.length > 60 ? `${intent.value.slice(0, 59)}…` : intent.value);

  if (setting === "label" || setting === "title") {
    return nodeChange(env, `Set the label of node "${node.id}" to ${shown}`, { ...node, label: intent.value });
  }
  const field = facts.spec?.config.find((c) => c.id.toLowerCase() === setting);
  if (field) {
    const value = coerceConfig(intent.value, field);
    if (!value.ok) return refuse(`${field.id} of node "${node.id}" ${value.reason}.`);
    return nodeChange(env, `Set ${field.id} of node "${node.id}" to ${shown}`, { ...node, config: { ...node.config, [field.id]: value.value } });
  }
  const port = facts.inputs.find((p) => p.id.toLowerCase() === setting);
  if (port) {
    const fed = env.workflow.edges.find((e) => e.target === node.id && e.targetHandle === port.id);
    if (fed) return refuse(`Input ${port.id} of node "${node.id}" is connected (edge "${fed.id}" from "${fed.source}"), so a value set on it would be ignored.`);
    const value = coerceInput(intent.value, port);
    if (!value.ok) return refuse(`${port.id} of node "${node.id}" ${value.reason}.`);
    return nodeChange(env, `Set input ${port.id} of node "${node.id}" to ${shown}`, { ...node, inputs: { ...node.inputs, [port.id]: value.value } });
  }
  const settings = [
    ...(facts.spec?.config ?? []).map((c) => c.id),
    ...facts.inputs.filter((p) => !env.workflow.edges.some((e) => e.target === node.id && e.targetHandle === p.id)).map((p) => p.id),
    "label",
  ];
  return refuse(`Node "${node.id}" (${node.type}) has no setting "${intent.setting}". It has: ${settings.join(", ")}.`);
}

function nodeChange(env: EditEnv, summary: string, node: WorkflowNode): Draft {
  return { kind: "change", summary, operations: [{ op: "node.put", workflowId: env.workflow.id, node }] };
}

/**
 * Removes a node. In a workflow session a node with one incoming connection is bridged: what it
 * fed is fed from its source instead, where the ports' types allow (a node session may not wire other nodes).
 */
function draftRemove(intent: Extract<BuilderIntent, { kind: "remove" }>, env: EditEnv): Draft {
  const node = subjectNode(env, intent.node, "remove");
  if (isDraft(node)) return node;
  const { workflow } = env;
  const incoming = workflow.edges.filter((e) => e.target === node.id);
  const outgoing = workflow.edges.filter((e) => e.source === node.id);
  const bridge = env.target.type === "workflow" && incoming.length === 1 && outgoing.length > 0 ? incoming[0] : undefined;
  const read = env.reads.nodes(bridge ? [node.id, bridge.source, ...outgoing.map((e) => e.target)] : [node.id]);
  if (!read.ok) return read.draft;
  const { facts } = read.value;

  const operations: Record<string, unknown>[] = [];
  const bridged: string[] = [];
  const sourceType = bridge ? facts.get(bridge.source)?.outputs.find((p) => p.id === bridge.sourceHandle)?.type : undefined;
  if (bridge && sourceType) {
    for (const edge of outgoing) {
      const targetType = facts.get(edge.target)?.inputs.find((p) => p.id === edge.targetHandle)?.type;
      if (!targetType || !fits(sourceType, targetType)) continue;
      operations.push({ op: "edge.put", workflowId: workflow.id, edge: { ...edge, source: bridge.source, sourceHandle: bridge.sourceHandle } });
      bridged.push(`"${edge.target}"`);
    }
  }
  operations.push({ op: "node.remove", workflowId: workflow.id, nodeId: node.id });
  const summary = `Remove node "${node.id}"${bridged.length > 0 ? ` and connect "${bridge?.source}" to ${bridged.join(", ")} instead` : ""}`;
  return { kind: "change", summary, operations };
}

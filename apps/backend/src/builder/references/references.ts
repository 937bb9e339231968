import type { AgentProfile, ObjectLocator, Scene, Workflow } from "@weft/types";
import type { DocumentType } from "../domain/target.ts";
import type { DocumentKinds, EffectiveView } from "../overlay/effective-view.ts";
import { skillWorkflowId } from "../overlay/skill-ports.ts";

/** One reference from an object to another: which field holds it, and in which node for workflows. */
export interface Reference {
  from: ObjectLocator;
  to: ObjectLocator;
  /** Where the reference is written, e.g. `nodes.headline.config.workflowId`, `skills.0`, `persona`. */
  field: string;
  nodeId?: string;
}

const ASSET_MENTION = /@(?:project|pkg)\/[^\s"'`<>()[\]{},;|]+/g;

/** Asset paths written anywhere in a value's strings (an agent's persona, a node's config…). */
export function mentionedAssetPaths(value: unknown): string[] {
  const found = new Set<string>();
  const walk = (v: unknown): void => {
    if (typeof v === "string") {
      for (const m of v.matchAll(ASSET_MENTION)) found.add(m[0].replace(/[.:!?]+$/, ""));
    } else if (Array.isArray(v)) v.forEach(walk);
    else if (v !== null && typeof v === "object") Object.values(v).forEach(walk);
  };
  walk(value);
  return [...found].sort();
}

function assetRefs(from: ObjectLocator, value: unknown, field: string, nodeId?: string): Reference[] {
  return mentionedAssetPaths(value).map((path) => ({ from, to: { type: "asset", id: path }, field, ...(nodeId ? { nodeId } : {}) }));
}

function workflowRefs(wf: Workflow): Reference[] {
  const from: ObjectLocator = { type: "workflow", id: wf.id };
  const refs: Reference[] = [];
  for (const node of wf.nodes) {
    const skill = skillWorkflowId(node);
    if (skill !== undefined) refs.push({ from, to: { type: "workflow", id: skill }, field: `nodes.${node.id}.config.workflowId`, nodeId: node.id });
    refs.push(...assetRefs(from, { config: node.config, inputs: node.inputs }, `nodes.${node.id}`, node.id));
  }
  return refs;
}

function agentRefs(agent: AgentProfile): Reference[] {
  const from: ObjectLocator = { type: "agent", id: agent.id };
  return [
    { from, to: { type: "workflow", id: agent.deliberationWorkflowId }, field: "deliberationWorkflowId" },
    ...agent.skills.map((id, i): Reference => ({ from, to: { type: "workflow", id }, field: `skills.${i}` })),
    ...assetRefs(from, agent.persona, "persona"),
    ...assetRefs(from, agent.initialPrivateState, "initialPrivateState"),
  ];
}

function sceneRefs(scene: Scene): Reference[] {
  const from: ObjectLocator = { type: "scene", id: scene.id };
  return [
    ...scene.agents.map((a, i): Reference => ({ from, to: { type: "agent", id: a.profileId }, field: `agents.${i}.profileId` })),
    ...assetRefs(from, scene.initialWorldState, "initialWorldState"),
  ];
}

/** The references a document makes to other stored objects (node types are not objects: see validation). */
export function outboundReferences<T extends DocumentType>(type: T, document: DocumentKinds[T]): Reference[] {
  switch (type) {
    case "workflow":
      return workflowRefs(document as Workflow);
    case "agent":
      return agentRefs(document as AgentProfile);
    case "scene":
      return sceneRefs(document as Scene);
    default: {
      const never: never = type;
      return never;
    }
  }
}

/** Every reference among the effective documents: the index `builder.refs.find` and validation read. */
export async function allReferences(view: EffectiveView): Promise<Reference[]> {
  const [workflows, agents, scenes] = await Promise.all([view.all("workflow"), view.all("agent"), view.all("scene")]);
  return [...workflows.flatMap(workflowRefs), ...agents.flatMap(agentRefs), ...scenes.flatMap(sceneRefs)];
}

export interface ReferenceReport {
  inbound: Reference[];
  outbound: (Reference & { exists: boolean })[];
}

/** Who points at `locator`, and what it points at (seed 001 §6.1 `builder.refs.find`), in the effective view. */
export async function findReferences(view: EffectiveView, locator: ObjectLocator): Promise<ReferenceReport> {
  const all = await allReferences(view);
  const inbound = all.filter((r) => r.to.type === locator.type && r.to.id === locator.id);
  const outbound = all.filter((r) => r.from.type === locator.type && r.from.id === locator.id);
  const checked = await Promise.all(outbound.map(async (r) => ({ ...r, exists: await exists(view, r.to) })));
  return { inbound, outbound: checked };
}

export async function exists(view: EffectiveView, locator: ObjectLocator): Promise<boolean> {
  if (locator.type === "asset") return (await view.asset(locator.id)).state.kind === "file";
  return (await view.document(locator.type, locator.id)).value !== undefined;
}

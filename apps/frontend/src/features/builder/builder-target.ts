import { ASSET_PATH_PATTERN, type BuilderTarget, type BuilderTargetType } from "@weft/types";

/** The kinds of target the workbench offers, in the picker's order. */
export const TARGET_KINDS: readonly { type: BuilderTargetType; label: string }[] = [
  { type: "workflow", label: "Workflow" },
  { type: "node", label: "Node" },
  { type: "agent", label: "Agent" },
  { type: "scene", label: "Scene" },
  { type: "asset", label: "Asset" },
];

/** How the workbench names a target, e.g. `node "fill" of notes`. */
export function targetLabel(target: BuilderTarget): string {
  switch (target.type) {
    case "workflow":
      return target.workflowId;
    case "node":
      return `${target.nodeId} in ${target.workflowId}`;
    case "agent":
      return target.agentId;
    case "scene":
      return target.sceneId;
    case "asset":
      return target.path;
    default: {
      const never: never = target;
      return never;
    }
  }
}

export function sameTarget(a: BuilderTarget, b: BuilderTarget): boolean {
  return a.type === b.type && targetLabel(a) === targetLabel(b);
}

/** A target from the picker's fields, or why they do not make one. */
export function targetFromFields(type: BuilderTargetType, id: string, nodeId: string): { ok: true; target: BuilderTarget } | { ok: false; reason: string } {
  const main = id.trim();
  if (!main) return { ok: false, reason: type === "asset" ? "Enter the asset's path." : `Choose a ${type === "node" ? "workflow" : type}.` };
  switch (type) {
    case "workflow":
      return { ok: true, target: { type, workflowId: main } };
    case "node":
      return nodeId.trim() ? { ok: true, target: { type, workflowId: main, nodeId: nodeId.trim() } } : { ok: false, reason: "Choose a node of the workflow." };
    case "agent":
      return { ok: true, target: { type, agentId: main } };
    case "scene":
      return { ok: true, target: { type, sceneId: main } };
    case "asset":
      return ASSET_PATH_PATTERN.test(main)
        ? { ok: true, target: { type, path: main } }
        : { ok: false, reason: "An asset path starts with @project/ (editable) or @pkg/ (read-only), e.g. @project/prompts/intro.md." };
    default: {
      const never: never = type;
      return never;
    }
  }
}

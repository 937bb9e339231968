import type { BuilderObjectType, BuilderTarget, ObjectLocator } from "@weft/types";

/** The object kinds stored as JSON documents with a revision (everything but assets). */
export type DocumentType = Exclude<BuilderObjectType, "asset">;

/** How messages and prompts name a target, e.g. `node "draft" of workflow "notes"`. */
export function describeTarget(target: BuilderTarget): string {
  switch (target.type) {
    case "workflow":
      return `workflow "${target.workflowId}"`;
    case "node":
      return `node "${target.nodeId}" of workflow "${target.workflowId}"`;
    case "agent":
      return `agent profile "${target.agentId}"`;
    case "scene":
      return `scene "${target.sceneId}"`;
    case "asset":
      return `asset ${target.path}`;
    default: {
      const never: never = target;
      return never;
    }
  }
}

export function describeObject(locator: ObjectLocator): string {
  return locator.type === "asset" ? `asset ${locator.id}` : `${locator.type === "agent" ? "agent profile" : locator.type} "${locator.id}"`;
}

/** Whether `locator` is `covering` itself or, for assets, lies in the folder `covering` names. */
export function locatorCovers(covering: ObjectLocator, locator: ObjectLocator): boolean {
  if (covering.type !== locator.type) return false;
  if (covering.id === locator.id) return true;
  return covering.type === "asset" && covering.id.endsWith("/") && locator.id.startsWith(covering.id);
}

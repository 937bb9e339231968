import { z } from "zod";

export const BUILDER_MODES = ["create", "optimize"] as const;
export const BuilderModeSchema = z.enum(BUILDER_MODES);
export type BuilderMode = z.infer<typeof BuilderModeSchema>;

const DocumentIdSchema = z.string().trim().min(1).max(200);

/** An asset is a text file the tools can see: `@project/…` (editable) or `@pkg/…` (read-only). */
export const AssetPathSchema = z
  .string()
  .min(1)
  .max(1024)
  .regex(/^@(project|pkg)\//, "an asset path starts with @project/ or @pkg/, e.g. @project/prompts/intro.md");

/** Where a Builder AI session was entered from (seed 001 §4.2 `target_type` / `target_id`, Weft's object kinds). */
export const BuilderTargetSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("workflow"), workflowId: DocumentIdSchema }).strict(),
  z.object({ type: z.literal("node"), workflowId: DocumentIdSchema, nodeId: DocumentIdSchema }).strict(),
  z.object({ type: z.literal("agent"), agentId: DocumentIdSchema }).strict(),
  z.object({ type: z.literal("scene"), sceneId: DocumentIdSchema }).strict(),
  z.object({ type: z.literal("asset"), path: AssetPathSchema }).strict(),
]);
export type BuilderTarget = z.infer<typeof BuilderTargetSchema>;

/** Kinds of stored object a change can touch (a node lives inside its workflow). */
export const OBJECT_TYPES = ["workflow", "agent", "scene", "asset"] as const;
export const ObjectTypeSchema = z.enum(OBJECT_TYPES);
export type ObjectType = z.infer<typeof ObjectTypeSchema>;
export type DocumentType = Exclude<ObjectType, "asset">;

/** One stored object: a workflow, agent profile or scene by id, an asset by path (a path ending in `/` covers a folder). */
export const ObjectLocatorSchema = z.object({ type: ObjectTypeSchema, id: z.string().min(1).max(1024) }).strict();
export type ObjectLocator = z.infer<typeof ObjectLocatorSchema>;

/** Objects beyond the target that the user allows the session to change (seed 001 §8 "impact boundary"). */
export const SessionScopeSchema = z.object({ extra: z.array(ObjectLocatorSchema).max(100).default([]) }).strict();
export type SessionScope = z.infer<typeof SessionScopeSchema>;

/** The stored object a target lives in. */
export function targetObject(target: BuilderTarget): ObjectLocator {
  switch (target.type) {
    case "workflow":
    case "node":
      return { type: "workflow", id: target.workflowId };
    case "agent":
      return { type: "agent", id: target.agentId };
    case "scene":
      return { type: "scene", id: target.sceneId };
    case "asset":
      return { type: "asset", id: target.path };
    default: {
      const never: never = target;
      return never;
    }
  }
}

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

import { z } from "zod";

/** What a Builder AI session works on, as the HTTP API sends and takes it (docs/api.md "Builder AI", seed 001 §4.2). */

export const BUILDER_MODES = ["create", "optimize"] as const;
export const BuilderModeSchema = z.enum(BUILDER_MODES);
export type BuilderMode = z.infer<typeof BuilderModeSchema>;

const DocumentIdSchema = z.string().trim().min(1).max(200);

/** `@project/…` (editable) or `@pkg/…` (read-only). */
export const ASSET_PATH_PATTERN = /^@(project|pkg)\//;

/** An asset is a text file the tools can see: `@project/…` (editable) or `@pkg/…` (read-only). */
export const AssetPathSchema = z.string().min(1).max(1024).regex(ASSET_PATH_PATTERN, "an asset path starts with @project/ or @pkg/, e.g. @project/prompts/intro.md");

/** Where a Builder AI session was entered from (seed 001 §4.2 `target_type` / `target_id`, Weft's object kinds). */
export const BuilderTargetSchema = z.discriminatedUnion("type", [
  z.object({ type: z.literal("workflow"), workflowId: DocumentIdSchema }).strict(),
  z.object({ type: z.literal("node"), workflowId: DocumentIdSchema, nodeId: DocumentIdSchema }).strict(),
  z.object({ type: z.literal("agent"), agentId: DocumentIdSchema }).strict(),
  z.object({ type: z.literal("scene"), sceneId: DocumentIdSchema }).strict(),
  z.object({ type: z.literal("asset"), path: AssetPathSchema }).strict(),
]);
export type BuilderTarget = z.infer<typeof BuilderTargetSchema>;
export type BuilderTargetType = BuilderTarget["type"];

/** Kinds of stored object a change can touch (a node lives inside its workflow). */
export const BUILDER_OBJECT_TYPES = ["workflow", "agent", "scene", "asset"] as const;
export const BuilderObjectTypeSchema = z.enum(BUILDER_OBJECT_TYPES);
export type BuilderObjectType = z.infer<typeof BuilderObjectTypeSchema>;

/** One stored object: a workflow, agent profile or scene by id, an asset by path (a path ending in `/` covers a folder). */
export const ObjectLocatorSchema = z.object({ type: BuilderObjectTypeSchema, id: z.string().min(1).max(1024) }).strict();
export type ObjectLocator = z.infer<typeof ObjectLocatorSchema>;

/** Objects beyond the target that the user allows the session to change (seed 001 §8 "impact boundary"). */
export const SessionScopeSchema = z.object({ extra: z.array(ObjectLocatorSchema).max(100).default([]) }).strict();
export type SessionScope = z.infer<typeof SessionScopeSchema>;

/** The stored object a target lives in (a node lives in its workflow). */
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

/** A stored object's revision: a document's revision number, an asset's SHA-256; null: the object does not exist. */
export const ObjectRevisionSchema = z.union([z.number().int(), z.string()]).nullable();
export type ObjectRevision = z.infer<typeof ObjectRevisionSchema>;

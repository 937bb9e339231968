import { z } from "zod";

/**
 * Scene state as nodes and agents see it (implemented in agent-runtime/scene).
 * Paths address a JSON document with dots and brackets: `a.b[2].c`, `items["key.with.dots"]`;
 * the empty path is the whole document.
 */
export interface WorldStateService {
  get(path: string): unknown;
  set(path: string, value: unknown, agentId?: string): Promise<void>;
  /** Removes a key or an array element; resolves to whether something was there. */
  delete(path: string, agentId?: string): Promise<boolean>;
  /** Reads, transforms and writes one path atomically: no other write runs in between. */
  update(path: string, fn: (current: unknown) => unknown, agentId?: string): Promise<unknown>;
  snapshot(): unknown;
}

export interface EventBusService {
  publish(topic: string, payload: unknown, source?: string): Promise<void>;
}

export interface PrivateStateService {
  get(path: string): unknown;
  set(path: string, value: unknown): Promise<void>;
  delete(path: string): Promise<boolean>;
  update(path: string, fn: (current: unknown) => unknown): Promise<unknown>;
  snapshot(): unknown;
}

/** A JSON value: what world and private state, event payloads and the scene log hold. */
export type JsonValue = null | boolean | number | string | JsonValue[] | { [key: string]: JsonValue };
export type JsonObject = { [key: string]: JsonValue };

export const JsonValueSchema: z.ZodType<JsonValue> = z.lazy(() =>
  z.union([z.null(), z.boolean(), z.number().refine(Number.isFinite, "must be a finite number"), z.string(), z.array(JsonValueSchema), z.record(z.string(), JsonValueSchema)]),
);
export const JsonObjectSchema: z.ZodType<JsonObject> = z.record(z.string(), JsonValueSchema);

export const WORLD_STATE_ERROR_CODES = ["INVALID_PATH", "NOT_JSON", "PATH_CONFLICT"] as const;
export type WorldStateErrorCode = (typeof WORLD_STATE_ERROR_CODES)[number];

/**
 * A refused state operation. Declared here (not in the runtime) so nodes can branch on `code`
 * and hand the message to the agent unchanged.
 */
export class WorldStateError extends Error {
  readonly code: WorldStateErrorCode;
  readonly path: string;
  constructor(code: WorldStateErrorCode, path: string, message: string) {
    super(message);
    this.name = "WorldStateError";
    this.code = code;
    this.path = path;
  }
}

/** One recorded change of the world state, kept (bounded) for the UI's history view. */
export const WorldChangeSchema = z.object({
  seq: z.number().int().nonnegative(),
  op: z.enum(["set", "delete"]),
  /** Canonical form of the path that changed. */
  path: z.string(),
  /** Absent when the path did not exist before. */
  before: JsonValueSchema.optional(),
  /** Absent after a delete. */
  after: JsonValueSchema.optional(),
  agentId: z.string().optional(),
  ts: z.number(),
});
export type WorldChange = z.infer<typeof WorldChangeSchema>;

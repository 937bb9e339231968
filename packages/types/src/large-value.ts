import { z } from "zod";

/**
 * A value too large to send whole in a run's answer or its events (`GET /api/runs/:id`, `/events`, the
 * WebSocket): its size, the start of it, and where to fetch it whole (`href`, a route of the same run,
 * readable by whoever may read the run). Stored values are never cut; only what is sent is.
 */
export const LARGE_VALUE_KEY = "$weftLarge";
/** Values whose JSON is longer than this are sent as a LargeValue. */
export const LARGE_VALUE_FROM_BYTES = 64 * 1024;
/** How much of a large value its preview holds (characters of the text, or of the JSON of anything else). */
export const LARGE_VALUE_PREVIEW_CHARS = 4096;

export const LargeValueSchema = z.object({
  [LARGE_VALUE_KEY]: z.object({
    /** The whole value's size as JSON, in bytes. */
    bytes: z.number().int().nonnegative(),
    /** "string": `preview` is the start of the text; "json": the start of the value's JSON. */
    kind: z.enum(["string", "json"]),
    preview: z.string(),
    /** `GET` it (same credentials as the run) for `{ value }`, the whole value. */
    href: z.string(),
  }),
});
export type LargeValue = z.infer<typeof LargeValueSchema>;

export function isLargeValue(value: unknown): value is LargeValue {
  return LargeValueSchema.safeParse(value).success;
}

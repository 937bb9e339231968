import { z } from "zod";
import { ServiceError } from "../service-error.ts";

/**
 * Where a client's copy of a scene timeline ends: the session it belongs to, the next log entry,
 * and per agent conversation the last message read. Sent as an opaque string (`cursor`, `since`).
 */
const TimelineCursorSchema = z.object({
  v: z.literal(1),
  /** The session; null when the scene had none yet. */
  s: z.string().nullable(),
  /** The next log seq to read. */
  l: z.number().int().nonnegative(),
  /** Conversation id → the seq of the last message read (-1: none). */
  m: z.record(z.string(), z.number().int().min(-1)),
});
export type TimelineCursor = z.infer<typeof TimelineCursorSchema>;

export function encodeTimelineCursor(cursor: Omit<TimelineCursor, "v">): string {
  return Buffer.from(JSON.stringify({ v: 1, ...cursor })).toString("base64url");
}

/** A cursor this server gave out; anything else is a 400 saying to read the timeline without one. */
export function decodeTimelineCursor(text: string): TimelineCursor {
  let raw: unknown;
  try {
    raw = JSON.parse(Buffer.from(text, "base64url").toString("utf8"));
  } catch {
    raw = undefined;
  }
  const parsed = TimelineCursorSchema.safeParse(raw);
  if (!parsed.success) {
    throw new ServiceError(
      "VALIDATION_FAILED",
      "query.since is not a timeline cursor this server gave out; pass the `cursor` of an earlier answer as it is, or read the whole timeline without `since`.",
      {
        issues: [{ path: ["since"], message: "not a timeline cursor", code: "custom" }],
      },
    );
  }
  return parsed.data;
}

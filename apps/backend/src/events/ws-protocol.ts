import { z } from "zod";

/** Messages a client sends on `/ws` (docs/api.md). */
export const ClientMessageSchema = z.discriminatedUnion("type", [
  z.object({
    type: z.literal("subscribe"),
    streamId: z.string().min(1).max(200),
    /** The last seq the client has seen; -1 for everything. */
    after: z.number().int().min(-1).default(-1),
  }),
  z.object({ type: z.literal("unsubscribe"), streamId: z.string().min(1).max(200) }),
]);
export type ClientMessage = z.infer<typeof ClientMessageSchema>;

/** Stored events are already JSON: the envelope is written around the text, not re-encoded. */
export function eventMessage(eventJson: string): string {
  return `{"type":"event","event":${eventJson}}`;
}

export function subscribedMessage(streamId: string, after: number): string {
  return JSON.stringify({ type: "subscribed", streamId, after });
}

export function unsubscribedMessage(streamId: string): string {
  return JSON.stringify({ type: "unsubscribed", streamId });
}

export function resyncMessage(streamId: string, lastSeq: number, reason: string): string {
  return JSON.stringify({ type: "resync", streamId, lastSeq, reason });
}

export function errorMessage(code: string, message: string, streamId?: string): string {
  return JSON.stringify({ type: "error", ...(streamId !== undefined ? { streamId } : {}), error: { code, message } });
}

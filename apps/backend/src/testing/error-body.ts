import { z } from "zod";

/** The body of every failed API answer: `{ error: { code, message, details? } }`, for tests to read through. */
export const ErrorBodySchema = z.object({ error: z.object({ code: z.string(), message: z.string(), details: z.unknown().optional() }) });
export type ErrorBody = z.infer<typeof ErrorBodySchema>;

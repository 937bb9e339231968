import type { z } from "zod";
import { ApiError, validationError } from "./errors.ts";
import { checkDepth, checkKeys, decodeUtf8 } from "./body-checks.ts";
import { messageOf } from "@weft/types";

/**
 * Reads a request body as JSON, refusing more than `limit` bytes while it streams in (a missing or
 * false Content-Length cannot get a large body past the limit), invalid UTF-8, nesting deeper than
 * MAX_BODY_DEPTH and prototype-altering keys: what is refused here never reaches storage.
 */
export async function readJsonBody(request: Request, limit: number, options: { allowEmpty?: boolean } = {}): Promise<unknown> {
  const bytes = await readBodyBytes(request, limit, () => tooLarge(limit));
  if (bytes === undefined) {
    if (options.allowEmpty) return undefined;
    throw new ApiError("INVALID_JSON", "The request has no body; send a JSON document.");
  }
  const text = decodeUtf8(bytes);
  if (text.trim() === "") {
    if (options.allowEmpty) return undefined;
    throw new ApiError("INVALID_JSON", "The request body is empty; send a JSON document.");
  }
  checkDepth(text);
  let value: unknown;
  try {
    value = JSON.parse(text);
  } catch (error) {
    throw new ApiError("INVALID_JSON", `The request body is not valid JSON: ${messageOf(error)}.`);
  }
  checkKeys(value);
  return value;
}

/**
 * A request's body as bytes (undefined when it has none), refusing more than `limit` while it streams in:
 * a missing or false Content-Length cannot get a large body past the limit. `refuse` makes the error.
 */
export async function readBodyBytes(request: Request, limit: number, refuse: () => Error): Promise<Buffer | undefined> {
  const declared = Number(request.headers.get("content-length") ?? "NaN");
  if (Number.isFinite(declared) && declared > limit) throw refuse();
  const body = request.body;
  if (!body) return undefined;
  const reader = body.getReader();
  const chunks: Uint8Array[] = [];
  let size = 0;
  for (;;) {
    const { done, value } = await reader.read();
    if (done) break;
    size += value.byteLength;
    if (size > limit) {
      await reader.cancel().catch(() => undefined);
      throw refuse();
    }
    chunks.push(value);
  }
  return Buffer.concat(chunks);
}

function tooLarge(limit: number): ApiError {
  return new ApiError("PAYLOAD_TOO_LARGE", `The request body is larger than ${limit} bytes. Send less, or raise WEFT_MAX_BODY_BYTES.`, { limit });
}

/** Validates a value against a schema, as a 400 naming the first wrong field. */
export function parseWith<S extends z.ZodType>(schema: S, value: unknown, where = "body"): z.output<S> {
  const result = schema.safeParse(value);
  if (!result.success) throw validationError(result.error, where);
  return result.data;
}

/** Reads and validates a JSON body in one step; with `allowEmpty`, no body at all validates as `{}`. */
export async function readBody<S extends z.ZodType>(request: Request, schema: S, limit: number, options: { allowEmpty?: boolean } = {}): Promise<z.output<S>> {
  const value = await readJsonBody(request, limit, options);
  return parseWith(schema, value === undefined ? {} : value, "body");
}

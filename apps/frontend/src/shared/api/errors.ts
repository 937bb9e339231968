import { z } from "zod";
import type { ApiErrorCode } from "@weft/types";

/** Codes this client adds for failures before a reply; the server's are `API_ERROR_CODES` (docs/api.md). */
export const CLIENT_ERROR_CODES = ["NETWORK_ERROR", "BAD_RESPONSE", "SERVER_ERROR"] as const;

export type KnownErrorCode = ApiErrorCode | (typeof CLIENT_ERROR_CODES)[number];

/** An API failure as a value: the backend's code and message (its words), the HTTP status, and details. */
export interface ApiError {
  code: KnownErrorCode | (string & {});
  message: string;
  /** 0 when no reply arrived. */
  status: number;
  details?: Record<string, unknown>;
}

export type ApiResult<T> = { ok: true; value: T } | { ok: false; error: ApiError };

export const ErrorBodySchema = z.object({
  error: z.object({ code: z.string(), message: z.string(), details: z.record(z.string(), z.unknown()).optional() }),
});

export const ok = <T>(value: T): ApiResult<T> => ({ ok: true, value });
export const fail = <T>(error: ApiError): ApiResult<T> => ({ ok: false, error });

/** One line for a toast: the backend's message, with a hint for failures the user can act on. */
export function describeApiError(error: ApiError): string {
  switch (error.code) {
    case "NETWORK_ERROR":
      return `${error.message} Is the Weft server running?`;
    case "BAD_RESPONSE":
      return `The server sent a reply this editor does not understand: ${error.message}`;
    default:
      return error.message;
  }
}

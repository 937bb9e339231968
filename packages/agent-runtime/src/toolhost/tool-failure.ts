import type { ToolErrorCode, ToolFailureResult } from "@weft/types";

/** A refusal or failure inside a tool, carried up to `ToolHost.call` and returned as `{ ok: false }`. */
export class ToolFailure extends Error {
  constructor(
    readonly code: ToolErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "ToolFailure";
  }

  toResult(): ToolFailureResult {
    return { ok: false, error: { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) } };
  }
}

export function failureResult(code: ToolErrorCode, message: string, details?: Record<string, unknown>): ToolFailureResult {
  return new ToolFailure(code, message, details).toResult();
}

/** Node's errno code of an error thrown by `node:fs`, if any. */
export function errnoCode(error: unknown): string | undefined {
  if (typeof error === "object" && error !== null && "code" in error && typeof error.code === "string") return error.code;
  return undefined;
}

import type { EngineErrorCode, NodeError } from "./run.ts";

/** A failure a node reports on purpose, with a code callers can branch on. */
export class NodeFailure extends Error {
  readonly code: EngineErrorCode | (string & {});
  readonly details?: Record<string, unknown>;
  constructor(code: EngineErrorCode | (string & {}), message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = "NodeFailure";
    this.code = code;
    this.details = details;
  }
  toNodeError(): NodeError {
    return { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) };
  }
}

/** A NodeFailure with one of the engine's own codes (ENGINE_ERROR_CODES). */
export function engineFailure(code: EngineErrorCode, message: string, details?: Record<string, unknown>): NodeFailure {
  return new NodeFailure(code, message, details);
}

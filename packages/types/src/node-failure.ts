import type { NodeError } from "./run.ts";

/** A failure a node reports on purpose, with a code callers can branch on. */
export class NodeFailure extends Error {
  readonly code: string;
  readonly details?: Record<string, unknown>;
  constructor(code: string, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = "NodeFailure";
    this.code = code;
    this.details = details;
  }
  toNodeError(): NodeError {
    return { code: this.code, message: this.message, ...(this.details ? { details: this.details } : {}) };
  }
}

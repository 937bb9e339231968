import { z } from "zod";
import { messageOf } from "@weft/types";

/** What a service can refuse with; the HTTP layer (api/errors.ts) gives each its status. */
export const SERVICE_ERROR_CODES = ["VALIDATION_FAILED", "NOT_FOUND", "REVISION_CONFLICT", "ALREADY_EXISTS", "CONFLICT", "SERVICE_UNAVAILABLE"] as const;
export type ServiceErrorCode = (typeof SERVICE_ERROR_CODES)[number];

/**
 * A refusal by a service (runs, agents, scenes, workflows), free of any transport: a code, a message
 * that tells the caller what to do next, and details. The app's one error handler answers it over HTTP.
 */
export class ServiceError extends Error {
  constructor(
    readonly code: ServiceErrorCode,
    message: string,
    readonly details: Record<string, unknown> = {},
  ) {
    super(message);
    this.name = "ServiceError";
  }
}

export function notFound(kind: string, id: string, hint = ""): ServiceError {
  return new ServiceError("NOT_FOUND", `No ${kind} has the id "${id}".${hint ? " " + hint : ""}`, { kind, id });
}

/** zod issues as the API reports them: where, what, and the readable summary. */
export function validationError(error: z.ZodError, where: string): ServiceError {
  const issues = error.issues.map((i) => ({ path: i.path.map((p) => (typeof p === "symbol" ? String(p) : p)), message: i.message, code: i.code }));
  const first = issues[0];
  const at = first && first.path.length > 0 ? `${where}.${first.path.join(".")}` : where;
  const more = issues.length > 1 ? ` (and ${issues.length - 1} more problem${issues.length > 2 ? "s" : ""}, see details.issues)` : "";
  return new ServiceError("VALIDATION_FAILED", `${at}: ${first?.message ?? "invalid"}${more}`, { issues });
}

/** A `ServiceError` as it crosses a process boundary (queue mode: a worker's refusal reaching the API with its code). */
export const ServiceErrorWireSchema = z.object({ code: z.enum(SERVICE_ERROR_CODES), message: z.string(), details: z.record(z.string(), z.unknown()) });
export type ServiceErrorWire = z.infer<typeof ServiceErrorWireSchema>;

/** `error` as it travels: a `ServiceError` as it is, anything else as SERVICE_UNAVAILABLE after `context`. */
export function serviceErrorWire(error: unknown, context: string): ServiceErrorWire {
  return error instanceof ServiceError
    ? { code: error.code, message: error.message, details: error.details }
    : { code: "SERVICE_UNAVAILABLE", message: `${context}: ${messageOf(error)}`, details: {} };
}

export function serviceErrorFromWire(wire: ServiceErrorWire): ServiceError {
  return new ServiceError(wire.code, wire.message, wire.details);
}

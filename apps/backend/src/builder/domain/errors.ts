import { HttpError } from "../../api/errors.ts";

/** Why a Builder request was refused; the HTTP status goes with the code. */
export const BUILDER_ERROR_STATUS = {
  NOT_FOUND: 404,
  AI_TARGET_NOT_FOUND: 404,
  AI_TARGET_EXISTS: 409,
  AI_SESSION_NOT_ACTIVE: 409,
  AI_SESSION_BUSY: 409,
  AI_CHANGESET_SUPERSEDED: 409,
  AI_CHANGESET_NOT_APPLICABLE: 409,
  AI_CHANGESET_INVALID: 422,
  AI_CONFIRM_SOURCE_REQUIRED: 400,
  AI_APPLY_CONFLICT: 409,
  AI_APPLY_FAILED: 500,
} as const;
export type BuilderErrorCode = keyof typeof BUILDER_ERROR_STATUS;

/** A Builder refusal, answered by the app's error handler with the code's status. */
export class BuilderError extends HttpError {
  readonly status: number;
  constructor(
    override readonly code: BuilderErrorCode,
    message: string,
    details: Record<string, unknown> = {},
  ) {
    super(code, message, details);
    this.name = "BuilderError";
    this.status = BUILDER_ERROR_STATUS[code];
  }
}

/**
 * The codes of the API's own refusals (docs/api.md): the backend answers with them (each with its
 * HTTP status, apps/backend/src/api/errors.ts) and the editor's client knows them by name.
 */
export const API_ERROR_CODES = [
  "INVALID_JSON",
  "INVALID_UTF8",
  "JSON_TOO_DEEP",
  "FORBIDDEN_KEY",
  "VALIDATION_FAILED",
  /** A workflow's, agent's or scene's own budget above the owner's ceiling. */
  "BUDGET_ABOVE_CEILING",
  "NOT_FOUND",
  "REVISION_CONFLICT",
  "ALREADY_EXISTS",
  "CONFLICT",
  "BUILT_IN",
  "PAYLOAD_TOO_LARGE",
  "UNAUTHENTICATED",
  "FORBIDDEN",
  "FORBIDDEN_ORIGIN",
  "MISDIRECTED_HOST",
  "UNSUPPORTED_MEDIA_TYPE",
  "TOO_MANY_REQUESTS",
  "SERVICE_UNAVAILABLE",
  "INTERNAL",
] as const;
export type ApiErrorCode = (typeof API_ERROR_CODES)[number];

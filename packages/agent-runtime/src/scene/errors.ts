export const SCENE_ERROR_CODES = [
  "INVALID_SCENE",
  "INVALID_TOPIC",
  "INVALID_PATTERN",
  "INVALID_PAYLOAD",
  "INVALID_SOURCE",
  "UNKNOWN_INSTANCE",
  "UNKNOWN_TIMER",
  "UNKNOWN_STEP",
  "UNKNOWN_PROFILE",
  "INVALID_MESSAGE",
  "SCENE_STOPPED",
  "INVALID_TRANSITION",
  "INVALID_STATE",
  "REPLAY_DIVERGED",
] as const;
export type SceneErrorCode = (typeof SCENE_ERROR_CODES)[number];

/** A refused scene operation; `code` says which, the message says what to do instead. */
export class SceneError extends Error {
  readonly code: SceneErrorCode;
  readonly details?: Record<string, unknown>;
  constructor(code: SceneErrorCode, message: string, details?: Record<string, unknown>) {
    super(message);
    this.name = "SceneError";
    this.code = code;
    this.details = details;
  }
}

/** A deliberation that ended because an LLM call would have passed a token or cost budget: the scene pauses (reason BUDGET_EXCEEDED). */
export class DeliberationOverBudget extends Error {
  constructor(message: string) {
    super(message);
    this.name = "DeliberationOverBudget";
  }
}

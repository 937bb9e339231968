import { SceneError } from "@weft/agent-runtime";
import { ApiError, type ApiErrorCode } from "../api/errors.ts";

/** The API's answer to a refused scene operation: the runtime's message, an HTTP-fitting code, the scene code in details. */
export function sceneApiError(error: unknown): unknown {
  if (!(error instanceof SceneError)) return error;
  let code: ApiErrorCode;
  switch (error.code) {
    case "UNKNOWN_INSTANCE":
    case "UNKNOWN_TIMER":
      code = "NOT_FOUND";
      break;
    case "INVALID_TRANSITION":
    case "SCENE_STOPPED":
    case "REPLAY_DIVERGED":
      code = "CONFLICT";
      break;
    case "INVALID_SCENE":
    case "INVALID_TOPIC":
    case "INVALID_PATTERN":
    case "INVALID_PAYLOAD":
    case "INVALID_SOURCE":
    case "UNKNOWN_PROFILE":
    case "INVALID_MESSAGE":
    case "INVALID_STATE":
      code = "VALIDATION_FAILED";
      break;
    default: {
      const never: never = error.code;
      return never;
    }
  }
  return new ApiError(code, error.message, { sceneError: error.code, ...(error.details ?? {}) });
}

/** Runs a scene operation, turning a SceneError into the API's error. */
export async function sceneCall<T>(operation: () => T | Promise<T>): Promise<T> {
  try {
    return await operation();
  } catch (error) {
    throw sceneApiError(error);
  }
}

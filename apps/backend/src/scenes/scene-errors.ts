import { SceneError } from "@weft/agent-runtime";
import { ServiceError, type ServiceErrorCode } from "../service-error.ts";

/** A refused scene operation as a service refusal: the runtime's message, a fitting code, the scene code in details. */
export function sceneServiceError(error: SceneError): ServiceError {
  let code: ServiceErrorCode;
  switch (error.code) {
    case "UNKNOWN_INSTANCE":
    case "UNKNOWN_TIMER":
    case "UNKNOWN_STEP":
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
  return new ServiceError(code, error.message, { sceneError: error.code, ...(error.details ?? {}) });
}

/** The app's error handler asks this of what a route threw: a scene runtime's refusal answers with its code, not 500. */
export function sceneRefusalOf(error: unknown): ServiceError | undefined {
  return error instanceof SceneError ? sceneServiceError(error) : undefined;
}

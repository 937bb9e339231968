import type { ToolErrorCode } from "@weft/types";

/** Why an outbound request was refused or failed; the tool host returns it as `{ ok: false, error }`. */
export class NetFailure extends Error {
  constructor(
    readonly code: ToolErrorCode,
    message: string,
    readonly details?: Record<string, unknown>,
  ) {
    super(message);
    this.name = "NetFailure";
  }
}

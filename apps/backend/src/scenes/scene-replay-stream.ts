import { messageOf } from "@weft/types";
import type { Logger, SceneReplayLine, SceneReplayProgress, SceneReplayResult } from "@weft/types";
import { SceneError } from "@weft/agent-runtime";
import { ServiceError } from "../service-error.ts";
import { sceneServiceError } from "./scene-errors.ts";

export const NDJSON = "application/x-ndjson";

/**
 * A replay as a stream of JSON lines: a `progress` line whenever it moves on, then the `result` (or
 * an `error` line: the status is already sent once the replay runs). Refusals before it starts are
 * answered as usual, with their HTTP status, by the caller.
 */
export function replayStream(run: (onProgress: (progress: SceneReplayProgress) => void) => Promise<SceneReplayResult>, log: Logger): Response {
  const encoder = new TextEncoder();
  const body = new ReadableStream<Uint8Array>({
    async start(controller) {
      let open = true;
      const send = (line: SceneReplayLine) => {
        if (open) controller.enqueue(encoder.encode(`${JSON.stringify(line)}\n`));
      };
      try {
        send({ type: "result", result: await run((progress) => send({ type: "progress", progress })) });
      } catch (thrown) {
        const error = thrown instanceof SceneError ? sceneServiceError(thrown) : thrown;
        if (error instanceof ServiceError) send({ type: "error", error: { code: error.code, message: error.message } });
        else {
          log.error("scene replay failed", { error: error instanceof Error ? (error.stack ?? error.message) : String(error) });
          send({ type: "error", error: { code: "INTERNAL", message: `The replay failed: ${messageOf(error)}` } });
        }
      } finally {
        open = false;
        controller.close();
      }
    },
  });
  return new Response(body, { headers: { "content-type": `${NDJSON}; charset=utf-8`, "cache-control": "no-cache" } });
}

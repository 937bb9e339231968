import type { NodeError } from "@weft/types";
import { safeJson } from "./json.ts";
import type { ErrorResult } from "./parser/result.ts";

/** What happened to one action, as the agent loop knows it. */
export type ObservationSource =
  | { kind: "success"; toolName: string; outputs: Record<string, unknown>; notes?: readonly string[] }
  | { kind: "failure"; toolName: string; status?: "failed" | "cancelled"; error: Pick<NodeError, "code" | "message">; notes?: readonly string[] }
  | ErrorResult;

export interface ObservationOptions {
  /** Longest result shown in full; a longer one is cut to a preview. Default 4000 characters. */
  maxChars?: number;
  /** Where the full result is kept (a path the model can read on demand), named when the preview is cut. */
  fullResultRef?: string;
}

export const DEFAULT_OBSERVATION_CHARS = 4000;

/** The Observation text the next deliberation gets (seed 004 §5.1, §5.5). */
export function formatObservation(source: ObservationSource, options: ObservationOptions = {}): string {
  const max = Math.max(1, options.maxChars ?? DEFAULT_OBSERVATION_CHARS);
  switch (source.kind) {
    case "success": {
      const json = safeJson(source.outputs);
      const head = `Observation: Tool \`${source.toolName}\` executed successfully.`;
      const body =
        json.length <= max
          ? `${head} Result: ${json}`
          : `${head} Result (first ${max} of ${json.length} characters): ${cut(json, max)}…\n${
              options.fullResultRef
                ? `[The result was truncated. The full result is kept at ${options.fullResultRef}; read it if you need more.]`
                : "[The result was truncated; the full result was not kept.]"
            }`;
      return withNotes(body, source.notes);
    }
    case "failure": {
      const verb = source.status === "cancelled" ? "was cancelled" : "failed";
      const message = source.error.message.length <= max ? source.error.message : `${cut(source.error.message, max)}… [truncated]`;
      return withNotes(`Observation: Error - Tool \`${source.toolName}\` ${verb} [${source.error.code}]: ${message}`, source.notes);
    }
    case "error":
      return `Observation: Error (${source.code}) - ${source.message}`;
    default: {
      const never: never = source;
      return never;
    }
  }
}

function withNotes(text: string, notes: readonly string[] | undefined): string {
  return notes && notes.length > 0 ? `${text}\n${notes.map((n) => `Note: ${n}`).join("\n")}` : text;
}

/** The first `max` UTF-16 units, never ending inside a surrogate pair. */
function cut(text: string, max: number): string {
  const end = max > 0 && /[\uD800-\uDBFF]/.test(text[max - 1] ?? "") ? max - 1 : max;
  return text.slice(0, end);
}

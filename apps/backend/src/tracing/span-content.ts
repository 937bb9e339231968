import type { ChatMessage, SecretRedactor } from "@weft/types";

/**
 * Longer than any secret the redactor knows (API keys, tokens, the master key). A text is redacted over its first
 * `budget + SECRET_MARGIN` characters and then cut to `budget`: a secret that starts before the cut lies whole in
 * the redacted part, so the cut never leaves half a secret readable.
 */
const SECRET_MARGIN = 4096;

/** Roles, tool names and call ids: kept whole (redacted), outside the budget, so the messages stay readable. */
const SHORT = 64;

/**
 * `WEFT_OTEL_CAPTURE_CONTENT`'s recorder: the messages as the JSON text of `gen_ai.input.messages` /
 * `gen_ai.output.messages`, with every string redacted and the whole cut to `maxChars` characters of text BEFORE
 * anything is serialised (a long conversation's prompt is not stringified, scanned and then thrown away).
 */
export function contentRecorder(redactor: SecretRedactor, maxChars: number): (messages: readonly ChatMessage[]) => string {
  return (messages) => {
    let budget = maxChars;
    const clip = (text: string): string => {
      if (text.length <= SHORT) return redactor.text(text);
      if (text.length <= budget) {
        budget -= text.length;
        return redactor.text(text);
      }
      const kept = redactor.text(text.slice(0, budget + SECRET_MARGIN)).slice(0, budget);
      budget = 0;
      return `${kept}…[truncated: ${text.length} characters]`;
    };
    const walk = (value: unknown): unknown => {
      if (typeof value === "string") return clip(value);
      if (Array.isArray(value)) return value.map(walk);
      if (value !== null && typeof value === "object") {
        const out: Record<string, unknown> = {};
        for (const key in value) out[key] = walk((value as Record<string, unknown>)[key]);
        return out;
      }
      return value;
    };
    return JSON.stringify(walk(messages));
  };
}

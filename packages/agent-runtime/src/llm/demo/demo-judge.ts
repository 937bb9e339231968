import { EVAL_JUDGE_HEADER } from "@weft/types";
import { messageText, type DemoMessage } from "./demo-request.ts";

/**
 * The demo LLM as an eval judge (a system prompt starting with EVAL_JUDGE_HEADER): deterministic, so suites with a
 * judge can be tested offline. The answer passes when it contains every "double-quoted" phrase of the rubric
 * (case-insensitive); a rubric without quoted phrases passes any non-empty answer.
 */
export function demoJudgeVerdict(messages: readonly DemoMessage[]): string | undefined {
  const system = messages.find((m) => m.role === "system");
  if (!system) return undefined;
  const prompt = messageText(system);
  if (!prompt.startsWith(EVAL_JUDGE_HEADER)) return undefined;
  const rubric = /\nRubric:\n([\s\S]*)\nReply with JSON only/.exec(prompt)?.[1] ?? "";
  const answer = messages
    .filter((m) => m.role === "user")
    .map(messageText)
    .join("\n")
    .toLowerCase();
  const phrases = [...rubric.matchAll(/"([^"]+)"/g)].map((m) => m[1]);
  const missing = phrases.filter((p) => !answer.includes(p.toLowerCase()));
  const pass = phrases.length === 0 ? answer.trim() !== "" : missing.length === 0;
  const reason = pass
    ? phrases.length === 0
      ? "The answer is not empty (the rubric names no phrase to look for)."
      : `The answer mentions ${phrases.map((p) => `"${p}"`).join(", ")}.`
    : phrases.length === 0
      ? "The answer is empty."
      : `The answer does not mention ${missing.map((p) => `"${p}"`).join(", ")}.`;
  return JSON.stringify({ pass, reason });
}

import { EvalVerdictSchema, judgeMessages, type EvalVerdict, type LlmService } from "@weft/types";
import type { Judge } from "./eval-assertions.ts";

/** The verdict in a judge's answer: the first JSON object in it (models wrap JSON in prose or code fences). */
export function verdictOf(text: string): EvalVerdict {
  const start = text.indexOf("{");
  const end = text.lastIndexOf("}");
  if (start < 0 || end <= start) throw new Error(`the judge answered without a JSON verdict: ${JSON.stringify(text.slice(0, 200))}`);
  let value: unknown;
  try {
    value = JSON.parse(text.slice(start, end + 1));
  } catch {
    throw new Error(`the judge's verdict is not valid JSON: ${JSON.stringify(text.slice(start, start + 200))}`);
  }
  const parsed = EvalVerdictSchema.safeParse(value);
  if (!parsed.success) throw new Error(`the judge's verdict needs a boolean "pass" and a string "reason"; it sent ${JSON.stringify(value).slice(0, 200)}`);
  return parsed.data;
}

/** An LLM judge on the server's LLM service: the profile named by the assertion, else the default; temperature 0. */
export function llmJudge(llm: LlmService, userId: string | undefined): Judge {
  return async (rubric, answer, profileId) => {
    const reply = await llm.chat({ messages: judgeMessages(rubric, answer), temperature: 0, ...(profileId !== undefined ? { profileId } : {}) }, { caller: userId !== undefined ? { userId } : {} });
    return verdictOf(reply.text);
  };
}

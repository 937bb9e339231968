import type { LlmService } from "@weft/types";
import { recordedAnswer } from "../replay/recorded-llm.ts";
import type { RecordedLlmOutput } from "./scene-runtime-types.ts";

/**
 * One deliberation's model, around the agent's own: the recorded answers first (a deliberation
 * resumed after a crash gets again what it was answered before), then the agent's model, each of
 * its answers handed to `record` as soon as it arrives (the scene log commits it with the effects
 * that follow). `step` counts the deliberation's model calls from 1.
 */
export function deliberationLlm(inner: LlmService, recorded: readonly RecordedLlmOutput[], record: (step: number, output: RecordedLlmOutput) => void): LlmService {
  const served = [...recorded];
  let step = 0;
  return {
    chat: async (request, options) => {
      step++;
      const again = served.shift();
      if (again) return recordedAnswer(again, options?.onChunk);
      const result = await inner.chat(request, options);
      record(step, { text: result.text, ...(result.reasoning ? { reasoning: result.reasoning } : {}), ...(result.toolCalls.length > 0 ? { toolCalls: result.toolCalls } : {}) });
      return result;
    },
  };
}

import type { UsageRepository } from "../usage/index.ts";
import { AgentCompletions, type AgentCompletionsDeps } from "./agent-completions.ts";
import { openAiApi, type OpenAiApiDeps } from "./openai-api.ts";
import type { CompletionUsage } from "./openai-wire.ts";

export { OPENAI_ERRORS } from "./openai-errors.ts";
export { AgentCompletions, type AgentOutcome } from "./agent-completions.ts";

/** Every agent as an OpenAI-compatible endpoint: the routes, on the agent host the agent chat uses (in this process or on workers). */
export function createOpenAiCompat(deps: AgentCompletionsDeps & Omit<OpenAiApiDeps, "completions" | "usageOf"> & { usage: Pick<UsageRepository, "report"> }) {
  return openAiApi({ ...deps, completions: new AgentCompletions(deps), usageOf: (conversationId) => conversationUsage(deps.usage, conversationId) });
}

/** The conversation's recorded LLM usage in OpenAI's shape; none when no call was recorded. */
async function conversationUsage(usage: Pick<UsageRepository, "report">, conversationId: string): Promise<CompletionUsage | undefined> {
  const [row] = await usage.report({ conversationId });
  if (!row || row.calls === 0) return undefined;
  return {
    prompt_tokens: row.promptTokens,
    completion_tokens: row.completionTokens,
    total_tokens: row.totalTokens,
    prompt_tokens_details: { cached_tokens: row.cachedTokens },
    completion_tokens_details: { reasoning_tokens: row.reasoningTokens },
  };
}

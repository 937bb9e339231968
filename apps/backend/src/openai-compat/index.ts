import { AgentCompletions, type AgentCompletionsDeps } from "./agent-completions.ts";
import { openAiApi, type OpenAiApiDeps } from "./openai-api.ts";

export { OPENAI_ERRORS } from "./openai-errors.ts";

/** Every agent as an OpenAI-compatible endpoint: the routes, on the agent host the agent chat uses (in this process or on workers). */
export function createOpenAiCompat(deps: AgentCompletionsDeps & Omit<OpenAiApiDeps, "completions">) {
  return openAiApi({ ...deps, completions: new AgentCompletions(deps) });
}

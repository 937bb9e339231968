import { CALLER_MODEL_HINT } from "@weft/agent-runtime";
import { LlmError, type LlmCallOptions, type LlmCallUsage, type LlmChatRequest, type LlmChatResult, type LlmService } from "@weft/types";

/** What a calling client's model answered: its text, the model it names and why it stopped. */
export interface CallerAnswer {
  text: string;
  model: string;
  finishReason: string;
}

/** Asks the calling client's model (MCP `sampling/createMessage`); rejects with an `LlmError`. */
export type CallerSampler = (request: LlmChatRequest, signal: AbortSignal | undefined) => Promise<CallerAnswer>;

/** The profile id a caller-model call is recorded under in usage: no profile answered it. */
export const CALLER_MODEL_PROFILE = "mcp-client";

/**
 * The LLM service of workflow runs: a request whose node opted in (`callerModel`) is answered by the model of the
 * client that started the run, when that client offered one for this run (`offer`, by `mcp-server/`); otherwise by
 * the LLM profiles (`preferred`) or refused with CALLER_MODEL_UNAVAILABLE (`required`). Offers live in this process:
 * a run executed by a queue worker has none. A caller's answer costs Weft nothing: it is recorded with 0 tokens and
 * cost under the profile id `mcp-client`, and no budget is checked for it.
 */
export class CallerModelLlm implements LlmService {
  private readonly samplers = new Map<string, CallerSampler>();

  constructor(
    private readonly profiles: LlmService,
    private readonly onUsage: (usage: LlmCallUsage) => unknown,
  ) {}

  /** Lets `runId`'s opted-in LLM calls use this sampler until the returned function withdraws it. */
  offer(runId: string, sampler: CallerSampler): () => void {
    this.samplers.set(runId, sampler);
    return () => {
      if (this.samplers.get(runId) === sampler) this.samplers.delete(runId);
    };
  }

  async chat(request: LlmChatRequest, options?: LlmCallOptions): Promise<LlmChatResult> {
    const { callerModel, ...forProfiles } = request;
    if (callerModel === undefined) return this.profiles.chat(request, options);
    const runId = options?.caller?.runId;
    const sampler = runId === undefined ? undefined : this.samplers.get(runId);
    const refusal = sampler === undefined ? "this run was not started by an MCP client that offers sampling" : unsupported(request);
    if (refusal !== undefined || sampler === undefined) {
      if (callerModel === "preferred") return this.profiles.chat(forProfiles, options);
      throw new LlmError({ code: "CALLER_MODEL_UNAVAILABLE", message: `The LLM node requires the caller's model, but ${refusal}.`, hint: CALLER_MODEL_HINT });
    }
    const answer = await sampler(forProfiles, options?.signal);
    if (answer.text !== "") options?.onChunk?.({ kind: "text", text: answer.text });
    const usage = { promptTokens: 0, completionTokens: 0, totalTokens: 0 };
    await this.onUsage({ caller: options?.caller ?? {}, profileId: CALLER_MODEL_PROFILE, model: answer.model, usage, costUsd: 0, at: Date.now() });
    const message = { role: "assistant" as const, content: answer.text };
    return { text: answer.text, toolCalls: [], finishReason: answer.finishReason, usage, costUsd: 0, model: answer.model, message, source: "client" };
  }
}

/** Why this request cannot go to a caller's model (sampling carries text turns only), or undefined when it can. */
function unsupported(request: LlmChatRequest): string | undefined {
  if (request.tools !== undefined && request.tools.length > 0) return "the node gives the model tools, which Weft does not pass to a caller's model";
  if (request.responseFormat !== undefined) return "the node asks for a JSON schema answer, which a caller's model is not asked for";
  if (request.messages.some((m) => m.role === "tool" || (m.role === "assistant" && (m.tool_calls?.length ?? 0) > 0))) {
    return "the conversation holds tool calls or results, which a caller's model is not sent";
  }
  return undefined;
}

import {
  costOf,
  estimateTokens,
  silentLogger,
  type LlmCallAllowance,
  type LlmCallEstimate,
  type LlmCallOptions,
  type LlmCallUsage,
  type LlmChatRequest,
  type LlmChatResult,
  type LlmProfile,
  type LlmProfileResolver,
  type LlmService,
  type LlmTurn,
  type LlmUsage,
  type Logger,
} from "@weft/types";
import { profileNotFound } from "./errors.ts";
import { OpenAiCompatibleProvider } from "./openai-compatible-provider.ts";
import { traceLlmCall } from "./llm-span.ts";
import type { Tracing } from "../tracing/index.ts";

export interface ProfileLlmServiceOptions {
  profiles: LlmProfileResolver;
  /** Every exchange, successful or not (seed 000 §4.2): the debugger and the agent loop record them. */
  onTurn?: (turn: LlmTurn) => void;
  /**
   * Every answered call's tokens and cost (at the profile's prices now), awaited before the answer is returned, so a
   * run that finished has its usage stored. A failed call has no usage to report: providers send it only at the end.
   */
  onUsage?: (usage: LlmCallUsage) => Promise<void> | void;
  /**
   * Asked before each call is sent, with its estimate: rejects (an `LlmError` `BUDGET_EXCEEDED`) to refuse it, so a
   * refused call never reaches the provider; a `notice` it answers is added to the call as a system message.
   */
  beforeCall?: (call: LlmCallEstimate) => Promise<LlmCallAllowance | void>;
  logger?: Logger;
  /** A span per call (GenAI conventions), when the process traces. */
  tracing?: Tracing;
}

/** The completion a call is assumed to use when it sets no `maxTokens`: budgets are checked against it before the call. */
export const DEFAULT_COMPLETION_ESTIMATE = 512;

/** The most a call may use, known before it is sent: its prompt (and tools) at four characters a token, and its completion at `maxTokens`. */
export function estimateCall(request: Omit<LlmChatRequest, "profileId">): LlmUsage {
  const promptTokens = estimateTokens(JSON.stringify(request.messages)) + (request.tools ? estimateTokens(JSON.stringify(request.tools)) : 0);
  const completionTokens = request.maxTokens ?? DEFAULT_COMPLETION_ESTIMATE;
  return { promptTokens, completionTokens, totalTokens: promptTokens + completionTokens, estimated: true };
}

/**
 * The `LlmService` nodes reach through `ctx.services.llm`: it resolves the request's profile (the
 * default one when none is named) and calls it through the OpenAI-compatible provider.
 */
export class ProfileLlmService implements LlmService {
  private readonly log: Logger;
  /** One provider (and its HTTP client) per profile as resolved: building one per call showed in scene profiles. Keyed by content, so an edited profile gets a new one. */
  private readonly providers = new Map<string, OpenAiCompatibleProvider>();

  constructor(private readonly options: ProfileLlmServiceOptions) {
    this.log = options.logger ?? silentLogger;
  }

  async chat(request: LlmChatRequest, options: LlmCallOptions = {}): Promise<LlmChatResult> {
    const { profileId, ...rest } = request;
    const profile = await this.options.profiles.resolve(profileId);
    if (!profile) throw profileNotFound(profileId);
    const tracing = this.options.tracing;
    if (tracing) return traceLlmCall(tracing, profile, rest, options.caller ?? {}, () => this.callProfile(profile, rest, options));
    return this.callProfile(profile, rest, options);
  }

  private async callProfile(profile: LlmProfile, rest: Omit<LlmChatRequest, "profileId">, options: LlmCallOptions): Promise<LlmChatResult> {
    let call = rest;
    let allowance: LlmCallAllowance | void = undefined;
    if (this.options.beforeCall) {
      const estimate = estimateCall(rest);
      const estimatedCost = costOf(estimate, profile.prices);
      allowance = await this.options.beforeCall({ caller: options.caller ?? {}, profileId: profile.id, usage: estimate, ...(estimatedCost !== undefined ? { costUsd: estimatedCost } : {}) });
      if (allowance?.notice) call = { ...rest, messages: [...rest.messages, { role: "system", content: allowance.notice }] };
    }
    try {
      return await this.send(profile, call, options);
    } finally {
      allowance?.release?.();
    }
  }

  /** The call itself; its usage is stored (`onUsage`) before it returns. */
  private async send(profile: LlmProfile, call: Omit<LlmChatRequest, "profileId">, options: LlmCallOptions): Promise<LlmChatResult> {
    const outcome = await this.providerFor(profile).complete(call, options);
    this.options.onTurn?.(outcome.turn);
    if (!outcome.ok) throw outcome.error;
    const { usage, model } = outcome.result;
    const costUsd = usage ? costOf(usage, profile.prices) : undefined;
    if (this.options.onUsage && usage) {
      await this.options.onUsage({ caller: options.caller ?? {}, profileId: profile.id, model, usage, ...(costUsd !== undefined ? { costUsd } : {}), at: Date.now() });
    }
    return costUsd !== undefined ? { ...outcome.result, costUsd } : outcome.result;
  }

  private providerFor(profile: LlmProfile): OpenAiCompatibleProvider {
    const key = JSON.stringify(profile);
    let provider = this.providers.get(key);
    if (!provider) {
      provider = OpenAiCompatibleProvider.fromProfile(profile, this.log);
      if (this.providers.size >= MAX_PROVIDERS) this.providers.delete(this.providers.keys().next().value as string);
    } else this.providers.delete(key);
    this.providers.set(key, provider);
    return provider;
  }
}

const MAX_PROVIDERS = 32;

/** Profiles held in memory: the CLI, tests, and the demo LLM default. */
export class StaticLlmProfileResolver implements LlmProfileResolver {
  private readonly byId = new Map<string, LlmProfile>();

  /** The first profile is the default unless `defaultId` names another. */
  constructor(
    profiles: readonly LlmProfile[],
    private readonly defaultId = profiles[0]?.id,
  ) {
    for (const profile of profiles) this.byId.set(profile.id, profile);
  }

  async resolve(profileId?: string): Promise<LlmProfile | undefined> {
    return this.byId.get(profileId ?? this.defaultId ?? "");
  }
}

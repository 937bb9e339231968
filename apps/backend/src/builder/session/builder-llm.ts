import { LlmError, type LlmChatResult, type LlmErrorInfo, type LlmProfileResolver, type Logger } from "@weft/types";
import { OpenAiCompatibleProvider, profileNotFound, type ProviderRequest } from "@weft/agent-runtime";
import { maskSecret } from "../../secrets/secret-box.ts";

export type BuilderLlmOutcome = { ok: true; result: LlmChatResult } | { ok: false; error: LlmErrorInfo };

function scrubber(secret: string | undefined): (text: string) => string {
  if (!secret) return (text) => text;
  const mask = maskSecret(secret);
  return (text) => text.split(secret).join(mask);
}

/**
 * The Builder's way to the model: the session's LLM profile (or the default one) resolved from the
 * encrypted profiles, called through the OpenAI-compatible provider with native tool calls. A
 * failure comes back as a value with the key masked wherever the provider echoed it.
 */
export class BuilderLlm {
  constructor(
    private readonly profiles: LlmProfileResolver,
    private readonly log: Logger,
  ) {}

  async chat(profileId: string | undefined, request: ProviderRequest, signal: AbortSignal): Promise<BuilderLlmOutcome> {
    let apiKey: string | undefined;
    try {
      const profile = await this.profiles.resolve(profileId);
      if (!profile) throw profileNotFound(profileId);
      apiKey = profile.apiKey;
      const outcome = await OpenAiCompatibleProvider.fromProfile(profile, this.log).complete(request, { signal });
      if (outcome.ok) return { ok: true, result: outcome.result };
      throw outcome.error;
    } catch (error) {
      if (!(error instanceof LlmError)) throw error;
      const scrub = scrubber(apiKey);
      const info = error.toInfo();
      const clean: LlmErrorInfo = { ...info, message: scrub(info.message), hint: scrub(info.hint) };
      if (info.partialText !== undefined) clean.partialText = scrub(info.partialText);
      this.log.info("builder LLM call failed", { profileId: profileId ?? "(default)", code: info.code });
      return { ok: false, error: clean };
    }
  }
}

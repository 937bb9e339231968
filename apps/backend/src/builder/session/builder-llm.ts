import { LlmError, type LlmChatResult, type LlmErrorInfo, type LlmProfileResolver, type Logger, type SecretRedactor } from "@weft/types";
import { OpenAiCompatibleProvider, profileNotFound, type ProviderRequest } from "@weft/agent-runtime";

export type BuilderLlmOutcome = { ok: true; result: LlmChatResult } | { ok: false; error: LlmErrorInfo };

/**
 * The Builder's way to the model: the session's LLM profile (or the default one) resolved from the
 * encrypted profiles, called through the OpenAI-compatible provider with native tool calls. A
 * failure comes back as a value with every stored key redacted wherever the provider echoed it.
 */
export class BuilderLlm {
  constructor(
    private readonly profiles: LlmProfileResolver,
    private readonly redactor: SecretRedactor,
    private readonly log: Logger,
  ) {}

  async chat(profileId: string | undefined, request: ProviderRequest, signal: AbortSignal): Promise<BuilderLlmOutcome> {
    try {
      const profile = await this.profiles.resolve(profileId);
      if (!profile) throw profileNotFound(profileId);
      const outcome = await OpenAiCompatibleProvider.fromProfile(profile, this.log).complete(request, { signal });
      if (outcome.ok) return { ok: true, result: outcome.result };
      throw outcome.error;
    } catch (error) {
      if (!(error instanceof LlmError)) throw error;
      const scrub = (text: string) => this.redactor.text(text);
      const info = error.toInfo();
      const clean: LlmErrorInfo = { ...info, message: scrub(info.message), hint: scrub(info.hint) };
      if (info.partialText !== undefined) clean.partialText = scrub(info.partialText);
      this.log.info("builder LLM call failed", { profileId: profileId ?? "(default)", code: info.code });
      return { ok: false, error: clean };
    }
  }
}

import { LlmError, type LlmChatResult, type LlmErrorInfo, type LlmService, type Logger, type SecretRedactor } from "@weft/types";
import type { ProviderRequest } from "@weft/agent-runtime";

export type BuilderLlmOutcome = { ok: true; result: LlmChatResult } | { ok: false; error: LlmErrorInfo };

/**
 * The Builder's way to the model: the session's LLM profile (or the default one), called through the server's LLM
 * service with native tool calls — so each call's usage is recorded for the user who sent the message and their
 * daily budget is checked before it, as for runs. A failure comes back as a value with every stored key redacted
 * wherever the provider echoed it.
 */
export class BuilderLlm {
  constructor(
    private readonly llm: LlmService,
    private readonly redactor: SecretRedactor,
    private readonly log: Logger,
  ) {}

  async chat(profileId: string | undefined, request: ProviderRequest, signal: AbortSignal, userId: string | undefined): Promise<BuilderLlmOutcome> {
    try {
      const result = await this.llm.chat({ ...request, ...(profileId !== undefined ? { profileId } : {}) }, { signal, caller: userId !== undefined ? { userId } : {} });
      return { ok: true, result };
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

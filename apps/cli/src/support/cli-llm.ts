import { ProfileLlmService, StaticLlmProfileResolver, demoLlmProfile, startDemoLlm, type DemoLlm } from "@weft/agent-runtime";
import { LlmProfileSchema, type LlmCallOptions, type LlmChatRequest, type LlmChatResult, type LlmProfile, type LlmService } from "@weft/types";
import { CliError, EXIT_USAGE } from "./cli-error.ts";

/** WEFT_LLM_TIMEOUT_MS: how long an LLM call may go without progress, when set. */
export function llmTimeoutFromEnv(env: NodeJS.ProcessEnv = process.env): number | undefined {
  const raw = env.WEFT_LLM_TIMEOUT_MS?.trim();
  if (!raw) return undefined;
  const ms = Number(raw);
  if (!Number.isInteger(ms) || ms <= 0)
    throw new CliError(`WEFT_LLM_TIMEOUT_MS must be a whole number of milliseconds above 0, got "${raw}". Fix: e.g. WEFT_LLM_TIMEOUT_MS=120000, or unset it for the default.`, EXIT_USAGE);
  return ms;
}

/** The LLM profile from WEFT_LLM_BASE_URL / WEFT_LLM_MODEL / WEFT_LLM_API_KEY / WEFT_LLM_TIMEOUT_MS, or undefined when they are not set. */
export function llmProfileFromEnv(env: NodeJS.ProcessEnv = process.env): LlmProfile | undefined {
  const timeoutMs = llmTimeoutFromEnv(env);
  const baseUrl = env.WEFT_LLM_BASE_URL?.trim();
  if (!baseUrl) return undefined;
  const model = env.WEFT_LLM_MODEL?.trim();
  if (!model) {
    throw new CliError(
      "WEFT_LLM_BASE_URL is set but WEFT_LLM_MODEL is not. Fix: set WEFT_LLM_MODEL to the model's name (e.g. gpt-4o-mini), or unset WEFT_LLM_BASE_URL to use the demo LLM.",
      EXIT_USAGE,
    );
  }
  const apiKey = env.WEFT_LLM_API_KEY?.trim();
  const parsed = LlmProfileSchema.safeParse({ id: "env", name: "WEFT_LLM_* environment", baseUrl, model, ...(apiKey ? { apiKey } : {}), ...(timeoutMs ? { timeoutMs } : {}), maxRetries: 1 });
  if (!parsed.success) throw new CliError(`WEFT_LLM_BASE_URL ${parsed.error.issues[0]?.message ?? "is invalid"}.`, EXIT_USAGE);
  return parsed.data;
}

/** The WEFT_LLM_* provider's profile, or the offline demo LLM started now (stop it with `demo.stop()`). */
export function startCliLlm(): { profile: LlmProfile; demo?: DemoLlm } {
  const profile = llmProfileFromEnv();
  if (profile) return { profile };
  const demo = startDemoLlm();
  const timeoutMs = llmTimeoutFromEnv();
  return { profile: { ...demoLlmProfile(demo.baseUrl), ...(timeoutMs ? { timeoutMs } : {}) }, demo };
}

/**
 * The LLM service of a CLI run: the WEFT_LLM_* provider when configured, else Weft's offline demo
 * LLM, started on the first call only (most workflows never call an LLM). `stop()` shuts it down.
 */
export class CliLlmService implements LlmService {
  private service: LlmService | undefined;
  private demo: DemoLlm | undefined;

  constructor(private readonly profile: LlmProfile | undefined) {}

  chat(request: LlmChatRequest, options?: LlmCallOptions): Promise<LlmChatResult> {
    if (!this.service) {
      const started = this.profile ? { profile: this.profile } : startCliLlm();
      this.demo = started.demo;
      this.service = new ProfileLlmService({ profiles: new StaticLlmProfileResolver([started.profile]) });
    }
    return this.service.chat(request, options);
  }

  async stop(): Promise<void> {
    await this.demo?.stop();
  }
}

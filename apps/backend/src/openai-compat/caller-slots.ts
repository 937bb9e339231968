import { OpenAiRefusal } from "./openai-errors.ts";

/** How long a refused caller is told to wait before trying again (Retry-After; the OpenAI SDKs honour it). */
const RETRY_AFTER_MS = 1000;

/**
 * At most `limit` chat completions in flight per user in this process: each holds an agent loop (its LLM calls, its
 * tools), so one token holder cannot occupy the agent host with requests sent at once. Budgets bound what the calls
 * cost; this bounds how many run together.
 */
export class CallerSlots {
  private readonly inFlight = new Map<string, number>();

  constructor(private readonly limit: number) {}

  /** A slot for the user, freed by the answer (once); refused with 429 when the user has `limit` in flight. */
  take(userId: string): () => void {
    const now = this.inFlight.get(userId) ?? 0;
    if (now >= this.limit) {
      throw new OpenAiRefusal(
        429,
        "rate_limit_exceeded",
        `You have ${now} chat completions in flight, the most one user may have at once here; wait for one to finish and send this again. An owner sets the limit with WEFT_V1_CONCURRENCY (default 8).`,
        { retryAfterMs: RETRY_AFTER_MS, limit: this.limit },
      );
    }
    this.inFlight.set(userId, now + 1);
    let freed = false;
    return () => {
      if (freed) return;
      freed = true;
      const left = (this.inFlight.get(userId) ?? 1) - 1;
      if (left <= 0) this.inFlight.delete(userId);
      else this.inFlight.set(userId, left);
    };
  }
}

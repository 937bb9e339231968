/**
 * Per hook, a token bucket of `perMinute` requests refilled evenly over the minute: bursts up to the limit,
 * then one request per 60/perMinute seconds. In memory, per API process (each counts its own requests).
 */
export class HookRateLimit {
  private readonly buckets = new Map<string, { tokens: number; at: number }>();

  constructor(private readonly now: () => number = Date.now) {}

  /** 0 when the request may go on (and is counted), else milliseconds until the next one may. */
  take(hook: string, perMinute: number): number {
    const now = this.now();
    const perMs = perMinute / 60_000;
    const bucket = this.buckets.get(hook) ?? { tokens: perMinute, at: now };
    bucket.tokens = Math.min(perMinute, bucket.tokens + (now - bucket.at) * perMs);
    bucket.at = now;
    this.buckets.set(hook, bucket);
    if (bucket.tokens >= 1) {
      bucket.tokens -= 1;
      return 0;
    }
    return Math.ceil((1 - bucket.tokens) / perMs);
  }
}

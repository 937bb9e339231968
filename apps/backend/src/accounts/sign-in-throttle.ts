/**
 * Slows guessing: after `maxFailures` wrong passwords for one username (or wrong tokens from one client
 * address) within `windowMs`, further tries for it are refused until the oldest failure leaves the window.
 * Per process (several API processes each count their own), in memory: a restart forgets, which argon2id's
 * cost (passwords) and 256 random bits (personal tokens) cover.
 */
export class SignInThrottle {
  private readonly failures = new Map<string, number[]>();

  constructor(
    private readonly maxFailures = 10,
    private readonly windowMs = 15 * 60_000,
    private readonly now: () => number = Date.now,
  ) {}

  /** Milliseconds until the username may try again, or 0 when it may now. */
  waitFor(username: string): number {
    const recent = this.recent(username);
    return recent.length < this.maxFailures ? 0 : recent[0] + this.windowMs - this.now();
  }

  failed(username: string): void {
    const recent = this.recent(username);
    recent.push(this.now());
    this.failures.set(username, recent);
    // Bounded memory: names nobody tried for a window are dropped as others are counted.
    if (this.failures.size > 10_000) for (const [name] of this.failures) if (this.recent(name).length === 0) this.failures.delete(name);
  }

  succeeded(username: string): void {
    this.failures.delete(username);
  }

  private recent(username: string): number[] {
    const since = this.now() - this.windowMs;
    return (this.failures.get(username) ?? []).filter((at) => at > since);
  }
}

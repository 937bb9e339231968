import { messageOf, type Logger } from "@weft/types";

/**
 * One loop per API process, whatever the number of waiting runs: every `intervalMs` it lets the service take overdue
 * approvals' default decisions and resume runs a dead process left decided but not resumed. Sweeps never overlap.
 */
export class ApprovalSweeper {
  private timer: ReturnType<typeof setInterval> | undefined;
  private running: Promise<void> | undefined;

  constructor(
    private readonly sweep: () => Promise<unknown>,
    private readonly intervalMs: number,
    private readonly log: Logger,
  ) {}

  start(): void {
    if (this.timer !== undefined) return;
    this.timer = setInterval(() => this.tick(), this.intervalMs);
    this.timer.unref?.();
    this.tick();
  }

  /** Stops the loop and waits for a sweep under way. */
  async stop(): Promise<void> {
    clearInterval(this.timer);
    this.timer = undefined;
    await this.running;
  }

  private tick(): void {
    if (this.running !== undefined) return;
    this.running = this.sweep()
      .then(
        () => undefined,
        (error: unknown) => this.log.error("the approvals sweep failed", { error: messageOf(error) }),
      )
      .finally(() => (this.running = undefined));
  }
}

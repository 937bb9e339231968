/**
 * A repeating timer that a scene switches on and off (`setActive`, with the scene's running state)
 * and a user pauses and resumes on its own (`pause` / `resume`). It ticks only while both allow
 * it, and never after `stop()`.
 */
export class IntervalTimer {
  private handle: ReturnType<typeof setInterval> | null = null;
  private active = false;
  private paused = false;
  private stopped = false;
  private count = 0;

  constructor(
    readonly id: string,
    readonly everyMs: number,
    private readonly onTick: (tick: number) => void,
  ) {}

  /** Continues a saved timer: its tick count and whether a user had paused it. */
  load(saved: { ticks: number; paused: boolean }): void {
    this.count = saved.ticks;
    this.paused = saved.paused;
    this.sync();
  }

  get ticks(): number {
    return this.count;
  }

  get isPaused(): boolean {
    return this.paused;
  }

  get isRunning(): boolean {
    return this.handle !== null;
  }

  setActive(active: boolean): void {
    this.active = active;
    this.sync();
  }

  pause(): void {
    this.paused = true;
    this.sync();
  }

  resume(): void {
    this.paused = false;
    this.sync();
  }

  stop(): void {
    this.stopped = true;
    this.sync();
  }

  private sync(): void {
    const shouldRun = this.active && !this.paused && !this.stopped;
    if (shouldRun && this.handle === null) {
      const handle = setInterval(() => {
        // A callback already queued when the timer was switched off must not tick.
        if (this.handle !== handle) return;
        this.onTick(++this.count);
      }, this.everyMs);
      this.handle = handle;
    } else if (!shouldRun && this.handle !== null) {
      clearInterval(this.handle);
      this.handle = null;
    }
  }
}

/**
 * A scene's own clock: the time it has spent running in this session. Timers fire on it (they run only while the
 * scene runs), so it is the scene's simulated time; paused time and a server's downtime do not count. Saved with the
 * scene's state, so a restored session goes on from where it was.
 */
export class SceneClock {
  private savedMs = 0;
  private since: number | undefined;

  constructor(private readonly now: () => number) {}

  /** Starts or stops the clock; a repeated call changes nothing. */
  setRunning(running: boolean): void {
    if (running) {
      this.since ??= this.now();
      return;
    }
    if (this.since === undefined) return;
    this.savedMs += Math.max(0, this.now() - this.since);
    this.since = undefined;
  }

  /** The running time at `at` (epoch ms): what was saved plus the current stretch. */
  runningMs(at: number = this.now()): number {
    return this.since === undefined ? this.savedMs : this.savedMs + Math.max(0, at - this.since);
  }

  /** A restored state's running time; the clock starts again only when the restored scene runs. */
  load(runningMs: number): void {
    this.savedMs = runningMs;
    this.since = undefined;
  }
}

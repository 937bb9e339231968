/** A job the queue starts when a slot is free; it must settle when its signal aborts. */
export type RunJob = (signal: AbortSignal) => Promise<void>;

interface Waiting {
  id: string;
  job: RunJob;
}

/**
 * Runs at most `concurrency` jobs at once, the rest wait in arrival order. A burst of run
 * requests therefore waits its turn instead of overloading the process.
 */
export class RunQueue {
  private readonly waiting: Waiting[] = [];
  private readonly running = new Map<string, AbortController>();
  private idleResolvers: (() => void)[] = [];

  constructor(
    readonly concurrency: number,
    readonly maxWaiting: number,
    private readonly onJobError: (id: string, error: unknown) => void,
  ) {
    if (!Number.isInteger(concurrency) || concurrency < 1) throw new RangeError(`run concurrency must be a positive integer, got ${concurrency}`);
  }

  /** 0 when the job starts right away, otherwise its place in line (1 = next). */
  enqueue(id: string, job: RunJob): number {
    if (this.running.size < this.concurrency && this.waiting.length === 0) {
      this.start(id, job);
      return 0;
    }
    this.waiting.push({ id, job });
    return this.waiting.length;
  }

  /** True when `maxWaiting` jobs wait: callers refuse new work before recording it. */
  isFull(): boolean {
    return this.waiting.length >= this.maxWaiting;
  }

  /** Place in line (1 = next), or undefined when the job is not waiting. */
  position(id: string): number | undefined {
    const index = this.waiting.findIndex((w) => w.id === id);
    return index === -1 ? undefined : index + 1;
  }

  isRunning(id: string): boolean {
    return this.running.has(id);
  }

  get waitingCount(): number {
    return this.waiting.length;
  }

  get runningCount(): number {
    return this.running.size;
  }

  /** Takes a waiting job out of line; false when it is not waiting. */
  removeWaiting(id: string): boolean {
    const index = this.waiting.findIndex((w) => w.id === id);
    if (index === -1) return false;
    this.waiting.splice(index, 1);
    return true;
  }

  /** Aborts a running job's signal; false when it is not running. */
  abort(id: string, reason: string): boolean {
    const controller = this.running.get(id);
    if (!controller) return false;
    controller.abort(new Error(reason));
    return true;
  }

  /** Empties the line, returning the ids that were waiting (shutdown). */
  takeWaiting(): string[] {
    return this.waiting.splice(0).map((w) => w.id);
  }

  runningIds(): string[] {
    return [...this.running.keys()];
  }

  /** Resolves when no job is running. */
  idle(): Promise<void> {
    if (this.running.size === 0) return Promise.resolve();
    return new Promise((resolve) => this.idleResolvers.push(resolve));
  }

  private start(id: string, job: RunJob): void {
    const controller = new AbortController();
    this.running.set(id, controller);
    void Promise.resolve()
      .then(() => job(controller.signal))
      .catch((error: unknown) => this.onJobError(id, error))
      .finally(() => {
        this.running.delete(id);
        this.next();
      });
  }

  private next(): void {
    while (this.running.size < this.concurrency && this.waiting.length > 0) {
      const item = this.waiting.shift() as Waiting;
      this.start(item.id, item.job);
    }
    if (this.running.size === 0) {
      const resolvers = this.idleResolvers;
      this.idleResolvers = [];
      for (const resolve of resolvers) resolve();
    }
  }
}

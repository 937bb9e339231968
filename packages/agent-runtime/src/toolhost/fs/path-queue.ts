/**
 * Serialises work per key (a file's real path): calls for the same file run one after another in
 * arrival order, calls for different files run at once. Shared by every tool host in the process,
 * so two hosts over the same folder cannot interleave a read-modify-write either.
 */
export class PathQueue {
  private readonly tails = new Map<string, Promise<void>>();

  run<T>(key: string, work: () => Promise<T> | T): Promise<T> {
    const previous = this.tails.get(key) ?? Promise.resolve();
    const result = previous.then(work);
    const tail = result.then(
      () => undefined,
      () => undefined,
    );
    this.tails.set(key, tail);
    void tail.then(() => {
      if (this.tails.get(key) === tail) this.tails.delete(key);
    });
    return result;
  }

  /** Keys with work queued or running (for tests and diagnostics). */
  get size(): number {
    return this.tails.size;
  }
}

export const sharedPathQueue = new PathQueue();

/**
 * Runs tasks one after another, in call order: a promise chain used as a mutex. A failing task
 * rejects only its own caller; the chain goes on.
 */
export class SerialLock {
  private tail: Promise<unknown> = Promise.resolve();

  run<T>(task: () => T | Promise<T>): Promise<T> {
    const result = this.tail.then(task);
    this.tail = result.catch(() => undefined);
    return result;
  }
}

import { afterAll, beforeAll } from "vitest";

/** What the tests of a file share, and how they reach it. */
export interface Started<T> {
  /** Stands in for the started value: each use reads it anew, so it can be declared at the top of the file. */
  handle: T;
  /** The started value, or undefined before it started (or when starting failed). */
  current(): T | undefined;
}

/**
 * Something the tests of a file share: started before them (`start`, then `setup` in the same hook) and stopped
 * after them, also when `setup` failed. The handle throws when it is used outside the file's tests and hooks.
 */
export function useStarted<T extends object>(what: string, start: () => Promise<T>, stop: (value: T) => Promise<void>, setup?: (value: T) => Promise<void>, timeoutMs = 120_000): Started<T> {
  let started: T | undefined;
  beforeAll(async () => {
    started = await start();
    await setup?.(started);
  }, timeoutMs);
  afterAll(async () => {
    if (started) await stop(started);
  });
  const current = (): T => {
    if (!started) throw new Error(`${what} is not started yet: use it inside a test or a hook`);
    return started;
  };
  // A proxy, so the handle has every member of T without a getter written out for each; methods keep their object.
  const handle = new Proxy({} as T, {
    get(_target, key) {
      // Not a promise: `await` and promise resolution look for `then` and must not start reading.
      if (key === "then") return undefined;
      const value = current();
      const member: unknown = Reflect.get(value, key, value);
      return typeof member === "function" ? member.bind(value) : member;
    },
  });
  return { handle, current: () => started };
}

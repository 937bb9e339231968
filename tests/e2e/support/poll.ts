import { expect } from "vitest";

/**
 * expect.poll with room for a loaded machine (the default second is short when the test suite,
 * the server and Chromium share two cores).
 */
export function poll<T>(fn: () => T | Promise<T>, options: { timeout?: number } = {}) {
  return expect.poll(fn, { interval: 50, timeout: 6000, ...options });
}

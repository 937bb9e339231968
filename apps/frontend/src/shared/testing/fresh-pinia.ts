import { createPinia, setActivePinia, type Pinia } from "pinia";
import { afterEach, beforeEach, vi } from "vitest";

/** A new, active pinia: each store test starts from the stores' initial state, as a page load does. */
export function freshPinia(): Pinia {
  const pinia = createPinia();
  setActivePinia(pinia);
  return pinia;
}

/** For a store test file whose stores remember things in the browser: each test starts from an empty localStorage, a fresh pinia and real timers. */
export function freshStoresEachTest(): void {
  beforeEach(() => {
    localStorage.clear();
    freshPinia();
  });
  afterEach(() => void vi.useRealTimers());
}

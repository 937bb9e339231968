// @vitest-environment happy-dom
import { effectScope, nextTick } from "vue";
import { describe, expect, it, vi } from "vitest";
import { useSceneMemory } from "./useSceneMemory.ts";
import { freshStoresEachTest } from "../../shared/testing/fresh-pinia.ts";
import { useScenesStore } from "./scenes-store.ts";

const SEEN_KEY = "weft.scenes.seen";
const stored = () => JSON.parse(localStorage.getItem(SEEN_KEY) ?? "null") as unknown;

freshStoresEachTest();

describe("scenes store", () => {
  it("notes the stream positions seen, and writes them over the stored ones only when asked", () => {
    localStorage.setItem(SEEN_KEY, JSON.stringify({ old: 3, a: 1 }));
    const scenes = useScenesStore();
    scenes.noteSeen("a", 7);
    scenes.noteSeen("b", 2);
    expect(stored()).toEqual({ old: 3, a: 1 });
    scenes.rememberSeen();
    expect(stored()).toEqual({ old: 3, a: 7, b: 2 });
  });

  it("useSceneMemory writes positions in batches, and a waiting batch when its scope ends", async () => {
    vi.useFakeTimers();
    const scenes = useScenesStore();
    const scope = effectScope();
    scope.run(() => useSceneMemory());
    scenes.noteSeen("a", 1);
    await nextTick();
    scenes.noteSeen("a", 2);
    await nextTick();
    expect(stored()).toBeNull();
    vi.advanceTimersByTime(300);
    expect(stored()).toEqual({ a: 2 });
    scenes.noteSeen("a", 3);
    await nextTick();
    scope.stop();
    expect(stored()).toEqual({ a: 3 });
    scenes.noteSeen("a", 4);
    await nextTick();
    vi.advanceTimersByTime(300);
    expect(stored()).toEqual({ a: 3 });
  });
});

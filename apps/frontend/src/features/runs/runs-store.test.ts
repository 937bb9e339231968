// @vitest-environment happy-dom
import { effectScope, nextTick } from "vue";
import { describe, expect, it } from "vitest";
import { useRunMemory } from "./useRunMemory.ts";
import { freshStoresEachTest } from "../../shared/testing/fresh-pinia.ts";
import { useRunsStore } from "./runs-store.ts";

const SHOWN_RUNS_KEY = "weft.shownRuns";
const stored = () => JSON.parse(localStorage.getItem(SHOWN_RUNS_KEY) ?? "null") as unknown;

freshStoresEachTest();

describe("runs store", () => {
  it("writes which run each tab shows only when asked, leaving out the tabs of past runs", () => {
    const runs = useRunsStore();
    runs.shown["tab-1"] = "run-1";
    runs.shown["run:run-0"] = "run-0";
    runs.shown["tab-2"] = null;
    expect(stored()).toBeNull();
    runs.rememberShown();
    expect(stored()).toEqual({ "tab-1": "run-1" });
  });

  it("useRunMemory writes each change while its scope lives, and nothing after", async () => {
    const runs = useRunsStore();
    const scope = effectScope();
    scope.run(() => useRunMemory());
    runs.shown["tab-1"] = "run-1";
    await nextTick();
    expect(stored()).toEqual({ "tab-1": "run-1" });
    scope.stop();
    runs.shown["tab-1"] = "run-2";
    await nextTick();
    expect(stored()).toEqual({ "tab-1": "run-1" });
  });
});

// @vitest-environment happy-dom
import { effectScope, nextTick } from "vue";
import { describe, expect, it, vi } from "vitest";
import { useThemeMemory } from "./useThemeMemory.ts";
import { freshStoresEachTest } from "../testing/fresh-pinia.ts";
import { THEME_KEY, useUiStore } from "./ui-store.ts";

freshStoresEachTest();

describe("ui store", () => {
  it("starts from the remembered theme and toggles it without writing anything itself", () => {
    localStorage.setItem(THEME_KEY, JSON.stringify("dark"));
    const ui = useUiStore();
    expect(ui.theme).toBe("dark");
    ui.toggleTheme();
    expect(ui.theme).toBe("light");
    expect(localStorage.getItem(THEME_KEY)).toBe(JSON.stringify("dark"));
  });

  it("useThemeMemory puts the theme on the page and remembers it while its scope lives", async () => {
    const ui = useUiStore();
    const scope = effectScope();
    scope.run(() => useThemeMemory());
    expect(document.documentElement.dataset.theme).toBe(ui.theme);
    ui.theme = "dark";
    await nextTick();
    expect(document.documentElement.dataset.theme).toBe("dark");
    expect(localStorage.getItem(THEME_KEY)).toBe(JSON.stringify("dark"));
    scope.stop();
    ui.toggleTheme();
    await nextTick();
    expect(localStorage.getItem(THEME_KEY)).toBe(JSON.stringify("dark"));
  });

  it("keeps the last five toasts and dismisses each after its timeout", () => {
    vi.useFakeTimers();
    const ui = useUiStore();
    for (let i = 0; i < 6; i++) ui.toast("info", `toast ${i}`, undefined, 1000);
    expect(ui.toasts.map((t) => t.message)).toEqual(["toast 1", "toast 2", "toast 3", "toast 4", "toast 5"]);
    const sticky = ui.toast("warning", "stays", undefined, 0);
    vi.advanceTimersByTime(1000);
    expect(ui.toasts.map((t) => t.id)).toEqual([sticky]);
    ui.dismiss(sticky);
    expect(ui.toasts).toEqual([]);
  });
});

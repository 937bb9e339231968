import { describe, expect, it } from "vitest";
import { IntervalTimer } from "./interval-timer.ts";

const sleep = (ms: number) => new Promise((r) => setTimeout(r, ms));

async function until(check: () => boolean): Promise<void> {
  while (!check()) await sleep(1);
}

describe("IntervalTimer", () => {
  it("ticks only while active and not paused, and never after stop", async () => {
    const ticks: number[] = [];
    const timer = new IntervalTimer("clock", 2, (t) => ticks.push(t));
    await sleep(10);
    expect(ticks).toEqual([]);

    timer.setActive(true);
    await until(() => ticks.length >= 3);
    expect(ticks.slice(0, 3)).toEqual([1, 2, 3]);

    timer.pause();
    const atPause = ticks.length;
    await sleep(12);
    expect(ticks.length).toBe(atPause);
    expect(timer.isRunning).toBe(false);

    timer.resume();
    await until(() => ticks.length >= atPause + 2);
    timer.setActive(false);
    const atInactive = ticks.length;
    await sleep(12);
    expect(ticks.length).toBe(atInactive);

    timer.setActive(true);
    await until(() => ticks.length > atInactive);
    timer.stop();
    const atStop = ticks.length;
    timer.setActive(true);
    timer.resume();
    await sleep(12);
    expect(ticks.length).toBe(atStop);
    expect(ticks).toEqual(Array.from({ length: atStop }, (_, i) => i + 1));
  });

  it("continues a saved tick count and pause", async () => {
    const ticks: number[] = [];
    const timer = new IntervalTimer("clock", 2, (t) => ticks.push(t));
    timer.load({ ticks: 41, paused: true });
    timer.setActive(true);
    await sleep(8);
    expect(ticks).toEqual([]);
    timer.resume();
    await until(() => ticks.length > 0);
    timer.stop();
    expect(ticks[0]).toBe(42);
  });
});

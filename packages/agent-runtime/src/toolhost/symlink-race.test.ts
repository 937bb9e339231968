import { spawn, type ChildProcess } from "node:child_process";
import { readdirSync } from "node:fs";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import type { ToolResult } from "@weft/types";
import { SECRET, createFixture, resultText, type Fixture } from "./testing/fixture.ts";

/**
 * A second process swaps @project/swap for a symlink to the outside folder and back, thousands of
 * times a second, while this one reads and writes through it. Whatever the timing, nothing from
 * outside may be read and nothing may be written there.
 */
let fx: Fixture;
let swapper: ChildProcess | undefined;

beforeEach(() => {
  fx = createFixture();
  fx.put("project/swap/secret.txt", "inside\n");
});
afterEach(() => {
  swapper?.kill("SIGKILL");
  fx.cleanup();
});

async function startSwapper(ms: number): Promise<void> {
  const script = join(import.meta.dirname, "testing/swap-folder.ts");
  swapper = spawn(process.execPath, [script, join(fx.project, "swap"), fx.outside, String(ms)], { stdio: ["ignore", "pipe", "inherit"] });
  await new Promise<void>((resolve, reject) => {
    swapper?.stdout?.once("data", () => resolve());
    swapper?.once("error", reject);
  });
}

function tally(results: ToolResult[]): Record<string, number> {
  const counts: Record<string, number> = {};
  for (const r of results) {
    const key = r.ok ? "ok" : r.error.code;
    counts[key] = (counts[key] ?? 0) + 1;
  }
  return counts;
}

describe("a folder swapped for a symlink while tools run", () => {
  it("never lets a read, list or search see the outside", async () => {
    await startSwapper(1500);
    const results: ToolResult[] = [];
    const until = performance.now() + 1200;
    for (let i = 0; performance.now() < until; i++) {
      const tool = i % 10 === 0 ? "fs.list" : i % 10 === 1 ? "fs.search" : "fs.read";
      const args = tool === "fs.read" ? { path: "@project/swap/secret.txt" } : tool === "fs.list" ? { path: "@project/swap" } : { path: "@project/swap", pattern: "SECRET" };
      const result = await fx.host.call(tool, args, { runId: "race" });
      expect(resultText(result)).not.toContain(SECRET);
      if (result.ok && tool === "fs.read") expect(result.content).toBe("inside\n");
      results.push(result);
    }
    const counts = tally(results);
    // The race really happened: some calls saw the real folder, some the link (or the moment between).
    expect(counts.ok ?? 0).toBeGreaterThan(0);
    expect(counts.E_SANDBOX_VIOLATION ?? 0).toBeGreaterThan(0);
    expect(
      Object.keys(counts).filter((code) => !["ok", "E_SANDBOX_VIOLATION", "ENOENT"].includes(code)),
      JSON.stringify(results.filter((r) => !r.ok).slice(0, 3)),
    ).toEqual([]);
  });

  it("never lets a write land outside", async () => {
    await startSwapper(1500);
    const results: ToolResult[] = [];
    const until = performance.now() + 1200;
    for (let i = 0; performance.now() < until; i++) {
      results.push(await fx.host.call("fs.write", { path: `@project/swap/out-${i % 50}.txt`, content: `write ${i}\n`, createDirs: false }, { runId: "race" }));
    }
    expect(readdirSync(fx.outside)).toEqual(["secret.txt"]);
    const counts = tally(results);
    expect(counts.ok ?? 0).toBeGreaterThan(0);
    expect(counts.E_SANDBOX_VIOLATION ?? 0).toBeGreaterThan(0);
  });
});

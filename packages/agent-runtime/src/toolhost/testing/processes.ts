/**
 * Test helper: finds live processes by their command line, through /proc, so a test can see what
 * a command left running even when it ran in its own PID namespace (where its pids mean nothing
 * outside).
 */
import { readFileSync, readdirSync } from "node:fs";

/** Pids of live (not zombie) processes whose command line, arguments joined by spaces, contains `marker`. */
export function processesMatching(marker: string): number[] {
  const found: number[] = [];
  for (const name of readdirSync("/proc")) {
    if (!/^\d+$/.test(name) || Number(name) === process.pid) continue;
    try {
      const commandLine = readFileSync(`/proc/${name}/cmdline`, "utf8").split("\u0000").join(" ");
      if (!commandLine.includes(marker)) continue;
      if (/^\d+ \(.*\) [ZX]/.test(readFileSync(`/proc/${name}/stat`, "utf8"))) continue;
      found.push(Number(name));
    } catch {
      // Gone while we looked.
    }
  }
  return found;
}

/** A number no other test's command line will contain, for `sleep` to wait on. */
export function uniqueSeconds(): string {
  return `${30 + Math.floor(Math.random() * 1000)}.${process.pid}${Date.now() % 100000}`;
}

/**
 * Polls `processesMatching(marker)` until `done` accepts the pids (a process seen starting, or every one gone), failing
 * with `what` after `timeoutMs`: on a busy machine a sandbox starts, and a killed process ends, when the CPU gets to it.
 */
export async function untilProcesses(marker: string, what: string, done: (pids: number[]) => boolean, timeoutMs = 30_000): Promise<number[]> {
  const deadline = Date.now() + timeoutMs;
  for (;;) {
    const pids = processesMatching(marker);
    if (done(pids)) return pids;
    if (Date.now() > deadline) throw new Error(`timed out waiting for ${what}: ${pids.length} processes match "${marker}"`);
    await new Promise((r) => setTimeout(r, 25));
  }
}

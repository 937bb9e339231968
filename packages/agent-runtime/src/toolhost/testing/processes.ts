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

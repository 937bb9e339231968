/**
 * Temp folders for tests. Every folder `tempDir()` makes is remembered, and `removeTempDirs()` (run after each test file by
 * `vitest-setup.ts`) removes them with their `<dir>-project` siblings: a server given a data folder makes its `@project/`
 * folder beside it (tools/project-dir.ts). That sweep runs when a test fails or forgets to clean up, so /tmp does not fill up.
 */
import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const made = new Set<string>();

export function tempDir(prefix = "weft-backend-"): string {
  const dir = mkdtempSync(join(tmpdir(), prefix));
  made.add(dir);
  return dir;
}

export function removeDir(dir: string): void {
  rmSync(dir, { recursive: true, force: true });
}

/**
 * Removes every folder `tempDir()` made in this module instance, and its `-project` sibling. Not called by itself outside
 * vitest: a bench (run by Bun) removes its own folders, so that BENCH_KEEP=1 can keep one to look into.
 */
export function removeTempDirs(): void {
  for (const dir of made) {
    removeDir(dir);
    removeDir(`${dir}-project`);
  }
  made.clear();
}

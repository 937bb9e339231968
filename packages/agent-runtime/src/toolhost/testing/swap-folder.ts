/**
 * Test helper process: swaps a folder for a symlink to `target` and back, as fast as it can, until
 * killed or `durationMs` passes. Run as `bun swap-folder.ts <folder> <target> <durationMs>`.
 */
import { renameSync, symlinkSync, unlinkSync } from "node:fs";

const [folder, target, duration] = process.argv.slice(2);
const until = Date.now() + Number(duration);
const parked = `${folder}.real`;

function spin(microseconds: number): void {
  const end = performance.now() + microseconds / 1000;
  while (performance.now() < end);
}

let swaps = 0;
process.stdout.write("started\n");
while (Date.now() < until) {
  renameSync(folder, parked);
  symlinkSync(target, folder);
  spin(100);
  unlinkSync(folder);
  renameSync(parked, folder);
  spin(100);
  swaps++;
}
process.stdout.write(`swaps ${swaps}\n`);

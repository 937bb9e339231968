/**
 * The test command: typecheck, lint and the import-graph check, then vitest (under Bun, so tests use bun:sqlite and Bun.serve).
 * Ends with the line CI reads: `N passed, N failed`.
 */
import { mkdtempSync, readFileSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";

const extra = process.argv.slice(2);
let passed = 0;
let failed = 0;

function run(cmd: string[]): number {
  console.log(`\n$ ${cmd.join(" ")}`);
  const proc = Bun.spawnSync(cmd, { stdout: "inherit", stderr: "inherit", env: process.env });
  return proc.exitCode ?? 1;
}

if (extra.length === 0) {
  // Typecheck, lint and the import graph (no folders importing each other, no import circle: scripts/import-graph.ts)
  // each count as one test, so a type error, a lint finding or an import pointing back up fails the run.
  for (const step of ["typecheck", "lint", "check:imports"]) {
    const ok = run(["bun", "run", step]) === 0;
    if (ok) passed++;
    else failed++;
    console.log(`${step}: ${ok ? "passed" : "FAILED"}`);
  }
}

const dir = mkdtempSync(join(tmpdir(), "weft-vitest-"));
const report = join(dir, "report.json");
const code = run(["bunx", "--bun", "vitest", "run", "--reporter=default", "--reporter=json", `--outputFile.json=${report}`, ...extra]);
try {
  const json = JSON.parse(readFileSync(report, "utf8")) as { numPassedTests: number; numFailedTests: number; numTotalTests: number; testResults: { status: string; message?: string; name: string }[] };
  passed += json.numPassedTests;
  failed += json.numFailedTests;
  // A file that fails to load has no tests in it but must still count as a failure.
  const broken = json.testResults.filter((f) => f.status === "failed" && f.message);
  failed += broken.length;
  for (const f of broken) console.log(`failed to load: ${f.name}\n${f.message}`);
} catch {
  console.log("vitest produced no report");
  failed++;
}
if (code !== 0 && failed === 0) failed++;
rmSync(dir, { recursive: true, force: true });
console.log(`\n${passed} passed, ${failed} failed`);
process.exit(failed === 0 ? 0 : 1);

import type { EvalRun } from "@weft/types";

export const escapeXml = (text: string) =>
  text
    // Characters XML 1.0 cannot hold at all are dropped (a model's output may have them).
    .replace(/[^\t\n\r\u0020-\uD7FF\uE000-\uFFFD\u{10000}-\u{10FFFF}]/gu, "")
    .replace(/&/g, "&amp;")
    .replace(/</g, "&lt;")
    .replace(/>/g, "&gt;")
    .replace(/"/g, "&quot;");

/** An eval run as JUnit XML for CI: one <testsuite> per side, one <testcase> per case, a <failure> per failing case. */
export function evalRunJunit(run: EvalRun): string {
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>'];
  const tests = run.sides.reduce((n, s) => n + s.results.length, 0);
  const failures = run.sides.reduce((n, s) => n + s.failed, 0);
  lines.push(`<testsuites name="${escapeXml(run.suiteName)}" tests="${tests}" failures="${failures}">`);
  for (const side of run.sides) {
    const label = [side.side.version !== undefined ? `version ${side.side.version}` : "latest", side.side.profileId !== undefined ? `profile ${side.side.profileId}` : ""].filter(Boolean).join(", ");
    const seconds = side.results.reduce((n, r) => n + r.durationMs, 0) / 1000;
    lines.push(`  <testsuite name="${escapeXml(`${run.suiteName} (${label})`)}" tests="${side.results.length}" failures="${side.failed}" errors="0" time="${seconds.toFixed(3)}">`);
    for (const result of side.results) {
      const open = `    <testcase classname="${escapeXml(run.suiteName)}" name="${escapeXml(result.name)}" time="${(result.durationMs / 1000).toFixed(3)}"`;
      if (result.pass) {
        lines.push(`${open}/>`);
        continue;
      }
      const failed = result.assertions.filter((a) => !a.pass);
      const detail = failed.map((a) => `${a.kind}: ${a.message}\n  expected: ${JSON.stringify(a.expected)}\n  actual:   ${JSON.stringify(a.actual)}`).join("\n");
      lines.push(`${open}>`, `      <failure message="${escapeXml(failed[0]?.message ?? result.error ?? "failed")}">${escapeXml(detail)}</failure>`, "    </testcase>");
    }
    lines.push("  </testsuite>");
  }
  lines.push("</testsuites>");
  return `${lines.join("\n")}\n`;
}

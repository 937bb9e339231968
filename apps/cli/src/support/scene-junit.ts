import type { SceneSuiteRun } from "@weft/types";
import { escapeXml } from "./junit.ts";

/** A scene suite run as JUnit XML: one <testcase> per case and variation, a <failure> naming each broken invariant's first step, value and link. */
export function sceneRunJunit(run: SceneSuiteRun, server: string): string {
  const seconds = (ms: number) => (ms / 1000).toFixed(3);
  const lines = ['<?xml version="1.0" encoding="UTF-8"?>', `<testsuites name="${escapeXml(run.suiteName)}" tests="${run.results.length}" failures="${run.failed}">`];
  lines.push(
    `  <testsuite name="${escapeXml(`${run.suiteName} (scene ${run.sceneId})`)}" tests="${run.results.length}" failures="${run.failed}" errors="0" time="${seconds(run.results.reduce((n, r) => n + r.durationMs, 0))}">`,
  );
  for (const r of run.results) {
    const open = `    <testcase classname="${escapeXml(run.suiteName)}" name="${escapeXml(`${r.caseName} · ${r.variation}`)}" time="${seconds(r.durationMs)}"`;
    if (r.pass) {
      lines.push(`${open}/>`);
      continue;
    }
    const detail = [
      ...(r.error !== undefined ? [`error: ${r.error}`] : []),
      ...r.broken.map((b) => `${b.name}: ${b.message}\n  value: ${JSON.stringify(b.value)}\n  timeline: ${new URL(b.link, server).href}`),
    ].join("\n");
    lines.push(`${open}>`, `      <failure message="${escapeXml(r.broken[0]?.message ?? r.error ?? "failed")}">${escapeXml(detail)}</failure>`, "    </testcase>");
  }
  lines.push("  </testsuite>", "</testsuites>");
  return `${lines.join("\n")}\n`;
}

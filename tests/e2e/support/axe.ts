import { readFileSync } from "node:fs";
import { createRequire } from "node:module";
import type { AxeResults } from "axe-core";
import type { Page } from "playwright-core";

const AXE_SOURCE = readFileSync(createRequire(import.meta.url).resolve("axe-core/axe.min.js"), "utf8");

/** One rule broken, with where: enough to find the element without a screenshot. */
export interface AxeFinding {
  rule: string;
  impact: string;
  help: string;
  targets: string[];
}

/**
 * axe-core's WCAG 2.1 A and AA rules over the page as it is; only serious and critical findings.
 * The script is evaluated through the DevTools protocol, which the editor's CSP does not govern.
 */
export async function seriousViolations(page: Page): Promise<AxeFinding[]> {
  if (!(await page.evaluate(() => "axe" in window))) await page.evaluate(AXE_SOURCE);
  const results: Pick<AxeResults, "violations"> = await page.evaluate(async () => {
    const { axe } = window as unknown as { axe: typeof import("axe-core") };
    const { violations } = await axe.run(document, { runOnly: { type: "tag", values: ["wcag2a", "wcag2aa", "wcag21a", "wcag21aa"] }, resultTypes: ["violations"] });
    return { violations };
  });
  return results.violations
    .filter((v) => v.impact === "serious" || v.impact === "critical")
    .map((v) => ({
      rule: v.id,
      impact: v.impact ?? "",
      help: v.help,
      targets: v.nodes.slice(0, 6).map((n) => `${n.target.join(" ")}${n.failureSummary ? ` — ${n.failureSummary.split("\n").slice(1, 2).join("").trim()}` : ""}`),
    }));
}

/** axe over the page as shown, in the light theme and then the dark one (the themes are CSS variables under `data-theme`): the findings by theme. */
export async function seriousInBothThemes(page: Page): Promise<Record<string, AxeFinding[]>> {
  const found: Record<string, AxeFinding[]> = {};
  for (const theme of ["light", "dark"]) {
    await page.evaluate((t) => (document.documentElement.dataset.theme = t), theme);
    const violations = await seriousViolations(page);
    if (violations.length) found[theme] = violations;
  }
  await page.evaluate(() => (document.documentElement.dataset.theme = "light"));
  return found;
}

import { USAGE_GROUPS, type UsageGroup, type UsageRow } from "./usage-schemas.ts";

const SUMS = ["calls", "promptTokens", "completionTokens", "cachedTokens", "reasoningTokens", "totalTokens", "costUsd", "unpricedCalls", "estimatedCalls"] as const;

/** A field as RFC 4180 writes it; a leading =, +, - or @ is quoted with a ' so a spreadsheet does not run it as a formula. */
function field(value: string | number | null | undefined): string {
  if (value === null || value === undefined) return "";
  let text = String(value);
  if (typeof value === "string" && /^[=+\-@\t\r]/.test(text)) text = `'${text}`;
  return /[",\r\n]/.test(text) ? `"${text.replaceAll('"', '""')}"` : text;
}

/** The report as CSV: a header, then one line per row (the group keys asked for, then the sums); an unknown cost is empty. */
export function usageCsv(groupBy: readonly UsageGroup[], rows: readonly UsageRow[]): string {
  const keys = USAGE_GROUPS.filter((g) => groupBy.includes(g));
  const lines = [[...keys, ...SUMS].join(",")];
  for (const row of rows) lines.push([...keys.map((k) => field(row[k])), ...SUMS.map((s) => field(row[s]))].join(","));
  return `${lines.join("\r\n")}\r\n`;
}

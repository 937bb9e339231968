/** What a usage figure shows: tokens (≈ when any were estimated) and cost ("—" when a price is unknown, never guessed). */
export interface UsageFigures {
  totalTokens: number;
  promptTokens: number;
  completionTokens: number;
  cachedTokens?: number;
  reasoningTokens?: number;
  /** null or absent: unknown. */
  costUsd?: number | null;
  /** One call's flag, or how many of several calls were estimated. */
  estimated?: boolean;
  estimatedCalls?: number;
  unpricedCalls?: number;
}

let countFormat: Intl.NumberFormat | undefined;
/** "1,540". The format is made on first use: made at module load, its ICU set-up delayed every opening of the editor. */
const count = (n: number): string => (countFormat ??= new Intl.NumberFormat("en-US")).format(n);

/** "1,540 tokens", "≈ 17 tokens" when estimated. */
export function tokensText(u: UsageFigures): string {
  const estimated = u.estimated === true || (u.estimatedCalls ?? 0) > 0;
  return `${estimated ? "≈ " : ""}${count(u.totalTokens)} tokens`;
}

/** "$12.34"; below a dollar three significant digits ("$0.00362"); "—" when unknown, "$0.00362 +" when some calls had no price. */
export function costText(u: UsageFigures): string {
  if (u.costUsd === null || u.costUsd === undefined) return "—";
  const digits = u.costUsd >= 1 ? 2 : Math.min(8, Math.max(2, 2 - Math.floor(Math.log10(u.costUsd || 1))));
  return `$${u.costUsd.toFixed(u.costUsd === 0 ? 2 : digits)}${(u.unpricedCalls ?? 0) > 0 ? " +" : ""}`;
}

/** Cost per agent step (each step is one LLM call) of a scene or one of its agents: "$0.00362 per step", "—" when the cost is unknown. */
export function costPerStepText(u: { costUsd: number | null; calls: number; unpricedCalls: number }): string {
  if (u.costUsd === null || u.calls === 0) return "— per step";
  return `${costText({ ...u, costUsd: u.costUsd / u.calls, totalTokens: 0, promptTokens: 0, completionTokens: 0 })} per step`;
}

/** What the cost per step divides. */
export function perStepTitle(u: { calls: number }): string {
  return `Cost ÷ ${count(u.calls)} agent step(s) (one LLM call each).`;
}

const HOUR_MS = 3_600_000;

/**
 * Cost per hour of scene time (the scene's clock: the time it ran, on which its timers fire; paused time does not
 * count): "$0.72 per scene hour"; "—" when the cost is unknown or the scene has not run yet.
 */
export function costPerHourText(u: { costUsd: number | null; unpricedCalls: number }, runningMs: number): string {
  if (u.costUsd === null || runningMs <= 0) return "— per scene hour";
  return `${costText({ ...u, costUsd: (u.costUsd * HOUR_MS) / runningMs, totalTokens: 0, promptTokens: 0, completionTokens: 0 })} per scene hour`;
}

/** "1 h 05 min", "4 min 10 s", "12 s": a scene's running time. */
export function durationText(ms: number): string {
  const s = Math.floor(ms / 1000);
  if (s < 60) return `${s} s`;
  const m = Math.floor(s / 60);
  if (m < 60) return `${m} min ${String(s % 60).padStart(2, "0")} s`;
  return `${Math.floor(m / 60)} h ${String(m % 60).padStart(2, "0")} min`;
}

/** What the cost per scene hour divides. */
export function perHourTitle(runningMs: number): string {
  return `This session's cost ÷ its scene time: ${durationText(runningMs)} running (the scene's clock, on which its timers fire; paused time and server downtime do not count).`;
}

/** The tooltip: every figure, and what the marks mean. */
export function usageTitle(u: UsageFigures): string {
  const lines = [`prompt ${count(u.promptTokens)} (cached ${count(u.cachedTokens ?? 0)})`, `completion ${count(u.completionTokens)} (reasoning ${count(u.reasoningTokens ?? 0)})`];
  if (u.estimated === true || (u.estimatedCalls ?? 0) > 0) lines.push("≈: the provider reported no usage, so tokens are estimated (about 4 characters a token)");
  if (u.costUsd === null || u.costUsd === undefined) lines.push("cost —: the LLM profile has no prices (Settings → LLM profiles)");
  else if ((u.unpricedCalls ?? 0) > 0) lines.push(`+: ${u.unpricedCalls} call(s) at unknown prices are not in the cost`);
  return lines.join("\n");
}

/** A node's `usage` output read as figures, or undefined when it is not one. */
export function figuresOf(value: unknown): UsageFigures | undefined {
  if (typeof value !== "object" || value === null) return undefined;
  const v = value as Record<string, unknown>;
  if (typeof v.totalTokens !== "number" || typeof v.promptTokens !== "number" || typeof v.completionTokens !== "number") return undefined;
  const num = (x: unknown) => (typeof x === "number" ? x : undefined);
  return {
    totalTokens: v.totalTokens,
    promptTokens: v.promptTokens,
    completionTokens: v.completionTokens,
    cachedTokens: num(v.cachedTokens),
    reasoningTokens: num(v.reasoningTokens),
    costUsd: num(v.costUsd) ?? null,
    estimated: v.estimated === true,
  };
}

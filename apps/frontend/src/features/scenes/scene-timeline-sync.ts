import type { SceneLogEntry, SceneStepView, SceneTimeline } from "@weft/types";

/** The part of a scene's timeline the view holds, and where it ends (the server's cursor). */
export interface HeldTimeline {
  sessionId: string | undefined;
  entries: SceneLogEntry[];
  steps: SceneStepView[];
  nextSeq: number;
  /** null before the first read: the next read is a full one. */
  cursor: string | null;
}

export const emptyTimeline = (): HeldTimeline => ({ sessionId: undefined, entries: [], steps: [], nextSeq: 0, cursor: null });

/**
 * The pages of one read, in order, as one answer: a page that says `reset` (the session changed
 * while paging) starts it over; the others append.
 */
export function combineTimelinePages(pages: readonly SceneTimeline[]): SceneTimeline {
  const [first, ...rest] = pages;
  if (!first) throw new Error("combineTimelinePages needs at least one page");
  let out = first;
  for (const page of rest) {
    out = page.reset ? page : { ...page, reset: out.reset, entries: [...out.entries, ...page.entries], steps: [...out.steps, ...page.steps] };
  }
  return out;
}

const stepKey = (s: SceneStepView) => `${s.conversationId}/${s.trace.step}`;

/**
 * What the view holds after an answer read with `held.cursor`: the answer replaces it (`reset`) or
 * is appended to it. An entry or step already held is not taken twice.
 */
export function applyTimeline(held: HeldTimeline, answer: SceneTimeline): HeldTimeline {
  const base = answer.reset ? emptyTimeline() : held;
  const entries = answer.entries.filter((e) => e.seq >= base.nextSeq);
  const known = new Set(base.steps.map(stepKey));
  const steps = answer.steps.filter((s) => !known.has(stepKey(s)));
  return {
    sessionId: answer.sessionId,
    entries: entries.length > 0 ? [...base.entries, ...entries] : base.entries,
    steps: steps.length > 0 ? [...base.steps, ...steps].sort((a, b) => a.trace.startedAt - b.trace.startedAt) : base.steps,
    nextSeq: Math.max(base.nextSeq, answer.nextSeq),
    cursor: answer.cursor,
  };
}

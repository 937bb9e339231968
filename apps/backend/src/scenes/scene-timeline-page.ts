import type { SceneLogEntry, SceneStepView, SceneTimeline } from "@weft/types";

/** The default bound of one timeline answer's entries and steps, in bytes of JSON. */
export const TIMELINE_MAX_BYTES = 512 * 1024;
/** What a client may ask for as `maxBytes`. */
export const TIMELINE_BYTES_RANGE = { min: 4 * 1024, max: 8 * 1024 * 1024 } as const;

/** A timeline answer and its JSON text, serialized once from the pieces measured for its bound. */
export interface TimelinePage {
  answer: SceneTimeline;
  json: string;
}

/**
 * Collects one timeline answer's entries and steps while they fit its byte bound. Each item is
 * serialized once, to measure it, and that text is the answer's: a poll costs one serialization
 * of what it returns and no more, whatever the scene holds. The first item always goes in, so an
 * item larger than the bound still comes back (alone) and a reader always moves on.
 */
export class TimelinePageBuilder {
  private readonly entryJson: string[] = [];
  private readonly entries: SceneLogEntry[] = [];
  private readonly steps: Array<{ step: SceneStepView; json: string }> = [];
  private used = 0;
  private cut = false;

  constructor(private readonly maxBytes: number) {}

  /** True once an item did not fit: nothing more goes in. */
  get full(): boolean {
    return this.cut;
  }

  addEntry(entry: SceneLogEntry): boolean {
    const json = this.measure(entry);
    if (json === undefined) return false;
    this.entries.push(entry);
    this.entryJson.push(json);
    return true;
  }

  addStep(step: SceneStepView): boolean {
    const json = this.measure(step);
    if (json === undefined) return false;
    this.steps.push({ step, json });
    return true;
  }

  /** The answer, its steps oldest first; `more` when something did not fit. */
  finish(envelope: Omit<SceneTimeline, "entries" | "steps" | "more">): TimelinePage {
    const steps = this.steps.sort((a, b) => a.step.trace.startedAt - b.step.trace.startedAt);
    const answer: SceneTimeline = { ...envelope, entries: this.entries, steps: steps.map((s) => s.step), more: this.cut };
    const head = JSON.stringify({ ...envelope, more: this.cut });
    // The envelope's own JSON with the two lists spliced in: `head` ends with "}" and is never empty.
    const json = `${head.slice(0, -1)},"entries":[${this.entryJson.join(",")}],"steps":[${steps.map((s) => s.json).join(",")}]}`;
    return { answer, json };
  }

  private measure(item: SceneLogEntry | SceneStepView): string | undefined {
    if (this.cut) return undefined;
    const json = JSON.stringify(item);
    const bytes = Buffer.byteLength(json);
    if (this.used > 0 && this.used + bytes > this.maxBytes) {
      this.cut = true;
      return undefined;
    }
    this.used += bytes;
    return json;
  }
}

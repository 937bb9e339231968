import { MistakeTracker, type MistakeLimits } from "./mistake-tracker.ts";

/** Replies cut off at the output limit that the model is asked to continue, before the loop gives up. */
export const MAX_CONTINUATIONS = 2;

/**
 * What one loop remembers from step to step besides the conversation: the mistakes in a row, whether
 * the last step refused a call written as text, and the pieces of an answer cut off at the
 * output limit that the model is continuing.
 */
export class LoopMemory {
  readonly mistakes: MistakeTracker;
  /** The previous step refused a call written as text (quoted, JSON, `<ACTION>` for a native agent). */
  refusedCallAsText = false;
  private readonly cut: Piece[] = [];

  constructor(limits?: MistakeLimits) {
    this.mistakes = new MistakeTracker(limits);
  }

  /** How many cut-off replies the current answer is made of. */
  get continuations(): number {
    return this.cut.length;
  }

  /** Keeps a reply cut off at the output limit: its text, and the output as sent (to know how it ended). */
  keepCut(text: string, raw: string): void {
    this.cut.push(piece(text, raw));
  }

  /** The answer: the cut-off pieces, then `last` (the reply that finished it), as one text. */
  answer(last: string, lastRaw: string): string {
    const pieces = [...this.cut, piece(last, lastRaw)];
    // The pieces are trimmed; a space is put back where the stream had one at the cut.
    return pieces.map((p, i) => (i > 0 && (pieces[i - 1]!.endsWithSpace || p.startsWithSpace) ? ` ${p.text}` : p.text)).join("");
  }

  /** The step acted (or failed): a later answer does not continue the cut-off one. */
  dropCut(): void {
    this.cut.length = 0;
  }
}

interface Piece {
  text: string;
  startsWithSpace: boolean;
  endsWithSpace: boolean;
}

function piece(text: string, raw: string): Piece {
  return { text, startsWithSpace: /^\s/.test(raw), endsWithSpace: /\s$/.test(raw) };
}

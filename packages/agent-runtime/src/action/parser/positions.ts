/** 1-based line and column (in UTF-16 code units, as editors and the XML validator count). */
export interface Position {
  line: number;
  column: number;
}

/** Offsets <-> line/column of one text; the line table is built on first use (only errors need it). */
export class LineIndex {
  private starts: number[] | undefined;

  constructor(private readonly text: string) {}

  private lineStarts(): number[] {
    if (!this.starts) {
      const starts = [0];
      for (let i = this.text.indexOf("\n"); i !== -1; i = this.text.indexOf("\n", i + 1)) starts.push(i + 1);
      this.starts = starts;
    }
    return this.starts;
  }

  /** 0-based index of the line holding `offset`. */
  private lineOf(offset: number): number {
    const starts = this.lineStarts();
    let lo = 0;
    let hi = starts.length - 1;
    while (lo < hi) {
      const mid = (lo + hi + 1) >> 1;
      if (starts[mid]! <= offset) lo = mid;
      else hi = mid - 1;
    }
    return lo;
  }

  position(offset: number): Position {
    const at = Math.max(0, Math.min(offset, this.text.length));
    const line = this.lineOf(at);
    return { line: line + 1, column: at - this.lineStarts()[line]! + 1 };
  }

  offset(line: number, column: number): number {
    const starts = this.lineStarts();
    const start = starts[Math.max(0, Math.min(line - 1, starts.length - 1))]!;
    return Math.min(this.text.length, start + Math.max(0, column - 1));
  }
}

export function describePosition(p: Position): string {
  return `line ${p.line}, column ${p.column}`;
}

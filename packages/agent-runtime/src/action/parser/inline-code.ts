/**
 * Markdown inline code spans of one line (CommonMark: a run of n backticks is closed by the next
 * run of exactly n backticks). Spans are limited to one line here, so a stray backtick in prose can
 * never swallow a real `<ACTION>` block further down. Linear in the line length.
 */
export function inlineCodeSpans(text: string, from: number, to: number): Array<[number, number]> {
  const runs: Array<{ pos: number; len: number }> = [];
  for (let i = text.indexOf("`", from); i !== -1 && i < to; i = text.indexOf("`", i)) {
    let j = i;
    while (j < to && text.charCodeAt(j) === 96) j++;
    runs.push({ pos: i, len: j - i });
    i = j;
  }
  const byLength = new Map<number, number[]>();
  runs.forEach((r, idx) => {
    const list = byLength.get(r.len);
    if (list) list.push(idx);
    else byLength.set(r.len, [idx]);
  });
  const pointer = new Map<number, number>();
  const spans: Array<[number, number]> = [];
  for (let i = 0; i < runs.length;) {
    const run = runs[i]!;
    const list = byLength.get(run.len)!;
    let p = pointer.get(run.len) ?? 0;
    while (p < list.length && list[p]! <= i) p++;
    pointer.set(run.len, p);
    if (p < list.length) {
      const close = runs[list[p]!]!;
      spans.push([run.pos, close.pos + close.len]);
      i = list[p]! + 1;
    } else {
      i++;
    }
  }
  return spans;
}

/** Caches the spans per line, for the few lines where an `<ACTION>` tag appears. */
export class InlineCodeIndex {
  private readonly cache = new Map<string, Array<[number, number]>>();

  constructor(private readonly text: string) {}

  /**
   * Whether `offset` lies inside an inline code span; `floor` is where the current scan of the line
   * began. Called once per `<ACTION>` tag, whose number the scanner caps: linear overall.
   */
  contains(offset: number, floor: number): boolean {
    const lineStart = Math.max(floor, this.text.lastIndexOf("\n", offset - 1) + 1);
    const nl = this.text.indexOf("\n", offset);
    const lineEnd = nl === -1 ? this.text.length : nl;
    const key = `${lineStart}:${lineEnd}`;
    let spans = this.cache.get(key);
    if (!spans) {
      spans = inlineCodeSpans(this.text, lineStart, lineEnd);
      this.cache.set(key, spans);
    }
    // Spans are sorted and disjoint: the last one starting before `offset` is the only candidate.
    let lo = 0;
    let hi = spans.length - 1;
    let candidate = -1;
    while (lo <= hi) {
      const mid = (lo + hi) >> 1;
      if (spans[mid]![0] < offset) {
        candidate = mid;
        lo = mid + 1;
      } else {
        hi = mid - 1;
      }
    }
    return candidate !== -1 && offset < spans[candidate]![1];
  }
}

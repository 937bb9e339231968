/** Characters a key covers: every literal looked for is at least this long (the redactor's minimum is 8). */
const KEY_LENGTH = 4;
const FILTER_BITS = 16;

function keyAt(text: string, i: number): number {
  return (((text.charCodeAt(i) * 31 + text.charCodeAt(i + 1)) * 31 + text.charCodeAt(i + 2)) * 31 + text.charCodeAt(i + 3)) | 0;
}

/**
 * Which of many literals occur in a text, in one pass over it: each position's first four characters
 * are looked up (a bit table first, then the literals starting so), instead of one `includes` per
 * literal — the redactor looks for ~7 forms of every secret, and outputs can be megabytes long.
 */
export class LiteralFinder {
  private readonly filter = new Uint8Array(1 << FILTER_BITS);
  private readonly byKey = new Map<number, number[]>();

  /** `literals` shorter than four characters are never found. */
  constructor(private readonly literals: readonly string[]) {
    literals.forEach((literal, index) => {
      if (literal.length < KEY_LENGTH) return;
      const key = keyAt(literal, 0);
      this.filter[key & ((1 << FILTER_BITS) - 1)] = 1;
      const list = this.byKey.get(key);
      if (list) list.push(index);
      else this.byKey.set(key, [index]);
    });
  }

  /** Whether each literal occurs in `text`, by the literals' indexes. */
  found(text: string): boolean[] {
    const seen = this.literals.map(() => false);
    const mask = (1 << FILTER_BITS) - 1;
    for (let i = 0; i + KEY_LENGTH <= text.length; i++) {
      const key = keyAt(text, i);
      if (this.filter[key & mask] === 0) continue;
      for (const index of this.byKey.get(key) ?? []) if (!seen[index] && text.startsWith(this.literals[index]!, i)) seen[index] = true;
    }
    return seen;
  }
}

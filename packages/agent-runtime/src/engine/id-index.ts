/**
 * Node id → node index, for compiling a graph. An open-addressing table in one typed array (each slot
 * a 32-bit hash of the id and its index) instead of a `Map<string, number>`: on JavaScriptCore a Map
 * of 100,000 strings cost 30–60× more per operation than one of 10,000 (compiling a 100,000-node
 * graph cost up to 20× per node what a 10,000-node one did); this table, 3–5× less than that Map at
 * 100,000 ids. A probe reads one slot and compares the id only when the hashes agree.
 */
export class IdIndex {
  /** Slot s holds [hash, index + 1] at 2s, 2s + 1; index + 1 = 0 is an empty slot. */
  private readonly slots: Int32Array;
  private readonly mask: number;
  private readonly ids: string[];
  /** Ids that are not strings (a typed workflow that is malformed): kept as a Map would, so they are reported as before. */
  private others: Map<unknown, number> | undefined;
  /** Distinct ids added. */
  size = 0;
  /** An id was added twice: `near` may not answer by comparing ids (a repeat resolves to its first index). */
  private repeated = false;

  /** `ids` is filled by the caller as it adds: `add(ids[i], i)`; `get` compares against it. */
  constructor(capacity: number, ids: string[]) {
    let slots = 8;
    while (slots < capacity * 2) slots *= 2;
    this.slots = new Int32Array(2 * slots);
    this.mask = slots - 1;
    this.ids = ids;
  }

  /** Adds `id` at `index` unless it is there already (the first index of an id keeps it); false for a repeat. */
  add(id: string, index: number): boolean {
    if (typeof id !== "string") return this.addOther(id, index);
    const slots = this.slots;
    const hash = hashId(id);
    for (let s = hash & this.mask; ; s = (s + 1) & this.mask) {
      const at = slots[2 * s + 1];
      if (at === 0) {
        slots[2 * s] = hash;
        slots[2 * s + 1] = index + 1;
        this.size++;
        return true;
      }
      if (slots[2 * s] === hash && this.ids[at - 1] === id) {
        this.repeated = true;
        return false;
      }
    }
  }

  get(id: string): number | undefined {
    if (typeof id !== "string") return this.others?.get(id);
    const slots = this.slots;
    const hash = hashId(id);
    for (let s = hash & this.mask; ; s = (s + 1) & this.mask) {
      const at = slots[2 * s + 1];
      if (at === 0) return undefined;
      if (slots[2 * s] === hash && this.ids[at - 1] === id) return at - 1;
    }
  }

  /**
   * `get`, first trying indexes `a` and `b` and the ones after them, then `c`: an edge mostly names nodes beside those the
   * edge before it named (a chain's next node), or one the edge before that named (a fan's edges alternate between the hub
   * and the spoke), and comparing an id or two costs less than a probe into a table that no longer fits the CPU's cache
   * (at 100,000 ids, a probe cost more than the rest of linking an edge).
   */
  near(id: string, a: number, b: number, c = a): number | undefined {
    if (!this.repeated && typeof id === "string") {
      const ids = this.ids;
      const last = ids.length - 1;
      if (ids[a] === id) return a;
      if (ids[b] === id) return b;
      if (a < last && ids[a + 1] === id) return a + 1;
      if (b < last && ids[b + 1] === id) return b + 1;
      if (ids[c] === id) return c;
    }
    return this.get(id);
  }

  private addOther(id: unknown, index: number): boolean {
    const others = (this.others ??= new Map());
    if (others.has(id)) {
      this.repeated = true;
      return false;
    }
    others.set(id, index);
    this.size++;
    return true;
  }
}

/** FNV-1a over the UTF-16 code units, with a final mix so the low bits (the slot) depend on every unit. */
function hashId(id: string): number {
  let h = 0x811c9dc5 | 0;
  for (let k = 0; k < id.length; k++) h = Math.imul(h ^ id.charCodeAt(k), 0x01000193);
  h ^= h >>> 16;
  h = Math.imul(h, 0x85ebca6b);
  return h ^ (h >>> 13);
}

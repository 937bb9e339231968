import { LRUCache } from "lru-cache";

/** What the checked texts of one table may hold in all: a few large workflows open in several editors at once. */
export const CHECKED_TEXT_BYTES = 16 * 1024 * 1024;

interface Checked {
  /** The stored JSON text as read. */
  stored: string;
  /** The schema's answer for it, as JSON: the stored text itself when the schema added or removed nothing. */
  checked: string;
}

/**
 * Stored JSON texts already checked against their schema, by record id. Checking a 1,000-node workflow with zod takes
 * tens of milliseconds, parsing it about one: a read of a record whose text has not changed since it was last checked
 * parses the remembered answer instead. Keyed on the whole stored text, not on a revision, so a write by another
 * process or a `put` at the same revision is checked afresh. Each read gets a fresh object (callers may change it).
 * The least recently read records are dropped past `maxBytes`; a record larger than that is not kept.
 */
export class CheckedTexts {
  private readonly entries: LRUCache<string, Checked>;

  constructor(maxBytes = CHECKED_TEXT_BYTES) {
    this.entries = new LRUCache({ maxSize: maxBytes, sizeCalculation: (entry) => entry.stored.length + (entry.checked === entry.stored ? 0 : entry.checked.length) });
  }

  /** `data` decoded by `check` (which throws on a text that does not read), or the remembered answer for the same text. */
  decode<T>(id: string, data: string, check: (data: string) => T): T {
    const hit = this.entries.get(id);
    if (hit?.stored === data) return JSON.parse(hit.checked) as T;
    const value = check(data);
    const checked = JSON.stringify(value);
    this.entries.set(id, { stored: data, checked: checked === data ? data : checked });
    return value;
  }
}

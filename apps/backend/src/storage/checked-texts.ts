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
 * The least recently read records are dropped past `maxBytes`.
 */
export class CheckedTexts {
  private readonly entries = new Map<string, Checked>();
  private bytes = 0;

  constructor(private readonly maxBytes = CHECKED_TEXT_BYTES) {}

  /** `data` decoded by `check` (which throws on a text that does not read), or the remembered answer for the same text. */
  decode<T>(id: string, data: string, check: (data: string) => T): T {
    const hit = this.entries.get(id);
    if (hit?.stored === data) {
      this.entries.delete(id);
      this.entries.set(id, hit);
      return JSON.parse(hit.checked) as T;
    }
    const value = check(data);
    this.remember(id, data, JSON.stringify(value));
    return value;
  }

  private remember(id: string, stored: string, checked: string): void {
    const old = this.entries.get(id);
    if (old) this.bytes -= sizeOf(old);
    this.entries.delete(id);
    const entry = { stored, checked: checked === stored ? stored : checked };
    const size = sizeOf(entry);
    if (size > this.maxBytes) return;
    this.entries.set(id, entry);
    this.bytes += size;
    for (const [oldest, old] of this.entries) {
      if (this.bytes <= this.maxBytes) break;
      this.entries.delete(oldest);
      this.bytes -= sizeOf(old);
    }
  }
}

const sizeOf = (entry: Checked) => entry.stored.length + (entry.checked === entry.stored ? 0 : entry.checked.length);

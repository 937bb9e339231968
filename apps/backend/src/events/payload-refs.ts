/**
 * Large values of stored run records, kept once. An agent step carries the same system prompt and
 * message history through the run's `run.started`, the input node's start and finish, the LLM
 * node's start and both nodes' observations: stored as they are, that is the same ~10 KB five to
 * seven times per step. Before a record is stored, each value of at least `MIN_REF_BYTES` is
 * replaced by a reference to its content (`{ "$weftPayload": id }`, the id a hash of the text), and
 * the text is stored once under that id (`payload-store.ts`). Readers get the value back whole
 * (`hydratePayloads`), so what the API and the stream answer does not change.
 *
 * Compaction goes a few levels deep below a record's field: a message list becomes a list of
 * references to its messages, in runs stored on their own (`chunkItems`), so a history that grows
 * by one message per step adds that message and a few references, not the whole list again; a long
 * text is cut into pieces at content-defined line breaks (`textPieces`), so a system prompt that
 * ends with the current world state shares all but a piece or two with every other step's.
 */

/** The key of a reference object; a stored record never has another object with only this key. */
export const PAYLOAD_REF_KEY = "$weftPayload";
/** The key of a long text kept as pieces: `{ "$weftText": [piece | reference, …] }`, joined when read. */
export const TEXT_PIECES_KEY = "$weftText";
/**
 * The key of a run of list items stored together: `{ "$weftItems": { "$weftPayload": id } }` in a list stands for
 * the items of the list stored under id (which may hold such runs again), spliced in its place when read. The
 * inner reference is an ordinary one, so whatever finds references in stored texts (the retention sweep) finds it.
 */
export const ITEMS_KEY = "$weftItems";
/** Shorter values stay inline: a reference costs ~40 bytes. */
export const MIN_REF_BYTES = 256;
/** Texts from this long are referenced: a model's answer is repeated in half a dozen events of its step. */
const MIN_TEXT_REF_BYTES = 128;
/**
 * A record's fields (a node's ports) are referenced from this size: an LLM node's `message` (~200 bytes) is the
 * last item of its `messages`, stored already, and the next step's history holds it again.
 */
const MIN_FIELD_REF_BYTES = 128;
/** Items of a list (messages of a history) are referenced from this size, so each is stored once however often the list is. */
const MIN_ITEM_REF_BYTES = 64;
/** Texts from this long are cut into pieces (`textPieces`), so a prompt whose end changes shares its beginning. */
const MIN_TEXT_SPLIT = 1024;
const TEXT_PIECE = 256;
/** One line in this many ends a piece (a power of two), besides paragraph breaks. */
const LINE_CUT_EVERY = 4;
/** The characters of a line (its end, with its length) that decide whether it ends a piece: enough to tell lines apart. */
const LINE_HASHED = 32;
const MAX_DEPTH = 3;
/** Lists of this many items (after compaction) are stored as runs of items (`chunkItems`). */
const CHUNK_FROM_ITEMS = 8;
/** One referenced item in this many ends a run (a power of two: the test masks a character code's low bits). */
const CHUNK_EVERY = 4;
/** Runs of runs (of runs…) from this many entries, up to `CHUNK_LEVELS` levels: each level leaves ~3 entries after its last run. */
const CHUNK_LEVEL_FROM = 8;
const CHUNK_LEVELS = 4;

/** A value's text as stored once under its id. */
export interface PayloadBlob {
  id: string;
  json: string;
}

/** Where compaction puts the texts it references (the store writes them before the records that use them). */
export interface PayloadSink {
  /** The id for this (redacted) text; remembers it for writing when it is new. */
  put(json: string): string;
}

export type PayloadRef = { [PAYLOAD_REF_KEY]: string };
type TextPieces = { [TEXT_PIECES_KEY]: Array<string | PayloadRef> };
type ItemsRef = { [ITEMS_KEY]: PayloadRef };

function onlyKey(value: unknown, key: string): value is Record<string, unknown> {
  if (typeof value !== "object" || value === null || Array.isArray(value)) return false;
  const keys = Object.keys(value);
  return keys.length === 1 && keys[0] === key;
}

export function isPayloadRef(value: unknown): value is PayloadRef {
  return onlyKey(value, PAYLOAD_REF_KEY) && typeof value[PAYLOAD_REF_KEY] === "string";
}

function isTextPieces(value: unknown): value is TextPieces {
  return onlyKey(value, TEXT_PIECES_KEY) && Array.isArray(value[TEXT_PIECES_KEY]);
}

function isItemsRef(value: unknown): value is ItemsRef {
  return onlyKey(value, ITEMS_KEY) && isPayloadRef(value[ITEMS_KEY]);
}

/** A content id: 128 bits of SHA-256 of the stored text, base64url (22 characters). */
export function payloadId(json: string): string {
  return new Bun.CryptoHasher("sha256").update(json).digest("base64url").slice(0, 22);
}

/**
 * Results of `compactPayload` by the value they were made for, so a value handed over again costs a
 * lookup: an agent step's history and prompt are in four or five of its events (the run's start, the
 * input node's start and finish, the LLM node's start), and compacting it means serializing and
 * hashing it at every level. Objects are remembered by identity, which holds because the journal's
 * callers never change a value after handing it over (run events are stamped and stored as they are
 * given, and the engine passes node values on without copying them); long texts by their content, a
 * bounded number of them. A memo belongs to one sink (a hit puts nothing: the texts went there the
 * first time) and one set of secrets: `reset` it when the redaction changes.
 */
export class CompactionMemo {
  /** By `memoKey`, then by value: a value is mostly compacted at one depth, and a map per value was an allocation per value. */
  private objects = new Map<number, WeakMap<object, unknown>>();
  private texts = new Map<string, Map<number, unknown>>();
  /** Stored runs by their last item (a reference object: runs end at references). */
  private runs = new WeakMap<object, { items: readonly unknown[]; entry: ItemsRef }>();
  /** References to the pieces of long texts by piece: a prompt whose world state changed keeps all pieces but one or two. */
  private pieces = new Map<string, PayloadRef>();

  get(value: object | string, depth: number, min: number): unknown {
    return typeof value === "string" ? this.texts.get(value)?.get(memoKey(depth, min)) : this.objects.get(memoKey(depth, min))?.get(value);
  }

  set(value: object | string, depth: number, min: number, result: unknown): void {
    if (typeof value !== "string") {
      let byValue = this.objects.get(memoKey(depth, min));
      if (!byValue) this.objects.set(memoKey(depth, min), (byValue = new WeakMap()));
      byValue.set(value, result);
      return;
    }
    let byKey = this.texts.get(value);
    if (!byKey) {
      if (this.texts.size >= MEMO_TEXTS) this.texts.clear();
      this.texts.set(value, (byKey = new Map()));
    }
    byKey.set(memoKey(depth, min), result);
  }

  /**
   * The stored run (`chunkItems`) of these items, when the run ending with the same last item was made of the same
   * items (by identity: compacted items come from this memo, so an unchanged history gives the same objects again).
   */
  run(items: readonly unknown[]): ItemsRef | undefined {
    const known = this.runs.get(items[items.length - 1] as object);
    return known && known.items.length === items.length && known.items.every((item, at) => item === items[at]) ? known.entry : undefined;
  }

  setRun(items: readonly unknown[], entry: ItemsRef): void {
    this.runs.set(items[items.length - 1] as object, { items, entry });
  }

  piece(text: string): PayloadRef | undefined {
    return this.pieces.get(text);
  }

  setPiece(text: string, entry: PayloadRef): void {
    if (this.pieces.size >= MEMO_PIECES) this.pieces.clear();
    this.pieces.set(text, entry);
  }

  reset(): void {
    this.objects = new Map();
    this.texts = new Map();
    this.runs = new WeakMap();
    this.pieces = new Map();
  }
}

/** Long texts remembered by content; past this many the memory starts over. */
const MEMO_TEXTS = 512;
/** Pieces of long texts remembered (~15 per prompt: a few prompts per agent of a 50-agent scene). */
const MEMO_PIECES = 8192;
const memoKey = (depth: number, min: number) => depth * 4096 + min;

/**
 * The value with every part of at least `MIN_REF_BYTES` of JSON (list items from `MIN_ITEM_REF_BYTES`)
 * replaced by a reference; texts go to `sink`, after `redact`. A value smaller than that comes back
 * as it is (the same object). With a `memo` (of this sink and redaction), a value met before gives its
 * earlier result.
 */
export function compactPayload(value: unknown, sink: PayloadSink, redact: (json: string) => string, depth = 0, min = MIN_REF_BYTES, memo?: CompactionMemo): unknown {
  if (value === null || (typeof value !== "object" && typeof value !== "string")) return value;
  if (typeof value === "string" && value.length < Math.min(min, MIN_TEXT_REF_BYTES)) return value;
  if (memo) {
    const known = memo.get(value, depth, min);
    if (known !== undefined) return known;
  }
  const result = compactNew(value, sink, redact, depth, min, memo);
  memo?.set(value, depth, min, result);
  return result;
}

function compactNew(value: object | string, sink: PayloadSink, redact: (json: string) => string, depth: number, min: number, memo: CompactionMemo | undefined): unknown {
  if (typeof value === "string") return value.length >= MIN_TEXT_SPLIT ? textPieces(value, sink, redact, memo) : ref(sink.put(redact(JSON.stringify(value))));
  // A history of many KB is known to be over `min` after its first messages: serialized only when it may be shorter.
  if (jsonLengthFrom(value, min) < min) {
    const text = JSON.stringify(value);
    if (text === undefined || text.length < min) return value;
  }
  if (depth >= MAX_DEPTH) return ref(sink.put(redact(JSON.stringify(value))));
  const inner = Array.isArray(value)
    ? chunkItems(
        value.map((item: unknown) => compactPayload(item, sink, redact, depth + 1, MIN_ITEM_REF_BYTES, memo)),
        sink,
        redact,
        0,
        memo,
      )
    : compactEntries(value as Record<string, unknown>, (v) => compactPayload(v, sink, redact, depth + 1, MIN_REF_BYTES, memo));
  return ref(sink.put(redact(JSON.stringify(inner))));
}

/**
 * A lower bound of the length of the value's JSON, counted until it reaches `enough` (then some number at least
 * that). Strings count their characters and quotes, numbers, booleans and null one, what JSON leaves out (or
 * serializes its own way, `toJSON`) nothing.
 */
function jsonLengthFrom(value: unknown, enough: number): number {
  if (typeof value === "string") return value.length + 2;
  if (typeof value === "number" || typeof value === "boolean" || value === null) return 1;
  if (typeof value !== "object" || typeof (value as { toJSON?: unknown }).toJSON === "function") return 0;
  let length = 2;
  if (Array.isArray(value)) {
    for (let at = 0; at < value.length && length < enough; at++) length += (at > 0 ? 1 : 0) + jsonLengthFrom(value[at], enough - length);
    return length;
  }
  let first = true;
  for (const key of Object.keys(value)) {
    if (length >= enough) break;
    const item = (value as Record<string, unknown>)[key];
    if (item === undefined || typeof item === "function" || typeof item === "symbol") continue;
    length += (first ? 0 : 1) + key.length + 3 + jsonLengthFrom(item, enough - length);
    first = false;
  }
  return length;
}

/**
 * A long list's (compacted) items with runs of them stored on their own: a run ends after an item whose reference
 * id has its low bits clear (one in `CHUNK_EVERY`), so where runs end depends on the items, not on their positions.
 * Runs are grouped into runs the same way, level by level, as in a content-defined tree. An agent's history grows
 * at its end and may lose messages at its front when the context window trims it: the runs before the change are
 * the same texts as at the last step (stored once), and what is stored anew each step is the new messages, a run or
 * two, and a list of ~10 entries, not N item references (~40 bytes each: ~3.4 KB for a history of 80 messages, in
 * two lists a step, the LLM node's input and output, was a sixth of a busy scene's bytes).
 */
function chunkItems(items: unknown[], sink: PayloadSink, redact: (json: string) => string, level: number, memo?: CompactionMemo): unknown[] {
  if (items.length < CHUNK_FROM_ITEMS) return items;
  // A history's first message is its system prompt, whose end (the world's state) changes at every step: it stays
  // on its own, so that it does not change the first run with it.
  const out: unknown[] = [items[0]];
  let run: unknown[] = [];
  let stored = false;
  for (let at = 1; at < items.length; at++) {
    const item = items[at];
    run.push(item);
    if (!endsRun(item, level)) continue;
    if (run.length === 1) out.push(item);
    else {
      out.push(storedRun(run, sink, redact, memo));
      stored = true;
    }
    run = [];
  }
  // No run of two items or more: a list of short items (numbers, small objects), or of rare boundaries; as it is.
  if (!stored) return items;
  out.push(...run);
  return out.length >= CHUNK_LEVEL_FROM && level + 1 < CHUNK_LEVELS ? chunkItems(out, sink, redact, level + 1, memo) : out;
}

/** The reference to a run of items, stored (or found in the memo: the same items as before, serialized and hashed once). */
function storedRun(run: unknown[], sink: PayloadSink, redact: (json: string) => string, memo: CompactionMemo | undefined): ItemsRef {
  const known = memo?.run(run);
  if (known) return known;
  const entry = new MadeItemsRef(ref(sink.put(redact(JSON.stringify(run)))));
  memo?.setRun(run, entry);
  return entry;
}

/**
 * Whether the item ends a run at this level: an item compaction referenced (above the first level, a run of the level
 * below: the items after the last run of a level change as the list grows) whose id's character at `level` from its
 * end has its low bits clear. An id ends with base64url of its text's hash (a store may put a time-ordered part in
 * front of it, `PayloadStore`).
 */
function endsRun(item: unknown, level: number): boolean {
  const id = level === 0 ? (item instanceof MadeRef ? item.$weftPayload : undefined) : item instanceof MadeItemsRef ? item.$weftItems.$weftPayload : undefined;
  return id !== undefined && (id.charCodeAt(id.length - 1 - level) & (CHUNK_EVERY - 1)) === 0;
}

/**
 * A long text as pieces, cut after a line break once at least `TEXT_PIECE` long, where the line just ended is empty
 * (a paragraph break) or its hash has its low bits clear (one line in `LINE_CUT_EVERY`): where a piece ends depends
 * on the lines around it, not on its position, so a prompt whose world state changes one value shares every piece
 * but one or two with the last step's (the state is one paragraph of ~2 KB at 50 agents). Pieces worth it are referenced.
 */
function textPieces(text: string, sink: PayloadSink, redact: (json: string) => string, memo: CompactionMemo | undefined): PayloadRef {
  const pieces: string[] = [];
  let start = 0;
  for (let lineStart = 0, at = text.indexOf("\n"); at >= 0; lineStart = at + 1, at = text.indexOf("\n", lineStart)) {
    if (at + 1 - start < TEXT_PIECE || (at !== lineStart && !endsPiece(text, lineStart, at))) continue;
    pieces.push(text.slice(start, at + 1));
    start = at + 1;
  }
  if (pieces.length === 0) return ref(sink.put(redact(JSON.stringify(text))));
  if (start < text.length) pieces.push(text.slice(start));
  // The list of pieces is stored too: a prompt is in four events of its step, a reference is shorter than the list.
  const list: TextPieces = { [TEXT_PIECES_KEY]: pieces.map((p) => (p.length >= MIN_ITEM_REF_BYTES ? pieceRef(p, sink, redact, memo) : p)) };
  return ref(sink.put(redact(JSON.stringify(list))));
}

/** A piece's reference, serialized, redacted and hashed once while the memo remembers it. */
function pieceRef(piece: string, sink: PayloadSink, redact: (json: string) => string, memo: CompactionMemo | undefined): PayloadRef {
  const known = memo?.piece(piece);
  if (known) return known;
  const entry = ref(sink.put(redact(JSON.stringify(piece))));
  memo?.setPiece(piece, entry);
  return entry;
}

/** Whether the line `text[from, to)` ends a piece: a hash of its last `LINE_HASHED` characters has its low bits clear. */
function endsPiece(text: string, from: number, to: number): boolean {
  let hash = to - from;
  for (let at = Math.max(from, to - LINE_HASHED); at < to; at++) hash = (Math.imul(hash, 31) + text.charCodeAt(at)) | 0;
  hash = Math.imul(hash ^ (hash >>> 16), 0x45d9f3b);
  return ((hash ^ (hash >>> 16)) & (LINE_CUT_EVERY - 1)) === 0;
}

/** Each field of a record compacted (inputs, outputs: one port value per field). */
export function compactFields(record: Record<string, unknown>, sink: PayloadSink, redact: (json: string) => string, memo?: CompactionMemo): Record<string, unknown> {
  let changed = false;
  const out = compactEntries(record, (value) => {
    const compact = compactPayload(value, sink, redact, 1, MIN_FIELD_REF_BYTES, memo);
    if (compact !== value) changed = true;
    return compact;
  });
  return changed ? out : record;
}

/** The record's own fields, each through `compact`; a loop, not a list of entries per record (every event's ports pass here). */
function compactEntries(record: Record<string, unknown>, compact: (value: unknown) => unknown): Record<string, unknown> {
  const out: Record<string, unknown> = {};
  for (const key in record) {
    if (!Object.hasOwn(record, key)) continue;
    // A "__proto__" key (parsed JSON may have one) stays a field: assigned, it would set the prototype instead.
    if (key === "__proto__") Object.defineProperty(out, key, { value: compact(record[key]), enumerable: true, writable: true, configurable: true });
    else out[key] = compact(record[key]);
  }
  return out;
}

/**
 * A reference made by compaction: serialized, plain `{ "$weftPayload": id }`. Its class lets `endsRun` tell it from a
 * value of the record without reading keys (every item of every history passes there at each step).
 */
class MadeRef implements PayloadRef {
  readonly $weftPayload: string;
  constructor(id: string) {
    this.$weftPayload = id;
  }
}

/** A run of items stored by compaction (`storedRun`): serialized, plain `{ "$weftItems": { "$weftPayload": id } }`. */
class MadeItemsRef implements ItemsRef {
  readonly $weftItems: MadeRef;
  constructor(entry: MadeRef) {
    this.$weftItems = entry;
  }
}

const ref = (id: string): MadeRef => new MadeRef(id);

/** Stored payload texts by id; ids it does not know are left out of the answer. */
export type PayloadLoader = (ids: string[]) => Promise<Map<string, string>>;

/** A stored payload that is gone (e.g. removed by hand): the reader sees this in its place. */
export interface MissingPayload {
  $weftPayloadMissing: string;
}

/** The value with every reference replaced by what it stands for (loaded in one query per level). */
export async function hydratePayloads<T>(value: T, load: PayloadLoader): Promise<T> {
  const known = new Map<string, unknown>();
  for (let ids = refsIn(value, known); ids.length > 0;) {
    const texts = await load(ids);
    const next: string[] = [];
    for (const id of ids) {
      const text = texts.get(id);
      const parsed: unknown = text === undefined ? ({ $weftPayloadMissing: id } satisfies MissingPayload) : JSON.parse(text);
      known.set(id, parsed);
      next.push(...refsIn(parsed, known));
    }
    ids = [...new Set(next)];
  }
  // Text pieces always hold a reference (one piece at least is long), so without references there is nothing to resolve.
  return known.size === 0 ? value : (resolve(value, known) as T);
}

/**
 * Stored records' JSON texts with their references resolved, all in one `hydratePayloads` (one query
 * per level for the whole page, not per record); a text without references comes back as it is.
 */
export async function hydratePayloadTexts(texts: readonly string[], load: PayloadLoader): Promise<string[]> {
  const withRefs = texts.flatMap((json, at) => (json.includes(`"${PAYLOAD_REF_KEY}"`) || json.includes(`"${TEXT_PIECES_KEY}"`) ? [at] : []));
  if (withRefs.length === 0) return [...texts];
  const values = await hydratePayloads(
    withRefs.map((at) => JSON.parse(texts[at]) as unknown),
    load,
  );
  const out = [...texts];
  withRefs.forEach((at, k) => (out[at] = JSON.stringify(values[k])));
  return out;
}

function refsIn(value: unknown, known: ReadonlyMap<string, unknown>, out: string[] = []): string[] {
  // Text pieces hold references and strings: the generic walk below finds the references.
  if (typeof value !== "object" || value === null) return out;
  if (isPayloadRef(value)) {
    if (!known.has(value[PAYLOAD_REF_KEY])) out.push(value[PAYLOAD_REF_KEY]);
    return out;
  }
  for (const item of Array.isArray(value) ? value : Object.values(value)) refsIn(item, known, out);
  return out;
}

/** A run of items read back: its items, or (a payload gone) the MissingPayload in their place. */
const spliced = (items: unknown): unknown[] => (Array.isArray(items) ? items : [items]);

function resolve(value: unknown, known: ReadonlyMap<string, unknown>): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (isPayloadRef(value)) return resolve(known.get(value[PAYLOAD_REF_KEY]), known);
  if (isTextPieces(value)) return value[TEXT_PIECES_KEY].map((piece) => resolve(piece, known)).join("");
  if (Array.isArray(value)) return value.flatMap((item: unknown) => (isItemsRef(item) ? spliced(resolve(item[ITEMS_KEY], known)) : [resolve(item, known)]));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v, known)]));
}

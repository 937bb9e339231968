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
 * references to its messages, so a history that grows by one message per step adds one message,
 * not the whole list again; a long text is cut into pieces at paragraph breaks, so a system prompt
 * that ends with the current world state shares its long beginning with every other step's.
 */

/** The key of a reference object; a stored record never has another object with only this key. */
export const PAYLOAD_REF_KEY = "$weftPayload";
/** The key of a long text kept as pieces: `{ "$weftText": [piece | reference, …] }`, joined when read. */
export const TEXT_PIECES_KEY = "$weftText";
/** Shorter values stay inline: a reference costs ~40 bytes. */
export const MIN_REF_BYTES = 256;
/** Texts from this long are referenced: a model's answer is repeated in half a dozen events of its step. */
const MIN_TEXT_REF_BYTES = 128;
/** Items of a list (messages of a history) are referenced from this size, so each is stored once however often the list is. */
const MIN_ITEM_REF_BYTES = 64;
/** Texts from this long are cut into pieces at paragraph breaks, so a prompt whose end changes shares its beginning. */
const MIN_TEXT_SPLIT = 1024;
const TEXT_PIECE = 512;
const MAX_DEPTH = 3;

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
  private objects = new WeakMap<object, Map<number, unknown>>();
  private texts = new Map<string, Map<number, unknown>>();

  get(value: object | string, depth: number, min: number): unknown {
    return (typeof value === "string" ? this.texts.get(value) : this.objects.get(value))?.get(memoKey(depth, min));
  }

  set(value: object | string, depth: number, min: number, result: unknown): void {
    let byKey = typeof value === "string" ? this.texts.get(value) : this.objects.get(value);
    if (!byKey) {
      byKey = new Map();
      if (typeof value !== "string") this.objects.set(value, byKey);
      else {
        if (this.texts.size >= MEMO_TEXTS) this.texts.clear();
        this.texts.set(value, byKey);
      }
    }
    byKey.set(memoKey(depth, min), result);
  }

  reset(): void {
    this.objects = new WeakMap();
    this.texts = new Map();
  }
}

/** Long texts remembered by content; past this many the memory starts over. */
const MEMO_TEXTS = 512;
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
  if (typeof value === "string") return value.length >= MIN_TEXT_SPLIT ? textPieces(value, sink, redact) : ref(sink.put(redact(JSON.stringify(value))));
  const text = JSON.stringify(value);
  if (text === undefined || text.length < min) return value;
  if (depth >= MAX_DEPTH) return ref(sink.put(redact(text)));
  const inner = Array.isArray(value)
    ? value.map((item: unknown) => compactPayload(item, sink, redact, depth + 1, MIN_ITEM_REF_BYTES, memo))
    : Object.fromEntries(Object.entries(value).map(([k, v]) => [k, compactPayload(v, sink, redact, depth + 1, MIN_REF_BYTES, memo)]));
  return ref(sink.put(redact(JSON.stringify(inner))));
}

/** A long text as pieces cut after a paragraph break once at least `TEXT_PIECE` long; pieces worth it referenced. */
function textPieces(text: string, sink: PayloadSink, redact: (json: string) => string): TextPieces | PayloadRef {
  const pieces: string[] = [];
  let start = 0;
  for (let at = text.indexOf("\n\n", start + TEXT_PIECE); at >= 0; at = text.indexOf("\n\n", start + TEXT_PIECE)) {
    pieces.push(text.slice(start, at + 2));
    start = at + 2;
  }
  if (pieces.length === 0) return ref(sink.put(redact(JSON.stringify(text))));
  pieces.push(text.slice(start));
  return { [TEXT_PIECES_KEY]: pieces.map((p) => (p.length >= MIN_ITEM_REF_BYTES ? ref(sink.put(redact(JSON.stringify(p)))) : p)) };
}

/** Each field of a record compacted (inputs, outputs: one port value per field). */
export function compactFields(record: Record<string, unknown>, sink: PayloadSink, redact: (json: string) => string, memo?: CompactionMemo): Record<string, unknown> {
  let changed = false;
  const out: Record<string, unknown> = {};
  for (const [key, value] of Object.entries(record)) {
    const compact = compactPayload(value, sink, redact, 1, MIN_REF_BYTES, memo);
    if (compact !== value) changed = true;
    out[key] = compact;
  }
  return changed ? out : record;
}

const ref = (id: string): PayloadRef => ({ [PAYLOAD_REF_KEY]: id });

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

function resolve(value: unknown, known: ReadonlyMap<string, unknown>): unknown {
  if (typeof value !== "object" || value === null) return value;
  if (isPayloadRef(value)) return resolve(known.get(value[PAYLOAD_REF_KEY]), known);
  if (isTextPieces(value)) return value[TEXT_PIECES_KEY].map((piece) => resolve(piece, known)).join("");
  if (Array.isArray(value)) return value.map((item: unknown) => resolve(item, known));
  return Object.fromEntries(Object.entries(value).map(([k, v]) => [k, resolve(v, known)]));
}

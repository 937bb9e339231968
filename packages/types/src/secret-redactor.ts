import type { Logger, LogLevel } from "./logger.ts";
import { LiteralFinder } from "./literal-finder.ts";
import { secretForms } from "./secret-forms.ts";

/**
 * Secrets shorter than this are not redacted: the placeholders local servers accept ("x",
 * "ollama") are not credentials, and replacing every occurrence of such a short word would mangle
 * ordinary text. Real provider keys are far longer.
 */
export const MIN_REDACTED_SECRET_LENGTH = 8;

interface Entry {
  secret: string;
  /** The secret as it appears inside a JSON string (quotes, backslashes and control characters escaped). */
  secretInJson: string;
  replacement: string;
  replacementInJson: string;
}

/** Below this, one `includes` per entry is as quick as a pass of the finder. */
const ONE_PASS_FROM_CHARS = 4096;

const jsonEscaped = (text: string) => JSON.stringify(text).slice(1, -1);

/**
 * Replaces known secret values (stored API keys, the master key) with `[redacted:<label>]` in text
 * about to be stored, sent or logged, each also in its percent-encoded and base64 forms (see
 * secret-forms.ts; values otherwise derived from a secret are not caught). Known values, not
 * shapes: a key of any format is caught, and nothing else is touched. Fast when it has nothing to do: no secrets, no work; otherwise one
 * `indexOf` per secret over the text.
 */
export class SecretRedactor {
  private readonly byOwner = new Map<string, Entry[]>();
  /** Every owner's secrets, longest first, so a secret containing another is replaced whole. */
  private entries: Entry[] = [];
  /** Which entries a text or JSON text holds, found in one pass (for long texts). */
  private textFinder = new LiteralFinder([]);
  private jsonFinder = new LiteralFinder([]);
  private changes = 0;

  /** Changes with every `set`: what was redacted before may be redacted differently now (for caches of redacted text). */
  get version(): number {
    return this.changes;
  }

  /** Sets the secrets one owner (e.g. an LLM profile id) holds, replacing what it held before; an empty list forgets them. */
  set(owner: string, label: string, secrets: readonly string[]): void {
    const replacement = `[redacted:${label}]`;
    const forms = new Set(secrets.filter((s) => s.length >= MIN_REDACTED_SECRET_LENGTH).flatMap(secretForms));
    const entries = [...forms].map((secret) => ({ secret, secretInJson: jsonEscaped(secret), replacement, replacementInJson: jsonEscaped(replacement) }));
    if (entries.length === 0) this.byOwner.delete(owner);
    else this.byOwner.set(owner, entries);
    this.entries = [...this.byOwner.values()].flat().sort((a, b) => b.secret.length - a.secret.length);
    this.textFinder = new LiteralFinder(this.entries.map((e) => e.secret));
    this.jsonFinder = new LiteralFinder(this.entries.map((e) => e.secretInJson));
    this.changes++;
  }

  forget(owner: string): void {
    this.set(owner, "", []);
  }

  /** Plain text with every known secret replaced. */
  text(text: string): string {
    let out = text;
    for (const e of this.present(text, this.textFinder)) if (out.includes(e.secret)) out = out.replaceAll(e.secret, e.replacement);
    return out;
  }

  /** JSON text with every known secret replaced inside its strings; the result is still valid JSON. */
  json(json: string): string {
    let out = json;
    for (const e of this.present(json, this.jsonFinder)) if (out.includes(e.secretInJson)) out = out.replaceAll(e.secretInJson, e.replacementInJson);
    return out;
  }

  /** The entries that may occur in `text`, longest first: all of them for a short text, else those found in one pass. */
  private present(text: string, finder: LiteralFinder): Entry[] {
    if (text.length < ONE_PASS_FROM_CHARS) return this.entries;
    const found = finder.found(text);
    return this.entries.filter((_, i) => found[i]);
  }

  /** A JSON-like value with every string redacted; the same value when no secret occurs in it. */
  value<T>(value: T): T {
    if (this.entries.length === 0) return value;
    const json = JSON.stringify(value);
    if (json === undefined) return value;
    const redacted = this.json(json);
    return redacted === json ? value : (JSON.parse(redacted) as T);
  }
}

/**
 * A logger whose messages and fields pass through the redactor, and whose children do too. A message the inner
 * logger would not write is not redacted first (a debug line per run, with its fields serialized, when quiet).
 */
export function redactingLogger(inner: Logger, redactor: SecretRedactor): Logger {
  const clean = (fields: Record<string, unknown> | undefined) => (fields === undefined ? undefined : redactor.value(fields));
  const writes = (level: Exclude<LogLevel, "silent">) => inner.enabled?.(level) ?? true;
  return {
    debug: (message, fields) => writes("debug") && inner.debug(redactor.text(message), clean(fields)),
    info: (message, fields) => writes("info") && inner.info(redactor.text(message), clean(fields)),
    warn: (message, fields) => writes("warn") && inner.warn(redactor.text(message), clean(fields)),
    error: (message, fields) => writes("error") && inner.error(redactor.text(message), clean(fields)),
    child: (scope) => redactingLogger(inner.child(scope), redactor),
    enabled: writes,
  };
}

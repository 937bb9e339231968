import { LRUCache } from "lru-cache";
import { brotliCompress, brotliCompressSync, constants as zlib, gzip } from "node:zlib";

/** Types worth compressing; streams (NDJSON, event streams) are not among them: they must flow. */
const COMPRESSIBLE = /^(application\/json|text\/html|text\/css|text\/javascript|application\/javascript|image\/svg\+xml)\b/;
/** Below this, the encoding's framing costs about what it saves. */
const MIN_COMPRESSED_BYTES = 1024;
/** Encoded editor files kept (they repeat byte for byte); API answers are encoded each time. */
const ENCODED_CACHE_ENTRIES = 64;

export type Encoding = "br" | "gzip";

type Bytes = Uint8Array<ArrayBuffer>;

const encodedCache = new LRUCache<string, Bytes>({ max: ENCODED_CACHE_ENTRIES });

/** The encoding an `Accept-Encoding` header asks for: brotli before gzip, either only with a weight above 0. */
export function preferredEncoding(acceptEncoding: string | null): Encoding | undefined {
  if (!acceptEncoding) return undefined;
  const offered = new Map<string, number>();
  for (const part of acceptEncoding.split(",")) {
    const [name, ...params] = part.trim().toLowerCase().split(";");
    const q = params.map((p) => p.trim()).find((p) => p.startsWith("q="));
    offered.set(name, q ? Number(q.slice(2)) : 1);
  }
  const weight = (name: Encoding) => offered.get(name) ?? (offered.has("*") ? (offered.get("*") ?? 0) : 0);
  if (weight("br") > 0) return "br";
  if (weight("gzip") > 0) return "gzip";
  return undefined;
}

/** Editor files asked for once since the start, and those being encoded in the background, by cache key. */
const askedOnce = new LRUCache<string, true>({ max: ENCODED_CACHE_ENTRIES });
const underWay = new Set<string>();

/**
 * An API answer, encoded now at brotli 1: a polled timeline or a run list is encoded on every request, and
 * quality 1 took a third of quality 3's time for 4% more bytes (80 KB of timeline entries: 0.18 ms and
 * 12.0 KB against 0.53 ms and 11.5 KB).
 */
function encodeAnswer(body: Bytes, encoding: Encoding): Bytes {
  return encoding === "br" ? new Uint8Array(brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 1 } })) : Bun.gzipSync(body);
}

/**
 * An editor file as encoded before, or undefined while it is not. The first answer after a start goes out as
 * is and the encoding (brotli 5: about gzip's speed and smaller than gzip -9) starts when the file is asked
 * for again, off the event loop: the first page load — usually the only one, the browser keeps the files —
 * neither waits for nor competes with encoding the editor's 800 KB (done synchronously, that held every
 * answer of the first load behind it: bench:canvas load_ms).
 */
function encodedFile(body: Bytes, kind: Encoding, key: string): Bytes | undefined {
  const cacheKey = `${kind}:${key}`;
  const cached = encodedCache.get(cacheKey);
  if (cached || underWay.has(cacheKey)) return cached;
  if (!askedOnce.has(cacheKey)) {
    askedOnce.set(cacheKey, true);
    return undefined;
  }
  underWay.add(cacheKey);
  const keep = (encoded: Bytes) => {
    underWay.delete(cacheKey);
    encodedCache.set(cacheKey, encoded);
  };
  const done = (error: Error | null, encoded: Buffer) => (error ? underWay.delete(cacheKey) : keep(new Uint8Array(encoded)));
  if (kind === "gzip") gzip(body, done);
  else brotliCompress(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: 5 } }, done);
  return undefined;
}

function matches(ifNoneMatch: string | null, etag: string): boolean {
  if (!ifNoneMatch) return false;
  const bare = etag.replace(/^W\//, "");
  return ifNoneMatch.split(",").some((tag) => {
    const t = tag.trim();
    return t === "*" || t.replace(/^W\//, "") === bare;
  });
}

/**
 * A GET answer the browser can keep and revalidate, sent small: a weak ETag over its bytes (so an
 * unchanged `index.html` or API answer comes back as a bodyless 304), and a brotli or gzip body when
 * the client takes one. Only whole bodies of the types above; `no-store` answers and streams pass
 * untouched. `undefined` (decided synchronously, as Elysia's mapResponse needs) leaves the answer as is.
 */
export function cachedAndCompressed(request: Request, response: unknown): Promise<Response> | undefined {
  // A promise is an answer redaction rewrote: it is the answer now, whatever the method.
  if (response instanceof Promise) return response.then((r: Response) => revalidated(request, r) ?? r);
  return response instanceof Response ? revalidated(request, response) : undefined;
}

function revalidated(request: Request, response: Response): Promise<Response> | undefined {
  if (request.method !== "GET") return undefined;
  const type = response.headers.get("content-type") ?? "";
  if (response.status !== 200 || !COMPRESSIBLE.test(type) || response.headers.has("content-encoding")) return undefined;
  if (/no-store/.test(response.headers.get("cache-control") ?? "")) return undefined;
  return response.bytes().then((body) => {
    const headers = new Headers(response.headers);
    const hash = Bun.hash(body).toString(36);
    const etag = `W/"${hash}"`;
    headers.set("etag", etag);
    headers.append("vary", "Accept-Encoding");
    // Answers given to a signed-in user: the browser may keep them, a shared cache may not.
    if (!headers.has("cache-control")) headers.set("cache-control", "private, no-cache");
    if (matches(request.headers.get("if-none-match"), etag)) {
      headers.delete("content-type");
      headers.delete("content-length");
      return new Response(null, { status: 304, headers });
    }
    const encoding = body.byteLength >= MIN_COMPRESSED_BYTES ? preferredEncoding(request.headers.get("accept-encoding")) : undefined;
    if (!encoding) return new Response(body, { status: 200, headers });
    const staticFile = !type.startsWith("application/json");
    const encoded = staticFile ? encodedFile(body, encoding, `${hash}:${body.byteLength}`) : encodeAnswer(body, encoding);
    if (!encoded) return new Response(body, { status: 200, headers });
    headers.set("content-encoding", encoding);
    headers.delete("content-length");
    return new Response(encoded, { status: 200, headers });
  });
}

import { brotliCompressSync, constants as zlib } from "node:zlib";

/** Types worth compressing; streams (NDJSON, event streams) are not among them: they must flow. */
const COMPRESSIBLE = /^(application\/json|text\/html|text\/css|text\/javascript|application\/javascript|image\/svg\+xml)\b/;
/** Below this, the encoding's framing costs about what it saves. */
const MIN_COMPRESSED_BYTES = 1024;
/** Encoded editor files kept (they repeat byte for byte); API answers are encoded each time. */
const ENCODED_CACHE_ENTRIES = 64;

type Encoding = "br" | "gzip";

type Bytes = Uint8Array<ArrayBuffer>;

const encodedCache = new Map<string, Bytes>();

function preferredEncoding(acceptEncoding: string | null): Encoding | undefined {
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

function encode(body: Bytes, encoding: Encoding, key: string | undefined): Bytes {
  const cacheKey = `${encoding}:${key}`;
  const cached = key === undefined ? undefined : encodedCache.get(cacheKey);
  if (cached) return cached;
  // Brotli 5 for editor files (encoded once, kept): about gzip's speed and smaller than gzip -9. API answers are
  // encoded on every request (a polled timeline, a run list): quality 1 took a third of quality 3's time for 4% more
  // bytes (80 KB of timeline entries: 0.18 ms and 12.0 KB against 0.53 ms and 11.5 KB).
  const quality = key === undefined ? 1 : 5;
  const encoded = encoding === "br" ? new Uint8Array(brotliCompressSync(body, { params: { [zlib.BROTLI_PARAM_QUALITY]: quality } })) : Bun.gzipSync(body);
  if (key === undefined) return encoded;
  if (encodedCache.size >= ENCODED_CACHE_ENTRIES) encodedCache.delete(encodedCache.keys().next().value ?? "");
  encodedCache.set(cacheKey, encoded);
  return encoded;
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
    headers.set("content-encoding", encoding);
    headers.delete("content-length");
    const staticFile = !type.startsWith("application/json");
    return new Response(encode(body, encoding, staticFile ? `${hash}:${body.byteLength}` : undefined), { status: 200, headers });
  });
}

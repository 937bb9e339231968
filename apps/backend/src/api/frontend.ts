import { Elysia } from "elysia";
import { existsSync, statSync } from "node:fs";
import { extname, join, normalize, sep } from "node:path";
import { ApiError } from "./errors.ts";
import { preferredEncoding, type Encoding } from "./http-caching.ts";

const NOT_BUILT = `<!doctype html><meta charset="utf-8"><title>Weft</title>
<h1>The Weft editor is not built</h1>
<p>The API is running (try <a href="/api/health">/api/health</a>), but <code>apps/frontend/dist</code> does not exist.</p>
<p>Build the editor with <code>bun run build:frontend</code> (or start Weft with <code>bun run serve</code>, which builds it first), then reload this page.</p>
`;

const IMMUTABLE = "public, max-age=31536000, immutable";
const SUFFIX: Readonly<Record<Encoding, string>> = { br: ".br", gzip: ".gz" };

/**
 * Serves the built editor: files from `dir`, `index.html` for any other path (the editor's routes
 * live in the browser), and a page explaining how to build it when it is not built. Paths under `/api/`
 * and `apiPrefixes` (another protocol's, e.g. `/v1/`) are never the editor's: an unknown one is a 404.
 */
export function frontendApi(dir: string, apiPrefixes: readonly string[] = []) {
  const root = normalize(dir);

  function fileFor(pathname: string): string | undefined {
    let decoded: string;
    try {
      decoded = decodeURIComponent(pathname);
    } catch {
      return undefined;
    }
    const candidate = normalize(join(root, decoded));
    // Only files inside the dist folder: `..` and encoded separators cannot leave it.
    if (candidate !== root && !candidate.startsWith(root + sep)) return undefined;
    return existsSync(candidate) && statSync(candidate).isFile() ? candidate : undefined;
  }

  const assets = join(root, "assets") + sep;

  /**
   * A fingerprinted file as its build encoded it (`<file>.br`, `<file>.gz`: apps/frontend/vite-precompress.ts), when
   * the client takes that encoding: sent as it is, where the answer hooks would read, hash and (from its second ask)
   * encode the whole file on every request. Undefined when there is none: the file goes the ordinary way.
   */
  function precompressed(file: string, request: Request): Response | undefined {
    const encoding = preferredEncoding(request.headers.get("accept-encoding"));
    if (!encoding) return undefined;
    const encoded = `${file}${SUFFIX[encoding]}`;
    if (!existsSync(encoded)) return undefined;
    return new Response(Bun.file(encoded), {
      headers: { "content-type": Bun.file(file).type, "content-encoding": encoding, vary: "Accept-Encoding", "cache-control": IMMUTABLE },
    });
  }

  const serve = ({ request }: { request: Request }) => {
    const pathname = new URL(request.url).pathname;
    if (pathname === "/api" || pathname.startsWith("/api/") || apiPrefixes.some((prefix) => pathname.startsWith(prefix))) {
      throw new ApiError("NOT_FOUND", `There is no API route ${request.method} ${pathname}. docs/api.md lists them.`, { method: request.method, path: pathname });
    }
    const index = join(root, "index.html");
    if (!existsSync(index)) return new Response(NOT_BUILT, { status: 503, headers: { "content-type": "text/html; charset=utf-8" } });
    const file = fileFor(pathname);
    if (file) {
      // Vite fingerprints everything under assets/: those never change under the same name.
      const immutable = file.startsWith(assets);
      return (immutable ? precompressed(file, request) : undefined) ?? new Response(Bun.file(file), { headers: { "cache-control": immutable ? IMMUTABLE : "no-cache" } });
    }
    if (extname(pathname) !== "" && !pathname.endsWith(".html")) {
      return new Response(`Not found: ${pathname}`, { status: 404, headers: { "content-type": "text/plain; charset=utf-8" } });
    }
    return new Response(Bun.file(index), { headers: { "content-type": "text/html; charset=utf-8", "cache-control": "no-cache" } });
  };

  return new Elysia().get("/", serve).get("/*", serve);
}

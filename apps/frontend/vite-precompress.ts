import { readFile, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { promisify } from "node:util";
import { brotliCompress, constants as zlib, gzip } from "node:zlib";
import type { Plugin } from "vite";

/** What the server sends precompressed: the fingerprinted scripts and stylesheets (and any SVG or JSON among them). */
const COMPRESSIBLE = /^assets\/.+\.(js|css|svg|json)$/;
/** Below this, the encoding's framing costs about what it saves (the server's own threshold, http-caching.ts). */
const MIN_BYTES = 1024;

const brotli = promisify(brotliCompress);
const gzipped = promisify(gzip);

/**
 * Writes `<file>.br` (brotli 11) and `<file>.gz` (gzip 9) beside each file under `assets/`, once, at build time: the
 * server sends them as they are (apps/backend/src/api/frontend.ts), so the first load is ~1/4 of the bytes and costs
 * the server no encoding. Reads the files as written, so the encoded bytes are those of the file, hints included.
 */
export function precompress(): Plugin {
  return {
    name: "weft-precompress",
    apply: "build",
    async writeBundle(options, bundle) {
      const dir = options.dir ?? "dist";
      const names = Object.keys(bundle).filter((name) => COMPRESSIBLE.test(name));
      await Promise.all(
        names.map(async (name) => {
          const path = join(dir, name);
          const bytes = await readFile(path);
          if (bytes.byteLength < MIN_BYTES) return;
          const [br, gz] = await Promise.all([
            brotli(bytes, { params: { [zlib.BROTLI_PARAM_QUALITY]: zlib.BROTLI_MAX_QUALITY, [zlib.BROTLI_PARAM_SIZE_HINT]: bytes.byteLength } }),
            gzipped(bytes, { level: zlib.Z_BEST_COMPRESSION }),
          ]);
          await Promise.all([writeFile(`${path}.br`, br), writeFile(`${path}.gz`, gz)]);
        }),
      );
    },
  };
}

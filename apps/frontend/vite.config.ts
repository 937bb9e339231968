import { fileURLToPath } from "node:url";
import { defineConfig, type Plugin, type Rolldown } from "vite";
import vue from "@vitejs/plugin-vue";
import { precompress } from "./vite-precompress.ts";
import { fingerprintEarlyStart } from "./vite-early-start.ts";

type ChunkingContext = Rolldown.ChunkingContext;

/**
 * `@weft/types` re-exports every schema module; followed through it, the first load took all of them (the evals'
 * schemas, built at start for views loaded later). Past it, a module of it is in the first load only when used there.
 */
const TYPES_BARREL = fileURLToPath(new URL("../../packages/types/src/index.ts", import.meta.url));

/** The modules the entry imports statically (what opening the editor runs), once per chunking pass. */
const firstLoads = new WeakMap<ChunkingContext, Set<string>>();
function firstLoad(ctx: ChunkingContext): Set<string> {
  let found = firstLoads.get(ctx);
  if (found) return found;
  found = new Set();
  const entry = ctx.getModuleInfo(fileURLToPath(new URL("./src/main.ts", import.meta.url)));
  const todo = entry ? [entry.id] : [];
  for (let id = todo.pop(); id !== undefined; id = todo.pop()) {
    if (found.has(id)) continue;
    found.add(id);
    if (id !== TYPES_BARREL) todo.push(...(ctx.getModuleInfo(id)?.importedIds ?? []));
  }
  firstLoads.set(ctx, found);
  return found;
}

/**
 * Chromium's explicit compile hint on the first load's two scripts: their functions are compiled while the file
 * streams in, on a background thread, instead of one by one on the main thread when first called during the start
 * (bench/canvas-start.bench.ts: ~25-50 ms less main-thread CPU per opening, the renderer's total about the same). A
 * comment: other browsers ignore it, and the page's CSP is not concerned.
 */
function compileHints(): Plugin {
  return {
    name: "weft-compile-hints",
    // After Vite's own changes to the chunks (the entry's preload map), so the hint stays the file's first line.
    generateBundle: {
      order: "post",
      handler(_, bundle) {
        for (const chunk of Object.values(bundle)) if (chunk.type === "chunk" && (chunk.isEntry || chunk.name === "vendor")) chunk.code = `//# allFunctionsCalledOnLoad\n${chunk.code}`;
      },
    },
  };
}

export default defineConfig({
  plugins: [vue(), compileHints(), fingerprintEarlyStart(), precompress()],
  build: {
    // Libraries change less often than the editor: a separate chunk stays cached across releases.
    // dagre (auto-layout) and diff (the Builder) stay out of it: they load when first used.
    rolldownOptions: {
      // The timing report is a yellow [PLUGIN_TIMINGS] warning on every build of a busy machine, read as an
      // error at `npm start`; the time is the Vue compiler's (vite:vue transform), expected and not ours to cut.
      checks: { bundlerTimings: false },
      output: {
        codeSplitting: {
          groups: [
            // Its stylesheets go with the editor's into one file: one request less before the first paint.
            { name: "vendor", test: (id) => id.includes("node_modules") && !id.endsWith(".css") && !/node_modules[\\/](@dagrejs|diff)[\\/]/.test(id) },
            // The editor's own code that the first load runs, in one chunk: left to itself the bundler splits what a
            // lazy view shares with the editor into small chunks (nine requests instead of one on every open). The entry
            // (index.html's script) is in it too, so it is the page's script itself rather than a file that imports it.
            // At most six requests go to a server at once (HTTP/1.1): with the preloads and early-start.js (vite-early-start.ts), these are six.
            { name: (id, ctx) => (ctx.getModuleInfo(id)?.isEntry || ((!id.includes("node_modules") || id.endsWith(".css")) && firstLoad(ctx).has(id)) ? "app" : null) },
          ],
        },
      },
    },
  },
  server: { proxy: { "/api": "http://localhost:3000", "/ws": { target: "ws://localhost:3000", ws: true } } },
});

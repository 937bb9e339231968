import { readFileSync } from "node:fs";
import { fileURLToPath } from "node:url";
import type { Plugin } from "vite";

const SOURCE = fileURLToPath(new URL("./early-start.js", import.meta.url));
const TAG = '<script src="/early-start.js"></script>';

/**
 * `early-start.js` (a classic script: Vite bundles only modules) under a fingerprinted name, `assets/early-start-<hash>.js`,
 * kept by the browser for good like the editor's scripts. Under a fixed name it was revalidated on every start
 * (`no-cache`): a round trip the page's parser, and so the editor's scripts, waited on. `vite` (dev) serves the file
 * from the folder as it is.
 */
export function fingerprintEarlyStart(): Plugin {
  return {
    name: "weft-early-start",
    apply: "build",
    buildStart() {
      this.emitFile({ type: "asset", name: "early-start.js", source: readFileSync(SOURCE) });
    },
    transformIndexHtml: {
      order: "post",
      handler(html, { bundle }) {
        const emitted = Object.values(bundle ?? {}).find((file) => file.type === "asset" && file.names.includes("early-start.js"));
        if (!emitted || !html.includes(TAG)) throw new Error(`weft-early-start: index.html must hold ${TAG}, and early-start.js be emitted`);
        return html.replace(TAG, `<script src="/${emitted.fileName}"></script>`);
      },
    },
  };
}

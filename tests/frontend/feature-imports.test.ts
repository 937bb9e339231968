import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { tempDir } from "../../apps/backend/src/testing/temp-dirs.ts";
import { graphProblems } from "./import-graph.ts";

const SRC = fileURLToPath(new URL("../../apps/frontend/src", import.meta.url));

function tree(files: Record<string, string>): string {
  const root = tempDir("weft-frontend-graph-");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(root, path)), { recursive: true });
    writeFileSync(join(root, path), text);
  }
  return root;
}

describe("apps/frontend/src imports point one way", () => {
  it("has no folders importing each other at any level, no import circle, and features meet only at index.ts", () => {
    expect(graphProblems(SRC)).toEqual({ mutualPairs: [], circles: [], pastIndex: [] });
  });

  it("reports a mutual pair between nested folders, a circle through type-only imports, and a reach past index.ts", () => {
    const root = tree({
      "features/a/index.ts": 'export { x } from "./x.ts";\n',
      "features/a/x.ts": 'import { y } from "../b/y.ts";\nexport const x = y;\n',
      "features/b/index.ts": 'export { y } from "./y.ts";\n',
      "features/b/y.ts": 'import type { X } from "../a/index.ts";\nexport const y = 1 as X;\n',
      "shared/ui/u.ts": 'import { y } from "../../features/b/index.ts";\nexport const u = y;\n',
    });
    const problems = graphProblems(root);
    expect(problems.mutualPairs).toEqual(["features: a <-> b"]);
    expect(problems.circles).toEqual([["features/a/index.ts", "features/a/x.ts", "features/b/y.ts"]]);
    expect(problems.pastIndex).toEqual(["features/a/x.ts -> features/b/y.ts (use features/b/index.ts)", "shared/ui/u.ts -> features/b/index.ts (shared/ imports no feature)"]);
  });
});

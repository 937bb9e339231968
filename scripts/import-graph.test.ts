import { describe, expect, it } from "vitest";
import { mkdirSync, writeFileSync } from "node:fs";
import { dirname, join } from "node:path";
import { checkImportGraph, formatReport } from "./import-graph.ts";
import { tempDir } from "../apps/backend/src/testing/temp-dirs.ts";

/** A small repository: `files` (path → text) under a fresh folder, with the workspace packages their package.json names. */
function tree(files: Record<string, string>): string {
  const base = tempDir("weft-import-graph-");
  for (const [path, text] of Object.entries(files)) {
    mkdirSync(dirname(join(base, path)), { recursive: true });
    writeFileSync(join(base, path), text);
  }
  return base;
}

const ROOTS = ["apps/backend/src", "packages"];

function run(base: string): { code: number; out: string } {
  const proc = Bun.spawnSync(["bun", join(import.meta.dirname, "import-graph.ts"), ...ROOTS], { cwd: base, stdout: "pipe", stderr: "pipe" });
  return { code: proc.exitCode ?? 1, out: proc.stdout.toString() + proc.stderr.toString() };
}

const workspace = {
  "package.json": JSON.stringify({ workspaces: ["packages/*", "apps/*"] }),
  "packages/types/package.json": JSON.stringify({ name: "@weft/types", exports: { ".": "./src/index.ts" } }),
  "packages/nodes/package.json": JSON.stringify({ name: "@weft/nodes", main: "src/index.ts" }),
  "apps/backend/src/main.ts": `export {};\n`,
};

describe("the import-graph check", () => {
  it("passes a tree whose imports point one way, tests importing shared helpers included (exit 0)", () => {
    const base = tree({
      ...workspace,
      "packages/types/src/index.ts": `export type Id = string;\n`,
      "packages/nodes/src/index.ts": `import type { Id } from "@weft/types";\nexport const id: Id = "x";\n`,
      "apps/backend/src/http/errors.ts": `export class HttpError extends Error {}\n`,
      "apps/backend/src/runs/runs-api.ts": `import { HttpError } from "../http/errors.ts";\nimport { id } from "@weft/nodes";\nexport const e = new HttpError(id);\n`,
      // A test imports a helper of the shared testing folder, which imports the code it helps test: not a pair.
      "apps/backend/src/runs/runs-api.test.ts": `import { server } from "../testing/server.ts";\nimport "./runs-api.ts";\nserver();\n`,
      "apps/backend/src/testing/server.ts": `import "../runs/runs-api.ts";\nexport function server() {}\n`,
    });
    const report = checkImportGraph(base, ROOTS);
    expect(report.pairs).toEqual([]);
    expect(report.circles).toEqual([]);
    expect(report.imports).toBe(5);
    expect(report.files).toBe(7);
    const { code, out } = run(base);
    expect(out).toContain("no mutual folder pair, no circle");
    expect(code).toBe(0);
  });

  it("fails on two folders that import each other through files in their subfolders, with one example import each way", () => {
    const base = tree({
      ...workspace,
      "apps/backend/src/api/kit/errors.ts": `import { log } from "../../runs/log/log.ts";\nexport const errors = log;\n`,
      "apps/backend/src/runs/runs-api.ts": `\nimport { errors } from "../api/kit/errors.ts";\nexport default errors;\n`,
      "apps/backend/src/runs/log/log.ts": `export const log = 1;\n`,
    });
    const report = checkImportGraph(base, ROOTS);
    expect(report.circles).toEqual([]);
    expect(report.pairs).toHaveLength(1);
    expect(report.pairs[0]).toMatchObject({
      parent: "apps/backend/src",
      a: "apps/backend/src/api",
      b: "apps/backend/src/runs",
      aToB: { count: 1, example: { from: "apps/backend/src/api/kit/errors.ts", line: 1, to: "apps/backend/src/runs/log/log.ts" } },
      bToA: { count: 1, example: { from: "apps/backend/src/runs/runs-api.ts", line: 2, spec: "../api/kit/errors.ts" } },
    });
    const { code, out } = run(base);
    expect(code).toBe(1);
    expect(out).toContain("api <-> runs");
    expect(out).toContain(`runs -> api (1 import), e.g. runs/runs-api.ts:2 imports "../api/kit/errors.ts"`);
  });

  it("finds pairs at every folder level, between workspace packages too (a package import resolved to its entry)", () => {
    const base = tree({
      ...workspace,
      "packages/types/src/index.ts": `export * from "./deep/a/one.ts";\n`,
      "packages/types/src/deep/a/one.ts": `import { two } from "../b/two.ts";\nimport "@weft/nodes";\nexport const one = two;\n`,
      "packages/types/src/deep/b/two.ts": `export const two = 2;\nexport const lazy = () => import("../a/one.ts");\n`,
      "packages/nodes/src/index.ts": `import { one } from "@weft/types";\nexport const n = one;\n`,
    });
    const report = checkImportGraph(base, ROOTS);
    expect(report.pairs.map((p) => [p.a, p.b])).toEqual([
      ["packages/nodes", "packages/types"],
      ["packages/types/src/deep/a", "packages/types/src/deep/b"],
    ]);
    // The dynamic import is what closes the deep pair.
    expect(report.pairs[1]!.bToA.example).toMatchObject({ spec: "../a/one.ts", typeOnly: false });
    expect(run(base).code).toBe(1);
  });

  it("fails on a circle of files in one folder, printing a shortest loop through it", () => {
    const base = tree({
      ...workspace,
      "packages/types/src/a.ts": `import { b } from "./b.ts";\nexport const a = b;\n`,
      "packages/types/src/b.ts": `// import { a } from "./a.ts"; (a comment is no import)\nimport { c } from "./c.ts";\nexport const b = c;\n`,
      "packages/types/src/c.ts": `export { a } from "./a.ts";\nexport const c = 3;\n`,
    });
    const report = checkImportGraph(base, ROOTS);
    expect(report.pairs).toEqual([]);
    expect(report.circles).toHaveLength(1);
    expect(report.circles[0]!.files).toEqual(["packages/types/src/a.ts", "packages/types/src/b.ts", "packages/types/src/c.ts"]);
    expect(report.circles[0]!.loop.map((e) => `${e.from}:${e.line}`)).toEqual(["packages/types/src/a.ts:1", "packages/types/src/b.ts:2", "packages/types/src/c.ts:1"]);
    const { code, out } = run(base);
    expect(code).toBe(1);
    expect(out).toContain("circle of 3 files");
  });

  it("counts type-only imports: a circle made of `import type` and `typeof import()` alone fails too", () => {
    const base = tree({
      ...workspace,
      "packages/types/src/node.ts": `import type { Graph } from "./graph.ts";\nexport interface Node { graph: Graph }\n`,
      "packages/types/src/graph.ts": `export type Graph = { nodes: typeof import("./node.ts") };\n`,
    });
    const report = checkImportGraph(base, ROOTS);
    expect(report.circles).toHaveLength(1);
    expect(report.circles[0]!.loop.every((e) => e.typeOnly)).toBe(true);
    expect(formatReport(report)).toContain(`graph.ts:1 imports type "./node.ts"`);
    expect(run(base).code).toBe(1);
  });

  it("reads .vue files' script blocks, and counts a test's imports of anything but test helpers", () => {
    const base = tree({
      ...workspace,
      "apps/backend/src/stores/ui.ts": `import { theme } from "../composables/theme.ts";\nexport const ui = theme;\n`,
      "apps/backend/src/composables/Panel.vue": `<template><div /></template>\n<script setup lang="ts">\nimport { ui } from "../stores/ui.ts";\n</script>\n`,
      "apps/backend/src/composables/theme.ts": `export const theme = 1;\n`,
      // A test importing another folder's code (not a helper) makes an arrow like any file.
      "apps/backend/src/seed/loader.ts": `export const load = 1;\n`,
      "apps/backend/src/storage/db.ts": `export const db = 1;\n`,
      "apps/backend/src/seed/uses-db.ts": `import { db } from "../storage/db.ts";\nexport const x = db;\n`,
      "apps/backend/src/storage/db.test.ts": `import { load } from "../seed/loader.ts";\nexport const y = load;\n`,
    });
    const report = checkImportGraph(base, ROOTS);
    expect(report.pairs.map((p) => [p.a.split("/").at(-1), p.b.split("/").at(-1)])).toEqual([
      ["composables", "stores"],
      ["seed", "storage"],
    ]);
    expect(report.pairs[0]!.aToB.example).toMatchObject({ from: "apps/backend/src/composables/Panel.vue", line: 3 });
    expect(formatReport(report)).toContain("storage -> seed (1 import, all in tests)");
  });

  it("holds features to their index.ts and shared/ to no feature, where a root has features/ (tests may reach in)", () => {
    const base = tree({
      ...workspace,
      "apps/backend/src/features/runs/index.ts": `export { list } from "./list.ts";\n`,
      "apps/backend/src/features/runs/list.ts": `export const list = 1;\n`,
      "apps/backend/src/features/editor/panel.ts": `import { list } from "../runs/index.ts";\nimport { list as inner } from "../runs/list.ts";\nexport const p = list + inner;\n`,
      "apps/backend/src/features/editor/panel.test.ts": `import { list } from "../runs/list.ts";\nexport const t = list;\n`,
      "apps/backend/src/shared/api.ts": `import type { list } from "../features/runs/index.ts";\nexport type A = typeof list;\n`,
    });
    const report = checkImportGraph(base, ROOTS);
    expect(report.pairs).toEqual([]);
    expect(report.boundaries.map((b) => `${b.edge.from.split("/").slice(-2).join("/")}:${b.edge.line} ${b.rule}`)).toEqual([
      "editor/panel.ts:2 use features/runs/index.ts",
      "shared/api.ts:1 shared/ imports no feature",
    ]);
    const { code, out } = run(base);
    expect(code).toBe(1);
    expect(out).toContain("2 imports past a feature's index.ts");
  });
});

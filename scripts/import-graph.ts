/**
 * The import-graph check: fails when two sibling folders import each other (at any folder level) or files import each
 * other in a circle, in apps/backend/src, apps/frontend/src and packages/. Every import counts: static `import` and
 * `export … from`, `import type`, dynamic `import("…")` and `import("…")` types, in .ts files and .vue `<script>` blocks.
 * The one exception: a test file (`*.test.ts`) may import test helpers (files under a `testing/` folder) anywhere —
 * tests sit beside the code they test, while a shared helper has to live somewhere; every other import of a test file
 * counts, and so do the helpers' own imports.
 *
 * usage: bun scripts/import-graph.ts [ROOT…]   (run from the repository root; exit 1 on any pair or circle)
 */
import { readdirSync, readFileSync, existsSync, statSync } from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import ts from "typescript";

export const DEFAULT_ROOTS = ["apps/backend/src", "apps/frontend/src", "packages"];

/** One import of one file by another, both relative to the repository root (with `/`). */
export interface ImportEdge {
  from: string;
  to: string;
  line: number;
  spec: string;
  typeOnly: boolean;
}

/** Two sibling folders under `parent` that import each other; one example import each way and how many there are. */
export interface FolderPair {
  root: string;
  parent: string;
  a: string;
  b: string;
  aToB: Arrow;
  bToA: Arrow;
}

/** All imports from one folder into another: how many, how many of them are test code's, and one example (not a test's if any). */
export interface Arrow {
  example: ImportEdge;
  count: number;
  fromTests: number;
}

/** Files that import each other in a circle (a strongly connected component), with a shortest loop through it. */
export interface ImportCircle {
  root: string;
  files: string[];
  loop: ImportEdge[];
  /** The other imports between the circle's files, beyond the loop. */
  others: ImportEdge[];
}

/** An import past a feature's front door: into another feature's internals, or from `shared/` into a feature. */
export interface BoundaryCrossing {
  root: string;
  edge: ImportEdge;
  rule: string;
}

export interface GraphReport {
  roots: string[];
  files: number;
  imports: number;
  pairs: FolderPair[];
  circles: ImportCircle[];
  boundaries: BoundaryCrossing[];
}

const SKIP_DIRS = new Set(["node_modules", "dist", "coverage"]);

function toPosix(path: string): string {
  return sep === "/" ? path : path.split(sep).join("/");
}

function listSources(base: string, root: string, out: string[]): void {
  const dir = join(base, root);
  for (const entry of readdirSync(dir, { withFileTypes: true })) {
    if (entry.name.startsWith(".")) continue;
    const path = `${root}/${entry.name}`;
    if (entry.isDirectory()) {
      if (!SKIP_DIRS.has(entry.name)) listSources(base, path, out);
    } else if (entry.name.endsWith(".ts") || entry.name.endsWith(".vue")) {
      out.push(path);
    }
  }
}

/** The script text of a file with each block's offset in the file (a .vue file's `<script>` blocks, a .ts file whole). */
function scriptBlocks(path: string, text: string): { offset: number; code: string }[] {
  if (!path.endsWith(".vue")) return [{ offset: 0, code: text }];
  const blocks: { offset: number; code: string }[] = [];
  for (const m of text.matchAll(/<script\b[^>]*>([\s\S]*?)<\/script>/g)) {
    blocks.push({ offset: m.index + m[0].indexOf(">") + 1, code: m[1] ?? "" });
  }
  return blocks;
}

interface RawImport {
  spec: string;
  line: number;
  typeOnly: boolean;
}

/** Every module specifier a file names, with its line; comments and strings are skipped (TypeScript's own scanner). */
export function parseImports(path: string, text: string): RawImport[] {
  const found: RawImport[] = [];
  for (const block of scriptBlocks(path, text)) {
    for (const ref of ts.preProcessFile(block.code, true, true).importedFiles) {
      const pos = block.offset + ref.pos;
      const line = text.slice(0, pos).split("\n").length;
      // The statement's start: the nearest `import`/`export` keyword before the specifier.
      const head = text.slice(0, pos);
      const start = Math.max(head.lastIndexOf("import"), head.lastIndexOf("export"));
      const typeOnly = /^(import|export)\s+type\b/.test(text.slice(start, pos)) || /\btypeof\s+$/.test(head.slice(0, start));
      found.push({ spec: ref.fileName, line, typeOnly });
    }
  }
  return found;
}

/** Workspace package names → the folder they live in (from the root package.json's `workspaces: ["dir/*"]`). */
function workspacePackages(base: string): Map<string, string> {
  const packages = new Map<string, string>();
  const rootJson = join(base, "package.json");
  if (!existsSync(rootJson)) return packages;
  const { workspaces = [] } = JSON.parse(readFileSync(rootJson, "utf8")) as { workspaces?: string[] };
  for (const pattern of workspaces) {
    const parent = pattern.replace(/\/\*$/, "");
    if (!existsSync(join(base, parent))) continue;
    for (const name of readdirSync(join(base, parent))) {
      const json = join(base, parent, name, "package.json");
      if (!existsSync(json)) continue;
      const pkg = JSON.parse(readFileSync(json, "utf8")) as { name?: string };
      if (pkg.name) packages.set(pkg.name, `${parent}/${name}`);
    }
  }
  return packages;
}

function packageEntry(base: string, dir: string): string {
  const pkg = JSON.parse(readFileSync(join(base, dir, "package.json"), "utf8")) as { main?: string; exports?: unknown };
  const exported = typeof pkg.exports === "object" && pkg.exports !== null ? (pkg.exports as Record<string, unknown>)["."] : pkg.exports;
  const entry = typeof exported === "string" ? exported : (pkg.main ?? "index.ts");
  return toPosix(join(dir, entry));
}

function firstFile(base: string, candidates: string[]): string | undefined {
  return candidates.find((c) => existsSync(join(base, c)) && statSync(join(base, c)).isFile());
}

/** The file an import names (relative or a workspace package), or undefined for anything else (npm packages, assets). */
export function resolveImport(base: string, packages: Map<string, string>, from: string, spec: string): string | undefined {
  let target: string;
  if (spec.startsWith(".")) {
    target = toPosix(relative(base, resolve(base, dirname(from), spec)));
  } else {
    const m = /^(@[^/]+\/[^/]+|[^@/][^/]*)(?:\/(.*))?$/.exec(spec);
    const dir = m?.[1] !== undefined ? packages.get(m[1]) : undefined;
    if (dir === undefined) return undefined;
    if (m?.[2] === undefined) return firstFile(base, [packageEntry(base, dir)]);
    target = `${dir}/${m[2]}`;
  }
  return firstFile(base, [target, `${target}.ts`, `${target}.vue`, `${target}/index.ts`]);
}

const isTestFile = (path: string): boolean => /\.test\.ts$/.test(path);
const isTestHelper = (path: string): boolean => path.split("/").includes("testing");
const isTestCode = (path: string): boolean => isTestFile(path) || isTestHelper(path);

/** The one exemption: a test file's import of a test helper. */
export function exempt(edge: ImportEdge): boolean {
  return isTestFile(edge.from) && isTestHelper(edge.to);
}

function rootOf(roots: string[], path: string): string | undefined {
  return roots.find((r) => path === r || path.startsWith(`${r}/`));
}

/** The sibling folders (under their deepest common folder) an import crosses, or undefined if it crosses none. */
function crossing(roots: string[], edge: ImportEdge): { root: string; parent: string; a: string; b: string } | undefined {
  const from = edge.from.split("/");
  const to = edge.to.split("/");
  let i = 0;
  while (i < from.length - 1 && i < to.length - 1 && from[i] === to[i]) i++;
  // from[i] and to[i] are the first segments that differ; both must be folders (not the file itself).
  if (i >= from.length - 1 || i >= to.length - 1) return undefined;
  const parent = from.slice(0, i).join("/");
  const root = rootOf(roots, parent);
  if (root === undefined) return undefined;
  return { root, parent, a: `${parent}/${from[i]}`, b: `${parent}/${to[i]}` };
}

function folderPairs(roots: string[], edges: ImportEdge[]): FolderPair[] {
  const arrows = new Map<string, { root: string; parent: string; a: string; b: string } & Arrow>();
  for (const edge of edges) {
    const c = crossing(roots, edge);
    if (c === undefined) continue;
    const key = `${c.a}\0${c.b}`;
    const test = isTestCode(edge.from) ? 1 : 0;
    const seen = arrows.get(key);
    if (seen === undefined) arrows.set(key, { ...c, example: edge, count: 1, fromTests: test });
    else {
      seen.count++;
      seen.fromTests += test;
      if (isTestCode(seen.example.from) && !test) seen.example = edge;
    }
  }
  const pairs: FolderPair[] = [];
  for (const arrow of arrows.values()) {
    const back = arrows.get(`${arrow.b}\0${arrow.a}`);
    if (back === undefined || arrow.a > arrow.b) continue;
    pairs.push({
      root: arrow.root,
      parent: arrow.parent,
      a: arrow.a,
      b: arrow.b,
      aToB: { example: arrow.example, count: arrow.count, fromTests: arrow.fromTests },
      bToA: { example: back.example, count: back.count, fromTests: back.fromTests },
    });
  }
  return pairs.sort((x, y) => x.root.localeCompare(y.root) || x.a.localeCompare(y.a) || x.b.localeCompare(y.b));
}

/** Tarjan's strongly connected components, iteratively (no recursion limit on long import chains). */
function stronglyConnected(nodes: string[], out: Map<string, ImportEdge[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const onStack = new Set<string>();
  const stack: string[] = [];
  const components: string[][] = [];
  let next = 0;
  for (const start of nodes) {
    if (index.has(start)) continue;
    const work: { node: string; i: number }[] = [{ node: start, i: 0 }];
    index.set(start, next);
    low.set(start, next++);
    stack.push(start);
    onStack.add(start);
    while (work.length > 0) {
      const frame = work[work.length - 1]!;
      const targets = out.get(frame.node) ?? [];
      if (frame.i < targets.length) {
        const to = targets[frame.i++]!.to;
        if (!index.has(to)) {
          index.set(to, next);
          low.set(to, next++);
          stack.push(to);
          onStack.add(to);
          work.push({ node: to, i: 0 });
        } else if (onStack.has(to)) {
          low.set(frame.node, Math.min(low.get(frame.node)!, index.get(to)!));
        }
        continue;
      }
      work.pop();
      const parent = work[work.length - 1];
      if (parent) low.set(parent.node, Math.min(low.get(parent.node)!, low.get(frame.node)!));
      if (low.get(frame.node) === index.get(frame.node)) {
        const component: string[] = [];
        for (;;) {
          const n = stack.pop()!;
          onStack.delete(n);
          component.push(n);
          if (n === frame.node) break;
        }
        components.push(component);
      }
    }
  }
  return components;
}

/** The shortest loop through `start` inside the component (breadth-first), as the imports that make it. */
function shortestLoop(start: string, members: Set<string>, out: Map<string, ImportEdge[]>): ImportEdge[] {
  const via = new Map<string, ImportEdge>();
  const queue = [start];
  for (let q = 0; q < queue.length; q++) {
    for (const edge of out.get(queue[q]!) ?? []) {
      if (!members.has(edge.to)) continue;
      if (edge.to === start) {
        const loop = [edge];
        for (let at = edge.from; at !== start; at = via.get(at)!.from) loop.unshift(via.get(at)!);
        return loop;
      }
      if (!via.has(edge.to)) {
        via.set(edge.to, edge);
        queue.push(edge.to);
      }
    }
  }
  return [];
}

function circles(roots: string[], files: string[], edges: ImportEdge[]): ImportCircle[] {
  const out = new Map<string, ImportEdge[]>();
  for (const edge of edges) {
    const list = out.get(edge.from) ?? [];
    // One arrow per file pair: the first import of it.
    if (!list.some((e) => e.to === edge.to)) list.push(edge);
    out.set(edge.from, list);
  }
  const found: ImportCircle[] = [];
  for (const component of stronglyConnected(files, out)) {
    const selfImport = component.length === 1 && (out.get(component[0]!) ?? []).some((e) => e.to === component[0]);
    if (component.length < 2 && !selfImport) continue;
    const members = new Set(component);
    const sorted = [...component].sort();
    const loop = shortestLoop(sorted[0]!, members, out);
    const inLoop = new Set(loop);
    const others = sorted.flatMap((f) => (out.get(f) ?? []).filter((e) => members.has(e.to) && !inLoop.has(e)));
    found.push({ root: rootOf(roots, sorted[0]!) ?? "", files: sorted, loop, others });
  }
  return found.sort((x, y) => x.files[0]!.localeCompare(y.files[0]!));
}

/**
 * Where a root has a `features/` folder (apps/frontend/src): a feature's code reaches another feature only
 * through its `index.ts`, and `shared/` (beside `features/`) imports no feature. Tests may reach anywhere.
 */
function boundaryCrossings(roots: string[], edges: ImportEdge[]): BoundaryCrossing[] {
  const found: BoundaryCrossing[] = [];
  for (const edge of edges) {
    if (isTestCode(edge.from)) continue;
    const root = rootOf(roots, edge.from);
    if (root === undefined || !edge.to.startsWith(`${root}/features/`)) continue;
    const [feature, ...inside] = edge.to.slice(root.length + "/features/".length).split("/");
    if (edge.from.startsWith(`${root}/shared/`)) {
      found.push({ root, edge, rule: "shared/ imports no feature" });
    } else if (edge.from.startsWith(`${root}/features/`) && !edge.from.startsWith(`${root}/features/${feature}/`) && inside.join("/") !== "index.ts") {
      found.push({ root, edge, rule: `use features/${feature}/index.ts` });
    }
  }
  return found.sort((x, y) => x.edge.from.localeCompare(y.edge.from) || x.edge.line - y.edge.line);
}

/** Reads every source file under `roots` (folders relative to `base`) and finds the mutual folder pairs and circles. */
export function checkImportGraph(base: string, roots: string[] = DEFAULT_ROOTS): GraphReport {
  const files: string[] = [];
  for (const root of roots) {
    if (!existsSync(join(base, root))) throw new Error(`import graph: there is no folder ${root} in ${base} (give the folders to check, relative to the repository root)`);
    listSources(base, root, files);
  }
  const known = new Set(files);
  const packages = workspacePackages(base);
  const edges: ImportEdge[] = [];
  for (const from of files) {
    for (const raw of parseImports(from, readFileSync(join(base, from), "utf8"))) {
      const to = resolveImport(base, packages, from, raw.spec);
      if (to === undefined || !known.has(to)) continue;
      const edge: ImportEdge = { from, to, line: raw.line, spec: raw.spec, typeOnly: raw.typeOnly };
      if (!exempt(edge)) edges.push(edge);
    }
  }
  return { roots, files: files.length, imports: edges.length, pairs: folderPairs(roots, edges), circles: circles(roots, files, edges), boundaries: boundaryCrossings(roots, edges) };
}

export function problemCount(report: GraphReport): number {
  return report.pairs.length + report.circles.length + report.boundaries.length;
}

function describe(edge: ImportEdge, relativeTo: string): string {
  const short = (p: string): string => (relativeTo && p.startsWith(`${relativeTo}/`) ? p.slice(relativeTo.length + 1) : p);
  return `${short(edge.from)}:${edge.line} imports ${edge.typeOnly ? "type " : ""}"${edge.spec}"`;
}

/** The report as a developer reads it: per root, each pair with one example import per arrow, then each circle. */
export function formatReport(report: GraphReport): string {
  const lines: string[] = [];
  for (const root of report.roots) {
    const pairs = report.pairs.filter((p) => p.root === root);
    const rings = report.circles.filter((c) => c.root === root);
    const crossings = report.boundaries.filter((b) => b.root === root);
    lines.push(
      `${root}: ${pairs.length} mutual folder pair${pairs.length === 1 ? "" : "s"}, ${rings.length} import circle${rings.length === 1 ? "" : "s"}` +
        (crossings.length > 0 ? `, ${crossings.length} import${crossings.length === 1 ? "" : "s"} past a feature's index.ts` : ""),
    );
    for (const b of crossings) lines.push(`  ${describe(b.edge, root)} (${b.rule})`);
    for (const p of pairs) {
      const name = (f: string): string => f.slice(p.parent.length + 1);
      lines.push(`  ${p.parent.slice(root.length + 1) || "."}: ${name(p.a)} <-> ${name(p.b)}`);
      for (const [from, to, arrow] of [
        [p.a, p.b, p.aToB],
        [p.b, p.a, p.bToA],
      ] as const) {
        const tests = arrow.fromTests === arrow.count ? ", all in tests" : arrow.fromTests > 0 ? `, ${arrow.fromTests} in tests` : "";
        lines.push(`    ${name(from)} -> ${name(to)} (${arrow.count} import${arrow.count === 1 ? "" : "s"}${tests}), e.g. ${describe(arrow.example, p.parent)}`);
      }
    }
    for (const c of rings) {
      lines.push(`  circle of ${c.files.length} file${c.files.length === 1 ? "" : "s"}; a shortest loop:`);
      for (const edge of c.loop) lines.push(`    ${describe(edge, root)}`);
      if (c.others.length > 0) {
        lines.push(`    and ${c.others.length} more import${c.others.length === 1 ? "" : "s"} inside it:`);
        for (const edge of c.others.slice(0, 20)) lines.push(`      ${describe(edge, root)}`);
        if (c.others.length > 20) lines.push(`      …`);
      }
    }
  }
  const total = problemCount(report);
  lines.push(
    total === 0
      ? `import graph: ${report.files} files, ${report.imports} imports, no mutual folder pair, no circle`
      : `import graph: ${report.pairs.length} mutual folder pair${report.pairs.length === 1 ? "" : "s"}, ${report.circles.length} circle${report.circles.length === 1 ? "" : "s"} and ${report.boundaries.length} feature boundar${report.boundaries.length === 1 ? "y" : "ies"} crossed — move the code one arrow names so that imports point one way (scripts/README.md)`,
  );
  return lines.join("\n");
}

if (import.meta.main) {
  const args = process.argv.slice(2);
  const report = checkImportGraph(process.cwd(), args.length > 0 ? args : DEFAULT_ROOTS);
  console.log(formatReport(report));
  process.exit(problemCount(report) === 0 ? 0 : 1);
}

import { readdirSync, readFileSync, statSync } from "node:fs";
import { dirname, join, normalize, relative } from "node:path";

/**
 * The import graph of apps/frontend/src, checked for the shape its README sets: folders that import each
 * other both ways (at every level), import circles between files (type-only imports included), a feature
 * reaching into another feature past its index.ts, and shared/ importing a feature or the shell.
 */
export interface GraphProblems {
  mutualPairs: string[];
  circles: string[][];
  pastIndex: string[];
}

const IMPORT = /(?:from|import)\s*\(?\s*["'](\.[^"']+)["']/g;

function sourceFiles(root: string, dir = root): string[] {
  const out: string[] = [];
  for (const name of readdirSync(dir)) {
    const path = join(dir, name);
    if (statSync(path).isDirectory()) out.push(...sourceFiles(root, path));
    else if (/\.(ts|vue)$/.test(name)) out.push(relative(root, path));
  }
  return out;
}

/** Test files and test helpers may reach anywhere; only the app's own files count for folder pairs and the index rule. */
const isProduct = (file: string) => !file.includes(".test.") && !`/${file}`.includes("/testing/");

export function importGraph(root: string): Map<string, string[]> {
  const graph = new Map<string, string[]>();
  for (const file of sourceFiles(root)) {
    const text = readFileSync(join(root, file), "utf8");
    graph.set(
      file,
      [...text.matchAll(IMPORT)].map((m) => normalize(join(dirname(file), m[1]))),
    );
  }
  return graph;
}

function mutualPairs(graph: Map<string, string[]>): string[] {
  const folders = new Set<string>([""]);
  for (const file of graph.keys()) for (let d = dirname(file); d !== "."; d = dirname(d)) folders.add(d);
  const found: string[] = [];
  for (const folder of [...folders].sort()) {
    const prefix = folder ? `${folder}/` : "";
    const child = (file: string) => {
      if (!file.startsWith(prefix)) return null;
      const rest = file.slice(prefix.length);
      return rest.includes("/") ? rest.split("/")[0] : null;
    };
    const edges = new Set<string>();
    for (const [file, targets] of graph) {
      const from = isProduct(file) ? child(file) : null;
      if (!from) continue;
      for (const target of targets) {
        const to = child(target);
        if (to && to !== from) edges.add(`${from}\n${to}`);
      }
    }
    for (const edge of edges) {
      const [a, b] = edge.split("\n");
      if (a < b && edges.has(`${b}\n${a}`)) found.push(`${folder || "."}: ${a} <-> ${b}`);
    }
  }
  return found;
}

/** Strongly connected groups of more than one file (Tarjan), or a file importing itself. */
function circles(graph: Map<string, string[]>): string[][] {
  const index = new Map<string, number>();
  const low = new Map<string, number>();
  const stack: string[] = [];
  const onStack = new Set<string>();
  const found: string[][] = [];
  let next = 0;
  const visit = (v: string) => {
    index.set(v, next);
    low.set(v, next++);
    stack.push(v);
    onStack.add(v);
    for (const w of graph.get(v) ?? []) {
      if (!graph.has(w)) continue;
      if (!index.has(w)) {
        visit(w);
        low.set(v, Math.min(low.get(v)!, low.get(w)!));
      } else if (onStack.has(w)) low.set(v, Math.min(low.get(v)!, index.get(w)!));
    }
    if (low.get(v) === index.get(v)) {
      const group: string[] = [];
      let w: string;
      do {
        w = stack.pop()!;
        onStack.delete(w);
        group.push(w);
      } while (w !== v);
      if (group.length > 1 || (graph.get(v) ?? []).includes(v)) found.push(group.sort());
    }
  };
  for (const v of graph.keys()) if (!index.has(v)) visit(v);
  return found;
}

function pastIndex(graph: Map<string, string[]>): string[] {
  const found: string[] = [];
  for (const [file, targets] of graph) {
    if (!isProduct(file)) continue;
    for (const target of targets) {
      const feature = /^features\/([^/]+)\//.exec(target)?.[1];
      const own = file.startsWith(`features/${feature}/`);
      if (feature && !own && target !== `features/${feature}/index.ts`) found.push(`${file} -> ${target} (use features/${feature}/index.ts)`);
      if (feature && own && target === `features/${feature}/index.ts`) found.push(`${file} -> its own feature's index.ts`);
      const up = target.startsWith("features/") || target.startsWith("app/") || !target.includes("/");
      if (file.startsWith("shared/") && up) found.push(`${file} -> ${target} (shared/ imports no feature)`);
      if (file.startsWith("features/") && (target.startsWith("app/") || !target.includes("/"))) found.push(`${file} -> ${target} (a feature imports not the shell)`);
    }
  }
  return found;
}

export function graphProblems(root: string): GraphProblems {
  const graph = importGraph(root);
  return { mutualPairs: mutualPairs(graph).sort(), circles: circles(graph).sort(), pastIndex: pastIndex(graph).sort() };
}

/**
 * `bun bench/support/cpu-profile-summary.ts <file.cpuprofile> [filter]`: where a server's CPU went,
 * from the `.cpuprofile` a bench writes with BENCH_CPU_PROF=<dir> (the child server runs with
 * `bun --cpu-prof`). Prints, per function (name, file, line), the share of samples it was on the
 * stack (counted once per sample, so recursion does not inflate it) and its self share. Samples
 * whose stack passes through startup or replay code are left out (`PROFILE_EXCLUDE`, `|`-separated,
 * to change), so what remains is the measured work; `filter` keeps only functions whose label has it.
 */
/** The parts of Chrome's `.cpuprofile` format read here. */
interface CpuProfile {
  nodes: Array<{ id: number; callFrame: { functionName: string; url: string; lineNumber: number }; children?: number[] }>;
  samples: number[];
}

const [file, filter = ""] = process.argv.slice(2);
if (!file) throw new Error("usage: bun bench/support/cpu-profile-summary.ts <file.cpuprofile> [filter]");
const profile = (await Bun.file(file).json()) as CpuProfile;
if (!Array.isArray(profile.nodes) || !Array.isArray(profile.samples)) throw new Error(`${file} is not a .cpuprofile (no nodes and samples)`);
const exclude = (process.env.PROFILE_EXCLUDE ?? "replay|require|moduleEvaluation|loadAndEvaluate").toLowerCase().split("|");
const root = new URL("..", new URL("..", import.meta.url)).pathname;

const byId = new Map(profile.nodes.map((n) => [n.id, n]));
const parentOf = new Map<number, number>();
for (const n of profile.nodes) for (const child of n.children ?? []) parentOf.set(child, n.id);

const label = (id: number): string => {
  const { functionName, url, lineNumber } = byId.get(id)!.callFrame;
  const where = url
    .replace("file://", "")
    .replace(root, "")
    .replace(/.*node_modules\/\.bun\/([^/]+)\/.*\/([^/]+)$/, "$1/$2");
  return `${functionName || "(anonymous)"} ${where}:${lineNumber + 1}`;
};
const stacks = new Map<number, string[]>();
const stackOf = (id: number): string[] => {
  let stack = stacks.get(id);
  if (!stack) {
    stack = [];
    for (let at: number | undefined = id; at !== undefined; at = parentOf.get(at)) stack.push(label(at));
    stacks.set(id, stack);
  }
  return stack;
};

const inclusive = new Map<string, number>();
const self = new Map<string, number>();
let counted = 0;
let left = 0;
for (const sample of profile.samples) {
  const stack = stackOf(sample);
  if (stack[0]!.startsWith("(idle)") || stack[0]!.startsWith("(program)")) continue;
  if (stack.some((frame) => exclude.some((word) => frame.toLowerCase().includes(word)))) {
    left++;
    continue;
  }
  counted++;
  self.set(stack[0]!, (self.get(stack[0]!) ?? 0) + 1);
  for (const frame of new Set(stack)) inclusive.set(frame, (inclusive.get(frame) ?? 0) + 1);
}

const top = (counts: Map<string, number>, n: number) =>
  [...counts]
    .filter(([frame]) => frame.includes(filter))
    .sort((a, b) => b[1] - a[1])
    .slice(0, n)
    .map(([frame, count]) => `${((100 * count) / counted).toFixed(1).padStart(5)}%  ${frame}`)
    .join("\n");

console.log(`${counted} samples counted, ${left} left out (${exclude.join(", ")})`);
console.log(`\non the stack:\n${top(inclusive, 80)}`);
console.log(`\nself:\n${top(self, 30)}`);

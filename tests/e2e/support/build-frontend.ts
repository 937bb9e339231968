import { existsSync, mkdirSync, readdirSync, rmSync, statSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { fileURLToPath } from "node:url";

const ROOT = fileURLToPath(new URL("../../..", import.meta.url)).replace(/\/$/, "");
const FRONTEND = join(ROOT, "apps/frontend");
const DIST_INDEX = join(FRONTEND, "dist/index.html");
const LOCK = join(tmpdir(), `weft-frontend-build-${Buffer.from(ROOT).toString("hex").slice(-24)}.lock`);

function newest(path: string): number {
  const stat = statSync(path);
  if (!stat.isDirectory()) return stat.mtimeMs;
  let latest = stat.mtimeMs;
  for (const entry of readdirSync(path)) if (entry !== "node_modules" && entry !== "dist") latest = Math.max(latest, newest(join(path, entry)));
  return latest;
}

function upToDate(): boolean {
  if (!existsSync(DIST_INDEX)) return false;
  const sources = Math.max(
    newest(join(FRONTEND, "src")),
    newest(join(FRONTEND, "public")),
    newest(join(FRONTEND, "index.html")),
    newest(join(FRONTEND, "vite.config.ts")),
    newest(join(FRONTEND, "vite-precompress.ts")),
    newest(join(FRONTEND, "vite-early-start.ts")),
    newest(join(FRONTEND, "early-start.js")),
    newest(join(ROOT, "packages/types/src")),
  );
  return statSync(DIST_INDEX).mtimeMs >= sources;
}

/**
 * `bun run build:frontend`, unless dist/ is newer than every source. Test files run in parallel
 * workers, so a lock folder makes one build and the others wait for it.
 */
export async function buildFrontend(): Promise<void> {
  for (;;) {
    if (upToDate()) return;
    try {
      mkdirSync(LOCK);
    } catch {
      // Someone else builds; a lock older than two minutes belongs to a build that died.
      if (existsSync(LOCK) && Date.now() - statSync(LOCK).mtimeMs > 120_000) rmSync(LOCK, { recursive: true, force: true });
      await Bun.sleep(250);
      continue;
    }
    try {
      if (upToDate()) return;
      const build = Bun.spawnSync(["bun", "run", "build:frontend"], { cwd: ROOT, stdout: "pipe", stderr: "pipe" });
      if (build.exitCode !== 0) throw new Error(`bun run build:frontend failed:\n${build.stdout.toString()}\n${build.stderr.toString()}`);
      return;
    } finally {
      rmSync(LOCK, { recursive: true, force: true });
    }
  }
}

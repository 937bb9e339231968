import { SQL } from "bun";
import { chownSync, existsSync, mkdtempSync, readdirSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { freePort } from "./free-port.ts";

/** A PostgreSQL cluster the tests started: a superuser `weft` with trust auth on 127.0.0.1. */
export interface TestPostgres {
  /** `postgres://weft@127.0.0.1:PORT/postgres` */
  url: string;
  /** Stops the cluster (immediate shutdown) and deletes its folder. */
  stop(): Promise<void>;
}

/** The PostgreSQL binaries are missing (scripts/ensure-postgres.sh installs them), or the cluster would not start. */
export class TestPostgresError extends Error {
  readonly code = "TEST_POSTGRES_UNAVAILABLE";
}

/** The folder with initdb and pg_ctl: WEFT_PG_BIN (set by scripts/ensure-postgres.sh), else the newest Debian install. */
export function postgresBinDir(): string {
  const fromEnv = process.env.WEFT_PG_BIN;
  if (fromEnv && existsSync(join(fromEnv, "initdb"))) return fromEnv;
  const root = "/usr/lib/postgresql";
  const versions = existsSync(root) ? readdirSync(root).sort((a, b) => Number(b) - Number(a)) : [];
  for (const version of versions) {
    const dir = join(root, version, "bin");
    if (existsSync(join(dir, "initdb")) && existsSync(join(dir, "pg_ctl"))) return dir;
  }
  throw new TestPostgresError("No PostgreSQL binaries found: run `source scripts/ensure-postgres.sh` (installs Debian's postgresql) or set WEFT_PG_BIN.");
}

/** initdb and pg_ctl refuse to run as root: as root they run as the `postgres` user, in a folder it owns. */
function asClusterOwner(argv: string[]): string[] {
  if (process.getuid?.() !== 0) return argv;
  return ["setpriv", "--reuid=postgres", "--regid=postgres", "--init-groups", ...argv];
}

function clusterOwnerIds(): { uid: number; gid: number } | undefined {
  if (process.getuid?.() !== 0) return undefined;
  const id = (flag: string) => Number(Bun.spawnSync(["id", flag, "postgres"]).stdout.toString().trim());
  return { uid: id("-u"), gid: id("-g") };
}

function run(argv: string[], what: string): void {
  const result = Bun.spawnSync(asClusterOwner(argv), { stdout: "pipe", stderr: "pipe" });
  if (result.exitCode !== 0) throw new TestPostgresError(`${what} failed (exit ${result.exitCode}): ${result.stderr.toString().trim() || result.stdout.toString().trim()}`);
}

/**
 * A detached shell that stops the cluster once this process is gone, however it ended (a test worker
 * killed by a timeout runs no exit hook): no cluster outlives its test run.
 */
function watchdog(root: string, pgCtl: string): void {
  const stop = asClusterOwner([pgCtl, "-D", join(root, "data"), "-m", "immediate", "stop"])
    .map((arg) => `'${arg.replaceAll("'", "'\\''")}'`)
    .join(" ");
  const script = `while kill -0 ${process.pid} 2>/dev/null; do sleep 2; done; if [ -d '${root}' ]; then ${stop} >/dev/null 2>&1; rm -rf '${root}'; fi`;
  const proc = Bun.spawn(["setsid", "sh", "-c", script], { stdin: "ignore", stdout: "ignore", stderr: "ignore" });
  proc.unref();
}

const running = new Set<string>();
let exitHookInstalled = false;

/** A test process that dies without `stop()` still takes its clusters down, so none outlive the run. */
function stopOnExit(dataDir: string, pgCtl: string): void {
  running.add(dataDir);
  if (exitHookInstalled) return;
  exitHookInstalled = true;
  process.on("exit", () => {
    for (const dir of running) {
      Bun.spawnSync(asClusterOwner([pgCtl, "-D", join(dir, "data"), "-m", "immediate", "stop"]), { stdout: "ignore", stderr: "ignore" });
      rmSync(dir, { recursive: true, force: true });
    }
  });
}

/**
 * Starts a throwaway PostgreSQL cluster on a free port of 127.0.0.1 (about 2 s): initdb in a temp
 * folder, durability off (fsync, synchronous_commit) since it is deleted afterwards.
 */
export async function startPostgres(): Promise<TestPostgres> {
  const bin = postgresBinDir();
  const root = mkdtempSync(join(tmpdir(), "weft-pg-"));
  const owner = clusterOwnerIds();
  if (owner) chownSync(root, owner.uid, owner.gid);
  const dataDir = join(root, "data");
  const pgCtl = join(bin, "pg_ctl");
  try {
    run([join(bin, "initdb"), "-D", dataDir, "-A", "trust", "-U", "weft", "-E", "UTF8", "--locale=C", "--no-sync", "--no-instructions"], "initdb");
    let lastError: unknown;
    // A free port can be taken between asking and binding; another one is tried then.
    for (let attempt = 0; attempt < 3; attempt++) {
      const port = await freePort();
      const options = `-p ${port} -k ${root} -c listen_addresses=127.0.0.1 -c fsync=off -c synchronous_commit=off -c full_page_writes=off -c max_connections=200`;
      try {
        run([pgCtl, "-D", dataDir, "-l", join(root, "server.log"), "-o", options, "-w", "-t", "30", "start"], "pg_ctl start");
      } catch (error) {
        lastError = error;
        continue;
      }
      stopOnExit(root, pgCtl);
      watchdog(root, pgCtl);
      const url = `postgres://weft@127.0.0.1:${port}/postgres`;
      return {
        url,
        async stop() {
          running.delete(root);
          const stopped = Bun.spawn(asClusterOwner([pgCtl, "-D", dataDir, "-m", "immediate", "-w", "stop"]), { stdout: "ignore", stderr: "ignore" });
          await stopped.exited;
          rmSync(root, { recursive: true, force: true });
        },
      };
    }
    throw lastError instanceof Error ? lastError : new TestPostgresError("pg_ctl start failed");
  } catch (error) {
    rmSync(root, { recursive: true, force: true });
    throw error;
  }
}

let databaseCounter = 0;

/** Creates a new, empty database on the cluster at `url` and answers its URL (one per test suite, so suites share one cluster). */
export async function createTestDatabase(url: string): Promise<string> {
  const name = `weft_test_${process.pid}_${++databaseCounter}_${Math.random().toString(36).slice(2, 8)}`;
  const admin = new SQL(url, { max: 1 });
  try {
    await admin.unsafe(`CREATE DATABASE ${name}`);
  } finally {
    await admin.close();
  }
  const target = new URL(url);
  target.pathname = `/${name}`;
  return target.toString();
}

import { existsSync, readFileSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterEach, describe, expect, it } from "vitest";
import { z } from "zod";
import { spawnServer, type ChildServer } from "../testing/child-server.ts";
import { tempDir } from "../testing/temp-dirs.ts";
import { until } from "../testing/until.ts";

const STUBBORN = fileURLToPath(new URL("../testing/stubborn-mcp-server.ts", import.meta.url));
const EVERYTHING = fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url));
const StatusSchema = z.object({ status: z.record(z.string(), z.looseObject({ state: z.string(), pid: z.number().int().optional() })) });

/** A process is gone once /proc has no entry for it, or only a zombie's. */
function alive(pid: number): boolean {
  try {
    return !/^\d+ \(.*\) [ZX]/s.test(readFileSync(`/proc/${pid}/stat`, "utf8"));
  } catch {
    return false;
  }
}

/** Live processes whose process group is `group` (the fifth field of /proc/<pid>/stat). */
function groupMembers(group: number): number[] {
  return readdirSync("/proc")
    .filter((name) => /^\d+$/.test(name))
    .map(Number)
    .filter((pid) => {
      try {
        const fields = readFileSync(`/proc/${pid}/stat`, "utf8")
          .replace(/^.*\) /s, "")
          .split(" ");
        return fields[0] !== "Z" && fields[0] !== "X" && Number(fields[2]) === group;
      } catch {
        return false;
      }
    });
}

let weft: ChildServer | undefined;
const left: number[] = [];
const pidFiles: string[] = [];
afterEach(() => {
  weft?.proc.kill("SIGKILL");
  // A failing run must not leave its servers behind for the next tests.
  const latest = pidFiles.splice(0).flatMap((file) => (existsSync(file) ? readFileSync(file, "utf8").split(" ").map(Number) : []));
  for (const pid of [...left.splice(0), ...latest].filter(alive)) process.kill(pid, "SIGKILL");
});

/** Weft as a child process with two stdio servers running: the stubborn one (and its child) and server-everything from npm. */
async function weftWithServers() {
  const dir = tempDir("weft-mcp-orphans-");
  const pidFile = join(dir, "stubborn.pids");
  pidFiles.push(pidFile);
  weft = await spawnServer(join(dir, "data"));
  const put = await weft.call("PUT", "/api/settings/mcp", {
    mcpServers: { stubborn: { command: process.execPath, args: [STUBBORN, pidFile] }, everything: { command: process.execPath, args: [EVERYTHING] } },
  });
  expect(put.status, JSON.stringify(put.body)).toBe(200);
  const status = StatusSchema.parse(put.body).status;
  expect(status).toMatchObject({ stubborn: { state: "ready" }, everything: { state: "ready" } });
  const [server, child] = (await until("the stubborn server's pids", () => (existsSync(pidFile) ? readFileSync(pidFile, "utf8") : undefined))).split(" ").map(Number);
  const pids = { server: server!, child: child!, everything: status.everything!.pid! };
  left.push(...Object.values(pids));
  expect(Object.values(pids).filter(alive)).toEqual(Object.values(pids));
  return { weft, pids, pidFile };
}

/** Waits (generously) for the processes and every member of the groups to end, then says which did not. */
async function survivors(pids: readonly number[], groups: readonly number[]): Promise<number[]> {
  const remaining = () => [...pids.filter(alive), ...groups.flatMap(groupMembers)];
  await until("the servers' processes to end", () => (remaining().length === 0 ? true : undefined), 60_000).catch(() => undefined);
  return remaining();
}

describe("MCP stdio servers end with Weft", () => {
  it("after kill -9 of Weft, no process of any server remains: not one that ignores stdin's end and SIGTERM, not its child", async () => {
    const { weft, pids } = await weftWithServers();
    weft.proc.kill("SIGKILL");
    await weft.proc.exited;
    expect(await survivors(Object.values(pids), [pids.server, pids.everything])).toEqual([]);
  });

  it("a server that dies takes what it started along, and is started again; on SIGTERM of Weft nothing remains", async () => {
    const { weft, pids, pidFile } = await weftWithServers();
    process.kill(pids.server, "SIGKILL");
    expect(await survivors([pids.server, pids.child], [pids.server])).toEqual([]);
    const [server, child] = (
      await until("the restarted server", () => {
        const now = readFileSync(pidFile, "utf8");
        return now.startsWith(`${pids.server} `) ? undefined : now;
      })
    )
      .split(" ")
      .map(Number);
    expect([server!, child!].filter(alive)).toEqual([server, child]);

    weft.proc.kill("SIGTERM");
    await weft.proc.exited;
    expect(await survivors([server!, child!, pids.everything], [server!, pids.everything])).toEqual([]);
  });
});

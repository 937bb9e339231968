/** The real `weft compact` process against the SQLite file of a real (stopped) server. */
import { join, resolve } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { removeDir, startTestServer, templateWorkflow, waitForRun } from "../../../backend/src/testing/test-server.ts";
import { StartedRunSchema } from "../../../backend/src/testing/answers.ts";
import { openStorage, requireSqlite } from "../../../backend/src/testing/storage.ts";
import { MIGRATIONS } from "../../../backend/src/schema.ts";

const ROOT = resolve(import.meta.dirname, "../../../..");
const MAIN = join(ROOT, "apps/cli/src/main.ts");
let dataDir: string;
const runIds: string[] = [];

async function weft(env: Record<string, string>, ...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const proc = Bun.spawn([process.execPath, MAIN, ...args], { cwd: ROOT, stdout: "pipe", stderr: "pipe", env: { ...process.env, ...env } });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

beforeAll(async () => {
  const t = await startTestServer({ demoLlm: false });
  dataDir = t.dataDir;
  await t.call("POST", "/api/workflows", { workflow: templateWorkflow("notes") });
  for (let i = 0; i < 3; i++) {
    const started = StartedRunSchema.parse((await t.call("POST", "/api/workflows/notes/runs", { inputs: { topic: `t${i}` } })).body);
    await waitForRun(t, started.runId);
    runIds.push(started.runId);
  }
  await t.stop();
});
afterAll(() => removeDir(dataDir));

describe("weft compact", () => {
  it("saves the retention settings, applies them on the next call, and prints what it removed", async () => {
    const saved = await weft({ WEFT_DATA_DIR: dataDir }, "compact", "--runs-per-workflow", "2", "--save", "--dry-run", "--json");
    expect(saved.code).toBe(0);
    expect(JSON.parse(saved.stdout) as unknown).toMatchObject({ policy: { runsPerWorkflow: 2 }, engine: "sqlite", dryRun: true, runs: 1 });

    const done = await weft({ WEFT_DATA_DIR: dataDir }, "compact");
    expect(done.code).toBe(0);
    expect(done.stdout).toMatch(/^sqlite: removed 1 run\(s\) with 3 observation\(s\) and \d+ event\(s\)/m);

    const storage = await openStorage({ dataDir, migrations: MIGRATIONS });
    const { db } = requireSqlite(storage.sql, "test");
    const left = (db.query("SELECT id FROM runs ORDER BY created_at").all() as { id: string }[]).map((r) => r.id);
    await storage.close();
    expect(left).toEqual(runIds.slice(1));
  });

  it("refuses a folder without a database, and a bad limit, with exit code 2", async () => {
    const missing = await weft({ WEFT_DATA_DIR: join(dataDir, "nothing-here") }, "compact");
    expect(missing.code).toBe(2);
    expect(missing.stderr).toContain("there is no Weft database at");
    const bad = await weft({ WEFT_DATA_DIR: dataDir }, "compact", "--runs-days", "soon");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain("--runs-days must be a number");
  });
});

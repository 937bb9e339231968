import { describe, expect, it } from "vitest";
import { SQL } from "bun";
import { fileURLToPath } from "node:url";
import { createTestDatabase, startPostgres } from "./postgres-server.ts";

const HELPER = fileURLToPath(new URL("./postgres-server.ts", import.meta.url));

async function reachable(url: string): Promise<boolean> {
  const sql = new SQL(url, { max: 1, connectionTimeout: 2 });
  try {
    await sql`SELECT 1`;
    return true;
  } catch {
    return false;
  } finally {
    await sql.close().catch(() => undefined);
  }
}

describe("test PostgreSQL clusters", () => {
  it("start on a free port, give a fresh database per call, and are gone after stop()", async () => {
    const pg = await startPostgres();
    const [a, b] = [await createTestDatabase(pg.url), await createTestDatabase(pg.url)];
    expect(a).not.toBe(b);
    const sql = new SQL(a, { max: 1 });
    try {
      await sql`CREATE TABLE t (x INT)`;
      const [row] = await sql<{ n: number }[]>`SELECT count(*)::int AS n FROM t`;
      expect(row.n).toBe(0);
    } finally {
      await sql.close();
    }
    await pg.stop();
    expect(await reachable(pg.url)).toBe(false);
  });

  it("do not outlive a test process killed with SIGKILL", async () => {
    const child = Bun.spawn(["bun", "-e", `const { startPostgres } = await import(${JSON.stringify(HELPER)}); console.log((await startPostgres()).url); setInterval(() => {}, 1000);`], {
      stdout: "pipe",
      stderr: "pipe",
    });
    const reader = child.stdout.getReader();
    let text = "";
    while (!/postgres:\/\/\S+\n/.test(text)) {
      const { done, value } = await reader.read();
      if (done) throw new Error(`the child did not start a cluster: ${await new Response(child.stderr).text()}`);
      text += new TextDecoder().decode(value);
    }
    const url = /postgres:\/\/\S+/.exec(text)![0];
    expect(await reachable(url)).toBe(true);
    child.kill(9);
    await child.exited;
    const deadline = Date.now() + 20_000;
    while ((await reachable(url)) && Date.now() < deadline) await Bun.sleep(250);
    expect(await reachable(url)).toBe(false);
  });
});

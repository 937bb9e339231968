import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { SQL } from "bun";
import { z } from "zod";
import { StartedRunSchema } from "../testing/answers.ts";
import { createTestDatabase, startPostgres, type TestPostgres } from "../testing/postgres-server.ts";
import { removeDir, startTestServer, tempDir, waitForRun, type TestServer } from "../testing/test-server.ts";

const SECRET = "cred-Pg-Secret-4Kd8Qz2Wm6Yt0Echoed";
const CredentialList = z.object({ credentials: z.array(z.object({ name: z.string(), kind: z.string(), hosts: z.array(z.string()) })) });

/** A real local API that echoes the Authorization header it gets back in its body. */
const echo = Bun.serve({ port: 0, hostname: "127.0.0.1", fetch: (r) => Response.json({ authorization: r.headers.get("authorization") }) });
const origin = `http://127.0.0.1:${echo.port}`;
let cluster: TestPostgres;
const dirs: string[] = [];
beforeAll(async () => {
  cluster = await startPostgres();
});
afterAll(async () => {
  echo.stop(true);
  await cluster?.stop();
  dirs.splice(0).forEach(removeDir);
});

/** Every row of the tables a secret could land in, as text. */
async function storedText(databaseUrl: string): Promise<string> {
  const sql = new SQL(databaseUrl, { max: 1 });
  try {
    const tables = ["credentials", "runs", "observations", "events"];
    const rows = await Promise.all(tables.map((table) => sql.unsafe(`SELECT * FROM ${table}`)));
    return JSON.stringify(rows);
  } finally {
    await sql.close();
  }
}

describe("credentials on PostgreSQL (WEFT_DATABASE_URL)", () => {
  it("are stored encrypted in PostgreSQL, used by http:request after a restart, and redacted everywhere", async () => {
    const databaseUrl = await createTestDatabase(cluster.url);
    // The master key lives in the data folder: the restarted server uses the same one.
    const dataDir = tempDir("weft-credentials-pg-");
    dirs.push(dataDir);
    let t: TestServer | undefined = await startTestServer({ dataDir, databaseUrl, demoLlm: false });
    try {
      expect((await t.call("POST", "/api/credentials", { name: "echo-api", kind: "bearer", secret: SECRET, hosts: [origin] })).status).toBe(201);
      await t.call("PUT", "/api/settings/permissions", { defaultAction: "allow", rules: [{ action: "allow", tool: "http.request", target: `${origin}/**` }] });
      await t.call("POST", "/api/workflows", {
        workflow: { id: "call-echo", name: "Call echo", nodes: [{ id: "req", type: "http:request", inputs: { url: `${origin}/me`, credential: "echo-api" } }], edges: [] },
      });
      await t.stop();
      t = undefined;

      t = await startTestServer({ dataDir, databaseUrl, demoLlm: false });
      expect(CredentialList.parse((await t.call("GET", "/api/credentials")).body).credentials).toEqual([{ name: "echo-api", kind: "bearer", hosts: [origin] }]);
      const started = await t.call("POST", "/api/workflows/call-echo/runs", {});
      const answer = await waitForRun(t, StartedRunSchema.parse(started.body).runId);
      expect(answer.run.status).toBe("completed");
      // The server sent the secret (the echo proves it) and the run keeps it only redacted.
      expect(answer.observations.find((o) => o.nodeId === "req")?.outputs.body).toEqual({ authorization: "Bearer [redacted:credential echo-api]" });
      const stored = await storedText(databaseUrl);
      expect(stored).toContain("echo-api");
      expect(stored).not.toContain(SECRET);
    } finally {
      await t?.stop();
    }
  });
});

import { afterAll, describe, expect, it } from "vitest";
import { existsSync, mkdirSync, readFileSync, writeFileSync } from "node:fs";
import { join, relative, resolve } from "node:path";
import type { Logger } from "@weft/types";
import { configFromEnv } from "../config.ts";
import { StartedRunSchema } from "../testing/answers.ts";
import { startTestServer, tempDir, waitForRun, type TestServer } from "../testing/test-server.ts";

const servers: TestServer[] = [];
afterAll(async () => {
  for (const s of servers) await s.stop();
});

function warnings(lines: string[]): Logger {
  const logger: Logger = { debug: () => {}, info: () => {}, warn: (m, f) => void lines.push(`${m} ${JSON.stringify(f ?? {})}`), error: () => {}, child: () => logger };
  return logger;
}

describe("the @project/ folder", () => {
  it("is beside the data folder by default, not inside it, and the file tools write there", async () => {
    const t = await startTestServer();
    servers.push(t);
    expect(relative(t.dataDir, t.server.projectDir).startsWith("..")).toBe(true);
    await t.call("POST", "/api/workflows", { workflow: { id: "w", name: "W", nodes: [{ id: "w", type: "fs:write", inputs: { path: "@project/out.txt", content: "woven" } }], edges: [] } });
    const run = await t.call("POST", "/api/workflows/w/runs", {});
    expect((await waitForRun(t, StartedRunSchema.parse(run.body).runId)).run.status).toBe("completed");
    expect(readFileSync(join(t.server.projectDir, "out.txt"), "utf8")).toBe("woven");
    expect(existsSync(join(t.dataDir, "project"))).toBe(false);
  });

  it("points at files left in the data folder's old project/ with a warning", async () => {
    const dataDir = tempDir();
    mkdirSync(join(dataDir, "project"));
    writeFileSync(join(dataDir, "project", "old.txt"), "still here");
    const lines: string[] = [];
    const t = await startTestServer({ dataDir, logger: warnings(lines) });
    servers.push(t);
    const warning = lines.find((l) => l.includes("@project/"));
    expect(warning).toContain(join(dataDir, "project"));
    expect(warning).toContain("WEFT_PROJECT_DIR");
    expect(readFileSync(join(dataDir, "project", "old.txt"), "utf8")).toBe("still here");
  });

  it("is project/ in the working folder for `bun start`, beside data/", () => {
    const config = configFromEnv({});
    expect(config.projectDir).toBe(resolve("project"));
    expect(relative(config.dataDir, config.projectDir).startsWith("..")).toBe(true);
    expect(configFromEnv({ WEFT_PROJECT_DIR: "/srv/files" }).projectDir).toBe("/srv/files");
  });
});

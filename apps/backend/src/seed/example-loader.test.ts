import { afterEach, describe, expect, it } from "vitest";
import { fileURLToPath } from "node:url";
import { silentLogger } from "@weft/types";
import { summariesOfWholeDocuments } from "../testing/storage-contract/harness.ts";
import { openSqliteStorage } from "../testing/storage.ts";
import { removeDir, tempDir } from "../testing/test-server.ts";
import { loadExamplesOnce } from "./example-loader.ts";

const dirs: string[] = [];
afterEach(() => dirs.splice(0).forEach(removeDir));

describe("the examples loaded at start", () => {
  it("are listed with summaries that match their whole documents", async () => {
    const dir = tempDir();
    dirs.push(dir);
    const storage = await openSqliteStorage(dir);
    const report = await loadExamplesOnce(storage, fileURLToPath(new URL("../../../../workflows", import.meta.url)), silentLogger);
    expect(report?.loaded.workflows).toBeGreaterThan(3);
    const summaries = (await storage.workflows.summaries()).items;
    expect(summaries).toHaveLength(report!.loaded.workflows);
    expect(summaries.some((s) => s.isSkill)).toBe(true);
    expect(summaries).toEqual(await summariesOfWholeDocuments(storage.workflows));
    await storage.close();
  });
});

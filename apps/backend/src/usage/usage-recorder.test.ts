import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { openSqliteStorage, type Storage } from "../testing/storage.ts";
import { tempDir } from "../testing/temp-dirs.ts";
import { silentLogger } from "@weft/types";
import { UsageRecorder } from "./usage-recorder.ts";
import { UsageRepository } from "./usage-repository.ts";

let storage: Storage;
let usage: UsageRepository;
beforeAll(async () => {
  storage = await openSqliteStorage(tempDir());
  usage = new UsageRepository(storage);
});
afterAll(() => storage.close());

describe("UsageRecorder", () => {
  it("names the user an agent's loop acts for, though the deliberation run's record is not stored yet", async () => {
    const recorder = new UsageRecorder(usage, storage.runs, silentLogger);
    await recorder.record({
      caller: { runId: "not-stored-yet", agentId: "a1", conversationId: "c1", userId: "alice" },
      profileId: "p1",
      model: "m1",
      usage: { promptTokens: 10, completionTokens: 5, totalTokens: 15 },
      at: Date.now(),
    });
    const rows = await usage.report({ conversationId: "c1", groupBy: ["user"] });
    expect(rows).toEqual([expect.objectContaining({ user: "alice", totalTokens: 15 })]);
  });
});

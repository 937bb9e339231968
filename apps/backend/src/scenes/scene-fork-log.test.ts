import { describe, expect, it } from "vitest";
import type { SceneLogEntry } from "@weft/types";
import { storageEngines } from "../testing/engine-harnesses.ts";
import { storageOpener } from "../testing/storage-contract/harness.ts";
import { ServiceError } from "../service-error.ts";
import { SceneStore } from "./scene-store.ts";
import { readLogUpToFork } from "./scene-fork.ts";

/** Deliberation t1 of ann: step s's model output, then a status entry, for steps 1..n. */
function session(n: number): SceneLogEntry[] {
  return Array.from({ length: n }, (_, i): SceneLogEntry[] => [
    { seq: 2 * i, ts: i, kind: "llm.output", instanceId: "ann", triggerId: "t1", step: i + 1, text: `step ${i + 1}` },
    { seq: 2 * i + 1, ts: i, kind: "status", status: "running" },
  ]).flat();
}
const point = (step: number) => ({ instanceId: "ann", triggerId: "t1", step });
const edit = { kind: "llmOutput", text: "EDITED" } as const;

for (const harness of storageEngines()) {
  describe(`reading a session log for a fork (${harness.engine})`, () => {
    const { fresh } = storageOpener(harness);

    it("gives the log up to the forked step's entry, page by page, and stops reading there", async () => {
      const store = new SceneStore(await fresh());
      await store.appendLog("s1", session(1_500));
      const log = await readLogUpToFork(store, "s1", point(700), edit);
      expect(log).toHaveLength(1_399);
      expect(log.at(-1)).toMatchObject({ kind: "llm.output", step: 700 });
      // A step the log does not hold: the whole log, so the fork can say how many steps it recorded.
      expect(await readLogUpToFork(store, "s1", point(2_000), edit)).toHaveLength(3_000);
    });

    it("refuses a fork point beyond the entry limit, naming the limit", async () => {
      const store = new SceneStore(await fresh());
      await store.appendLog("s1", session(20));
      expect(await readLogUpToFork(store, "s1", point(5), edit, 10)).toHaveLength(9);
      const refused = await readLogUpToFork(store, "s1", point(6), edit, 10).catch((error: unknown) => error);
      expect(refused).toBeInstanceOf(ServiceError);
      expect(refused).toMatchObject({ code: "VALIDATION_FAILED" });
      expect((refused as ServiceError).message).toContain("lies beyond the first 10 entries");
    });
  });
}

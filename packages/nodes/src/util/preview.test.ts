import { describe, expect, it } from "vitest";
import { expectFailure, recordingLogger, runNode } from "../testing/harness.ts";
import { previewNode } from "./preview.ts";

describe("core:preview", () => {
  it("passes the value through and logs it once at debug level", async () => {
    const log = recordingLogger();
    const value = { list: [1, 2], text: "x" };
    expect(await runNode(previewNode, { value }, { label: "after parse" }, { log, nodeId: "p1" })).toEqual({ value });
    expect(log.entries).toEqual([{ level: "debug", scope: "test", message: "preview", fields: { nodeId: "p1", label: "after parse", value: '{"list":[1,2],"text":"x"}' } }]);
  });
  it("shortens long values in the log, never in the output", async () => {
    const log = recordingLogger();
    const long = "y".repeat(2000);
    expect(await runNode(previewNode, { value: long }, {}, { log })).toEqual({ value: long });
    expect(log.entries[0].fields?.value).toBe(`${"y".repeat(500)}… (2000 chars)`);
  });
  it("is not idempotent (its point is the side effect) and needs a value", async () => {
    expect(previewNode.spec.flags.idempotent).toBe(false);
    await expectFailure(runNode(previewNode, {}), "INVALID_INPUT");
  });
});

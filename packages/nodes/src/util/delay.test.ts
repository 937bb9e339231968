import { describe, expect, it } from "vitest";
import { NodeFailure } from "@weft/types";
import { expectFailure, runNode } from "../testing/harness.ts";
import { delay } from "./delay.ts";

describe("core:delay", () => {
  it("waits, then passes the value on", async () => {
    const started = performance.now();
    const out = await runNode(delay, { value: { a: 1 }, ms: 30 });
    expect(out).toEqual({ value: { a: 1 } });
    expect(performance.now() - started).toBeGreaterThanOrEqual(25);
  });

  it("rejects with CANCELLED as soon as the signal aborts, not when the wait would end", async () => {
    const controller = new AbortController();
    const run = runNode(delay, { ms: 60_000 }, {}, { signal: controller.signal });
    const settled = run.then(
      () => "resolved",
      (e: unknown) => e,
    );
    controller.abort(new Error("run cancelled by user"));
    const error = await settled;
    expect(error).toBeInstanceOf(NodeFailure);
    expect((error as NodeFailure).code).toBe("CANCELLED");
    expect((error as NodeFailure).message).toBe("Delay of 60000 ms was cancelled: run cancelled by user");
  });

  it("does not start when the signal is already aborted", async () => {
    const controller = new AbortController();
    controller.abort();
    await expectFailure(runNode(delay, { ms: 60_000 }, {}, { signal: controller.signal }), "CANCELLED");
  });

  it("is not idempotent and refuses negative or huge waits", async () => {
    expect(delay.spec.flags.idempotent).toBe(false);
    await expectFailure(runNode(delay, { ms: -1 }), "INVALID_INPUT");
    await expectFailure(runNode(delay, { ms: 3_600_001 }), "INVALID_INPUT");
  });
});

import { describe, expect, it } from "vitest";
import type { SceneLogEntry } from "@weft/types";
import { forkPointOf } from "./scene-fork.ts";

const output = (seq: number, instanceId: string, triggerId: string, step: number): SceneLogEntry => ({ seq, ts: seq, kind: "llm.output", instanceId, triggerId, step, text: `${instanceId} ${step}` });

describe("forkPointOf", () => {
  const entries: SceneLogEntry[] = [
    output(0, "ann", "t1", 1),
    output(1, "bob", "t2", 1),
    output(2, "ann", "t1", 2),
    { seq: 3, ts: 3, kind: "deliberation.finished", instanceId: "ann", triggerId: "t1", ok: true },
    output(4, "ann", "t3", 1),
  ];

  it("numbers an agent's steps within each deliberation, skipping other agents'", () => {
    expect(forkPointOf("ann", 0, entries)).toEqual({ triggerId: "t1", step: 1 });
    expect(forkPointOf("ann", 1, entries)).toEqual({ triggerId: "t1", step: 2 });
    expect(forkPointOf("ann", 2, entries)).toEqual({ triggerId: "t3", step: 1 });
    expect(forkPointOf("bob", 0, entries)).toEqual({ triggerId: "t2", step: 1 });
  });

  it("is null for a step the log does not hold", () => {
    expect(forkPointOf("ann", 3, entries)).toBeNull();
    expect(forkPointOf("cy", 0, entries)).toBeNull();
  });
});

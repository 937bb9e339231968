import { describe, expect, it } from "vitest";
import type { AgentTrigger, SceneLogEntry } from "@weft/types";
import { recordedUserMessages } from "./scene-replay.ts";

let seq = 0;
const queued = (instanceId: string, trigger: AgentTrigger): SceneLogEntry => ({ seq: seq++, ts: 1, kind: "trigger.queued", instanceId, trigger });
const user = (id: string, to: string, text: string, at: number, resumed?: boolean): AgentTrigger => ({ id, at, coalesced: 0, kind: "user", to, text, ...(resumed ? { resumed } : {}) });

describe("recordedUserMessages", () => {
  it("sends a message to all agents once, keeps repeated messages, and skips triggers delivered again after a restore", () => {
    const log: SceneLogEntry[] = [
      queued("ann", user("t1", "all", "start", 5)),
      queued("bob", user("t2", "all", "start", 5)),
      queued("bob", { id: "t3", at: 6, coalesced: 0, kind: "event", topic: "game.ping", payload: null, source: "ann", eventSeq: 0 }),
      queued("ann", user("t4", "ann", "again", 7)),
      queued("ann", user("t4", "ann", "again", 7, true)),
      queued("ann", user("t5", "all", "start", 8)),
      queued("bob", user("t6", "all", "start", 8)),
      queued("ann", user("t7", "all", "start", 8)),
    ];
    expect(recordedUserMessages(log)).toEqual([
      { to: "all", text: "start" },
      { to: "ann", text: "again" },
      { to: "all", text: "start" },
      { to: "all", text: "start" },
    ]);
  });
});

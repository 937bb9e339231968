import { describe, expect, it } from "vitest";
import type { SceneReplayResult } from "@weft/types";
import { differencePlace, replayFraction, replayProgressText, replayWarnings } from "./scene-replay.ts";

describe("replay progress and result in words", () => {
  it("measures progress by outputs served, by messages when there are no outputs", () => {
    expect(replayFraction(null)).toBe(0);
    expect(replayFraction({ messagesDone: 0, messages: 2, outputsUsed: 3, outputs: 4 })).toBe(0.75);
    expect(replayFraction({ messagesDone: 1, messages: 2, outputsUsed: 0, outputs: 0 })).toBe(0.5);
    expect(replayProgressText({ messagesDone: 0, messages: 2, outputsUsed: 3, outputs: 8 })).toBe("Replaying message 1 of 2 · model output 3 of 8");
    expect(replayProgressText({ messagesDone: 2, messages: 2, outputsUsed: 8, outputs: 8 })).toBe("Replaying message 2 of 2 · model output 8 of 8");
  });

  it("names world and private places, and lists divergences and unused outputs", () => {
    expect(differencePlace({ path: "board.note" })).toBe("board.note");
    expect(differencePlace({ instanceId: "ann", path: "" })).toBe("ann (private) · (the whole state)");
    const result = { divergences: ['Agent "ann" asked for output #3'], unused: { bob: 1, cid: 2 } } as unknown as SceneReplayResult;
    expect(replayWarnings(result)).toEqual(['Agent "ann" asked for output #3', "bob left 1 recorded model output unused.", "cid left 2 recorded model outputs unused."]);
  });
});

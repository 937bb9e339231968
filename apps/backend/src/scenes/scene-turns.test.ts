import { describe, expect, it } from "vitest";
import type { LlmChatResult, LlmService } from "@weft/types";
import { SceneTurns, turnTakingLlm } from "./scene-turns.ts";

describe("scene turns", () => {
  it("hands out one turn per event-loop iteration, oldest first, with other work run between them", async () => {
    const turns = new SceneTurns();
    const seen: string[] = [];
    const asked = ["a", "b", "c"].map((name) => turns.turn().then(() => seen.push(name)));
    // Queued after the first turn's iteration was: it runs before the second turn (as a request read meanwhile would).
    setImmediate(() => seen.push("other work"));
    expect(turns.queued).toBe(3);
    await Promise.all(asked);
    expect(seen).toEqual(["a", "other work", "b", "c"]);
    expect(turns.queued).toBe(0);
    expect(turns.handedOut).toBe(3);
  });

  it("lets a model reply be processed only in its turn, and passes the reply and a failure through", async () => {
    const turns = new SceneTurns();
    const reply = { text: "hello" } as LlmChatResult;
    let fail = false;
    const llm: LlmService = { chat: async () => (fail ? Promise.reject(new Error("refused")) : reply) };
    const taking = turnTakingLlm(llm, turns);
    expect(await taking.chat({ messages: [] } as never)).toBe(reply);
    expect(turns.handedOut).toBe(1);
    fail = true;
    await expect(taking.chat({ messages: [] } as never)).rejects.toThrow("refused");
    expect(turns.handedOut).toBe(1);
  });
});

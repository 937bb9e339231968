import { describe, expect, it } from "vitest";
import type { ConversationMessage } from "@weft/types";
import { historyWindow } from "./history-window.ts";

let n = 0;
const at = () => new Date(1_700_000_000_000 + n * 1000).toISOString();
const user = (content: string): ConversationMessage => ({ id: `m${++n}`, createdAt: at(), role: "user", content });
const reply = (content: string): ConversationMessage => ({ id: `m${++n}`, createdAt: at(), role: "assistant", content });
const call = (id: string, name: string): ConversationMessage => ({
  id: `m${++n}`,
  createdAt: at(),
  role: "assistant",
  content: null,
  tool_calls: [{ id, type: "function", function: { name, arguments: "{}" } }],
});
const result = (id: string, name: string, content: unknown): ConversationMessage => ({
  id: `m${++n}`,
  createdAt: at(),
  role: "tool",
  tool_call_id: id,
  toolName: name,
  content: JSON.stringify(content),
});

function turn(i: number): ConversationMessage[] {
  return [user(`question ${i}`), call(`c${i}`, "builder_change_stage"), result(`c${i}`, "builder.change.stage", { ok: true, changeSetId: `cs_${i}` }), reply(`answer ${i}`)];
}

describe("history window", () => {
  it("keeps everything verbatim while there are at most six turns", () => {
    const log = [1, 2, 3, 4, 5, 6].flatMap(turn);
    const window = historyWindow(log);
    expect(window).toEqual({ recent: log, olderTurns: 0 });
  });

  it("sends the latest six turns verbatim and one local summary of the older ones, never splitting a tool call from its result", () => {
    const log = [1, 2, 3, 4, 5, 6, 7, 8, 9].flatMap(turn);
    const window = historyWindow(log);
    expect(window.olderTurns).toBe(3);
    expect(window.recent).toEqual(log.slice(12));
    expect(window.recent[0]).toMatchObject({ role: "user", content: "question 4" });
    expect(window.summary).toBe(
      [
        "Summary of 3 earlier turns of this session:",
        '- user "question 1"; tools: builder.change.stage ok cs_1; builder "answer 1"',
        '- user "question 2"; tools: builder.change.stage ok cs_2; builder "answer 2"',
        '- user "question 3"; tools: builder.change.stage ok cs_3; builder "answer 3"',
      ].join("\n"),
    );
  });

  it("summarises failed tools by their code and shortens long messages", () => {
    const long = "x".repeat(500);
    const log = [
      user(long),
      call("a", "builder_change_apply"),
      result("a", "builder.change.apply", { ok: false, error: { code: "AI_TOOL_FORBIDDEN" } }),
      reply("no"),
      ...[2, 3, 4, 5, 6, 7].flatMap(turn),
    ];
    const summary = historyWindow(log).summary!;
    expect(summary).toContain("tools: builder.change.apply failed AI_TOOL_FORBIDDEN");
    expect(summary).toContain(`"${"x".repeat(160)}…"`);
    expect(summary).not.toContain("x".repeat(161));
  });
});

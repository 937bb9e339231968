import { describe, expect, it } from "vitest";
import type { RunEvent, RunEventDraft } from "@weft/types";
import { createProgressReporter } from "./progress-reporter.ts";

function feed(drafts: RunEventDraft[]): string {
  let out = "";
  const report = createProgressReporter((text) => {
    out += text;
  });
  drafts.forEach((draft, seq) => report({ ...draft, streamId: "r", seq, ts: 0 } as RunEvent));
  return out;
}

describe("createProgressReporter", () => {
  it("shows streamed chunks inline, one line per node, cut short, then the chunk count", () => {
    const long = "word ".repeat(60);
    const out = feed([
      { type: "node.started", nodeId: "llm", invocationId: "i1", nodeType: "llm:chat", inputs: {}, attempt: 1 },
      { type: "node.chunk", nodeId: "llm", invocationId: "i1", index: 0, chunk: "Hello" },
      { type: "node.chunk", nodeId: "llm", invocationId: "i1", index: 1, chunk: " world\n" },
      { type: "node.chunk", nodeId: "llm", invocationId: "i1", index: 2, chunk: long },
      { type: "node.chunk", nodeId: "llm", invocationId: "i1", index: 3, chunk: "never shown" },
      { type: "node.completed", nodeId: "llm", invocationId: "i1", outputs: {}, durationMs: 1500, cached: false },
    ]);
    const lines = out.split("\n");
    expect(lines[0]).toBe("  … llm (llm:chat)");
    expect(lines[1].startsWith("  ⋯ llm: Hello world word word")).toBe(true);
    expect(lines[1].endsWith("…")).toBe(true);
    expect(lines[1].length).toBeLessThan(200);
    expect(out).not.toContain("never shown");
    expect(lines[2]).toBe("  ✓ llm 1.50s · 4 chunks");
  });

  it("starts a new line when another node streams or reports in between", () => {
    const out = feed([
      { type: "node.chunk", nodeId: "a", invocationId: "ia", index: 0, chunk: "A1" },
      { type: "node.chunk", nodeId: "b", invocationId: "ib", index: 0, chunk: { part: 1 } },
      { type: "node.skipped", nodeId: "c", reason: 'input "x" comes from "z", which failed', causeNodeId: "z" },
      { type: "node.chunk", nodeId: "a", invocationId: "ia", index: 1, chunk: "A2" },
    ]);
    expect(out.split("\n")).toEqual(["  ⋯ a: A1", '  ⋯ b: {"part":1} ', '  – c skipped: input "x" comes from "z", which failed', "  ⋯ a: A2"]);
  });

  it("reports cached, failed, retrying and the run's end with timing", () => {
    const out = feed([
      { type: "run.started", runId: "r", workflowId: "wf", nodeCount: 3, inputs: {} },
      { type: "node.completed", nodeId: "a", invocationId: "ia", outputs: {}, durationMs: 0, cached: true },
      { type: "node.retrying", nodeId: "b", invocationId: "ib", attempt: 2, delayMs: 200, error: { code: "FLAKY", message: "try again" } },
      { type: "node.failed", nodeId: "b", invocationId: "ib", error: { code: "TIMEOUT", message: "too slow" }, durationMs: 0.25 },
      { type: "run.failed", runId: "r", error: { code: "TIMEOUT", message: 'node "b" failed: too slow' }, outputs: {}, durationMs: 12.4 },
    ]);
    expect(out.split("\n").slice(0, 5)).toEqual([
      "▶ wf (3 nodes)",
      "  ○ a cached",
      "  ↻ b [FLAKY] try again; retrying in 200ms",
      "  ✗ b [TIMEOUT] too slow (0.25ms)",
      '✗ failed after 12ms: [TIMEOUT] node "b" failed: too slow',
    ]);
  });

  it("names the type of a node that completed within its call (it had no start line)", () => {
    const out = feed([{ type: "node.completed", nodeId: "tidy", invocationId: "it", outputs: {}, durationMs: 0.5, cached: false, nodeType: "text:template", inputs: { text: "x" } }]);
    expect(out).toBe("  ✓ tidy (text:template) 0.50ms\n");
  });

  it("names a failed run's node by title, its id after it, and keeps the message's caret lines under each other", () => {
    let out = "";
    const report = createProgressReporter(
      (text) => (out += text),
      (id) => (id === "json_parse_1" ? "Parse JSON" : undefined),
    );
    const message = 'node "json_parse_1" failed: Invalid JSON at line 1, column 3: unexpected text (found "x").\n  {"x}\n    ^';
    report({ type: "run.failed", error: { code: "INVALID_JSON", message }, durationMs: 5, streamId: "r", seq: 0, ts: 0 } as RunEvent);
    const lines = out.split("\n");
    expect(lines[0]).toBe('✗ failed after 5ms: [INVALID_JSON] "Parse JSON" (json_parse_1) failed: Invalid JSON at line 1, column 3: unexpected text (found "x").');
    expect(lines[2]!.indexOf("^")).toBe(lines[1]!.indexOf("x"));
  });
});

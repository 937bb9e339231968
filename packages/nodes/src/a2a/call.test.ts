import { describe, expect, it } from "vitest";
import { expectFailure, runNodeFull } from "../testing/harness.ts";
import { a2aCallNode } from "./call.ts";

// End to end (two Weft servers, the official A2A SDK on both sides, the private-address rule): apps/backend/src/a2a/a2a-call.test.ts.
describe("a2a:call", () => {
  it("fails with MISSING_SERVICE outside a runtime with a tool host", async () => {
    const failure = await expectFailure(runNodeFull(a2aCallNode, { cardUrl: "https://agents.example.com/.well-known/agent-card.json", message: "hi" }), "MISSING_SERVICE");
    expect(failure.message).toContain("a2a:call needs the tool host");
  });

  it("sends its inputs to the a2a.call tool and gives the answer, task id, state and context id", async () => {
    const calls: unknown[] = [];
    const run = await runNodeFull(
      a2aCallNode,
      { cardUrl: "https://agents.example.com/.well-known/agent-card.json", message: "hi", credential: "remote" },
      {
        services: {
          toolHost: {
            call: async (tool, args) => {
              calls.push({ tool, args });
              return { ok: true, text: "hello", taskId: "t1", contextId: "c1", state: "completed", agent: "Remote", durationMs: 1 };
            },
          },
        },
      },
    );
    expect(calls).toEqual([{ tool: "a2a.call", args: { cardUrl: "https://agents.example.com/.well-known/agent-card.json", message: "hi", credential: "remote" } }]);
    expect(run.outputs).toMatchObject({ ok: true, text: "hello", taskId: "t1", state: "completed", contextId: "c1" });
  });

  it("gives a refused call as its result, not a node failure", async () => {
    const run = await runNodeFull(
      a2aCallNode,
      { cardUrl: "http://127.0.0.1:1/.well-known/agent-card.json", message: "hi" },
      { services: { toolHost: { call: async () => ({ ok: false, error: { code: "E_PRIVATE_ADDRESS", message: "loopback" } }) } } },
    );
    expect(run.outputs).toMatchObject({ ok: false, result: { error: { code: "E_PRIVATE_ADDRESS" } } });
  });
});

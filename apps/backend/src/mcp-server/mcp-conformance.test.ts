import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import type { WorkflowInput } from "@weft/types";
import { chainWorkflow, startTestServer, templateWorkflow, type TestServer } from "../testing/test-server.ts";

/** The official suite (a dev dependency), run under Bun: it needs Node ≥ 22, which CI may not have. */
const SUITE = Bun.resolveSync("@modelcontextprotocol/conformance/dist/index.js", fileURLToPath(new URL(".", import.meta.url)));

/** A skill with no inputs and one text output, named as a scenario calls its tool. */
function textSkill(id: string, value: string): WorkflowInput {
  return {
    id,
    name: id,
    nodes: [
      { id: "text", type: "core:const-text", config: { value } },
      { id: "out", type: "core:workflow-output", config: { name: "text", portType: "string" } },
    ],
    edges: [{ id: "e1", source: "text", sourceHandle: "value", target: "out", targetHandle: "value" }],
  };
}

/** The tools the scenarios call, as skills: a text answer, a failing run (an `isError` result), and a run of several nodes (a progress notification each). */
const SCENARIO_SKILLS: WorkflowInput[] = [
  textSkill("test_simple_text", "This is a simple text response for testing."),
  {
    id: "test_error_handling",
    name: "test_error_handling",
    nodes: [
      { id: "bad", type: "core:json-parse", inputs: { text: "{not json" } },
      { id: "out", type: "core:workflow-output", config: { name: "value", portType: "any" } },
    ],
    edges: [{ id: "e1", source: "bad", sourceHandle: "value", target: "out", targetHandle: "value" }],
  },
  (() => {
    const chain = chainWorkflow("test_tool_with_progress", 3);
    chain.nodes.push({ id: "out", type: "core:workflow-output", config: { name: "text", portType: "string" } });
    chain.edges = [...(chain.edges ?? []), { id: "e-out", source: "n2", sourceHandle: "text", target: "out", targetHandle: "value" }];
    return chain;
  })(),
];

/**
 * Every server scenario of the installed suite (0.1.16, `conformance list`) that a workflow tool
 * server answers. The others, and why not:
 * - logging-set-level, tools-call-with-logging, completion-complete: Weft does not advertise logging or completions.
 * - tools-call-image/-audio/-embedded-resource/-mixed-content: a skill's outputs are JSON values; no skill returns media yet.
 * - tools-call-sampling, tools-call-elicitation, elicitation-sep1034-defaults, elicitation-sep1330-enums: a skill run does not ask the caller yet.
 * - resources-*, prompts-*: Weft advertises tools only.
 * - json-schema-2020-12: calls a fixed test tool whose schema a skill's interface cannot express.
 * - server-sse-polling, server-sse-multiple-streams: need a session id; /mcp is stateless (each POST stands alone).
 */
const SCENARIOS = ["server-initialize", "ping", "tools-list", "tools-call-simple-text", "tools-call-error", "tools-call-with-progress", "dns-rebinding-protection"];

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  for (const workflow of [templateWorkflow("notes"), ...SCENARIO_SKILLS]) expect((await t.call("POST", "/api/workflows", { workflow })).status).toBe(201);
});
afterAll(() => t.stop());

/** Runs one scenario against /mcp; the token goes in the URL, the suite sends no headers of ours. Async: the server shares this process. */
async function scenario(name: string): Promise<{ exitCode: number; output: string }> {
  const url = `${t.url}/mcp?token=${encodeURIComponent(t.server.accessToken)}`;
  const proc = Bun.spawn(["bun", SUITE, "server", "--url", url, "--scenario", name], { stdout: "pipe", stderr: "pipe" });
  const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { exitCode, output: stdout + stderr };
}

describe("the MCP conformance suite's scenarios for a tools server", () => {
  for (const name of SCENARIOS) {
    it(name, { timeout: 60_000 }, async () => {
      const { exitCode, output } = await scenario(name);
      expect(output).toMatch(/Passed: (\d+)\/\1, 0 failed, 0 warnings/);
      expect(exitCode, output).toBe(0);
    });
  }
});

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

/** A skill with no inputs whose outputs are the given media values (`image` or `file` ports), plus a text when `text` is given. */
function mediaSkill(id: string, media: { name: string; portType: "image" | "file"; value: { mimeType: string; data: string } }[], text?: string): WorkflowInput {
  const workflow: WorkflowInput = { id, name: id, nodes: [], edges: [] };
  media.forEach((m, i) => {
    workflow.nodes.push({ id: `v${i}`, type: "core:const-json", config: { value: m.value } }, { id: `o${i}`, type: "core:workflow-output", config: { name: m.name, portType: m.portType } });
    workflow.edges?.push({ id: `e${i}`, source: `v${i}`, sourceHandle: "value", target: `o${i}`, targetHandle: "value" });
  });
  if (text !== undefined) {
    workflow.nodes.push({ id: "t", type: "core:const-text", config: { value: text } }, { id: "ot", type: "core:workflow-output", config: { name: "text", portType: "string" } });
    workflow.edges?.push({ id: "et", source: "t", sourceHandle: "value", target: "ot", targetHandle: "value" });
  }
  return workflow;
}

/** A 1×1 red PNG, and a few bytes standing for a WAV file and a text file. */
const PNG = { mimeType: "image/png", data: "iVBORw0KGgoAAAANSUhEUgAAAAEAAAABCAYAAAAfFcSJAAAADUlEQVR42mP8z8DwHwAFBQIAX8jx0gAAAABJRU5ErkJggg==" };
const WAV = { mimeType: "audio/wav", data: Buffer.from("RIFF\0\0\0\0WAVEfmt ").toString("base64") };
const TEXT_FILE = { mimeType: "text/plain", data: Buffer.from("This is an embedded resource content.").toString("base64") };

/** The tools the scenarios call, as skills: a text answer, a failing run (an `isError` result), a run of several nodes (a progress notification each), an LLM node answered by the client's model, and media outputs. */
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
  {
    // Its LLM node requires the caller's model: the scenario's client answers sampling/createMessage.
    id: "test_sampling",
    name: "test_sampling",
    nodes: [
      { id: "prompt", type: "core:workflow-input", config: { name: "prompt", portType: "string" } },
      { id: "ask", type: "llm:chat", config: { callerModel: "required" } },
      { id: "out", type: "core:workflow-output", config: { name: "text", portType: "string" } },
    ],
    edges: [
      { id: "e1", source: "prompt", sourceHandle: "value", target: "ask", targetHandle: "prompt" },
      { id: "e2", source: "ask", sourceHandle: "text", target: "out", targetHandle: "value" },
    ],
  },
  mediaSkill("test_image_content", [{ name: "image", portType: "image", value: PNG }]),
  mediaSkill("test_audio_content", [{ name: "audio", portType: "file", value: WAV }]),
  mediaSkill("test_embedded_resource", [{ name: "resource", portType: "file", value: TEXT_FILE }]),
  mediaSkill(
    "test_multiple_content_types",
    [
      { name: "image", portType: "image", value: PNG },
      { name: "resource", portType: "file", value: TEXT_FILE },
    ],
    "Multiple content types test:",
  ),
];

/** The prompts the scenarios get, as agents (a prompt is an agent's persona; its placeholders are the arguments). */
const SCENARIO_AGENTS = [
  { id: "test_simple_prompt", name: "test_simple_prompt", persona: "This is a simple prompt for testing.", deliberationWorkflowId: "notes" },
  { id: "test_prompt_with_arguments", name: "test_prompt_with_arguments", persona: "Prompt with arguments: arg1='{{arg1}}', arg2='{{arg2}}'", deliberationWorkflowId: "notes" },
];

/**
 * Every server scenario of the installed suite (0.1.16, `conformance list`: 32) that a workflow
 * server answers: 17. The others, and why not:
 * - logging-set-level, tools-call-with-logging, completion-complete: Weft advertises neither logging nor completions.
 * - resources-read-text, resources-read-binary, resources-templates-read, resources-subscribe, resources-unsubscribe:
 *   read or subscribe to fixed `test://…` URIs; Weft's resources are its workflows and runs (`weft://…`), whose
 *   reading and subscriptions mcp-resources.test.ts checks.
 * - prompts-get-embedded-resource, prompts-get-with-image: a prompt is an agent's persona, which is text.
 * - tools-call-elicitation, elicitation-sep1034-defaults, elicitation-sep1330-enums: ask fixed forms (defaults, enums
 *   of every kind); a skill asks only its approvals' form (approve/reject + comment), checked by mcp-elicitation.test.ts.
 * - json-schema-2020-12: calls a fixed test tool whose schema a skill's interface cannot express.
 * - server-sse-polling: calls a fixed tool that closes its stream mid-call to be resumed by Last-Event-ID; Weft
 *   keeps no event store (a client whose stream broke reads the run: `weft://runs/<id>` or GET /api/runs/:id).
 */
const SCENARIOS = [
  "server-initialize",
  "ping",
  "tools-list",
  "tools-call-simple-text",
  "tools-call-error",
  "tools-call-with-progress",
  "tools-call-sampling",
  "tools-call-image",
  "tools-call-audio",
  "tools-call-embedded-resource",
  "tools-call-mixed-content",
  "resources-list",
  "prompts-list",
  "prompts-get-simple",
  "prompts-get-with-args",
  "server-sse-multiple-streams",
  "dns-rebinding-protection",
];

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer();
  for (const workflow of [templateWorkflow("notes"), ...SCENARIO_SKILLS]) {
    const saved = await t.call("POST", "/api/workflows", { workflow });
    expect(saved.status, JSON.stringify(saved.body)).toBe(201);
  }
  for (const agent of SCENARIO_AGENTS) expect((await t.call("POST", "/api/agents", agent)).status).toBe(201);
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

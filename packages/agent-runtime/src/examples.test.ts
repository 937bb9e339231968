/**
 * Every example workflow in workflows/*.json runs through the engine with the real built-in nodes
 * (skills resolved from the same folder; LLM nodes call Weft's offline demo LLM, started here,
 * through the real OpenAI-compatible client). Here, not in engine/: engine/ imports no other folder (llm/'s tests
 * run the LLM nodes through the engine).
 */
import { readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { createBuiltinRegistry } from "@weft/nodes";
import { workflowInterface, type PortType, type Workflow } from "@weft/types";
import { ProfileLlmService, StaticLlmProfileResolver, demoLlmProfile, startDemoLlm, type DemoLlm } from "./llm/index.ts";
import { DirectoryWorkflowSource } from "./engine/directory-workflow-source.ts";
import { ExecutionEngine } from "./engine/execution-engine.ts";
import { eventLog } from "./engine/testing/test-nodes.ts";

const DIR = join(import.meta.dirname, "../../../workflows");
const files = readdirSync(DIR)
  .filter((f) => f.endsWith(".json"))
  .sort();
let demo: DemoLlm;
let engine: ExecutionEngine;

beforeAll(() => {
  demo = startDemoLlm();
  const llm = new ProfileLlmService({ profiles: new StaticLlmProfileResolver([demoLlmProfile(demo.baseUrl)]) });
  engine = new ExecutionEngine({ catalog: createBuiltinRegistry(), workflows: new DirectoryWorkflowSource(DIR), services: { llm } });
});
afterAll(() => demo.stop());

const SAMPLES: Record<PortType, unknown> = {
  string: "the quick brown fox jumps over the lazy dog",
  number: 3,
  integer: 3,
  boolean: true,
  json: { sample: true },
  array: ["a", "b"],
  messages: [{ role: "user", content: "hi" }],
  image: { mimeType: "image/png", data: "iVBORw0KGgo=" },
  file: { mimeType: "text/plain", data: "aGk=" },
  any: "sample",
};

/** A value for every required input that has no default. */
function sampleInputs(workflow: Workflow): Record<string, unknown> {
  const inputs: Record<string, unknown> = {};
  for (const port of workflowInterface(workflow).inputs) if (port.required && port.default === undefined) inputs[port.name] = SAMPLES[port.type];
  return inputs;
}

function load(file: string): Workflow {
  const checked = new ExecutionEngine({ catalog: createBuiltinRegistry() }).validate(JSON.parse(readFileSync(join(DIR, file), "utf8")));
  if (!checked.ok) throw new Error(`${file}: ${JSON.stringify(checked.issues, null, 2)}`);
  return checked.workflow;
}

describe("example workflows run through the engine with the built-in nodes", () => {
  it("there are examples to run", () => {
    expect(files.length).toBeGreaterThanOrEqual(5);
  });

  it.each(files)("%s", async (file) => {
    const workflow = load(file);
    // Scene skills need a scene's world state and event bus: tests/scenes runs them inside the example scene.
    if (workflow.nodes.some((n) => n.type.startsWith("scene:"))) {
      expect(workflow.tags).toContain("scene");
      return;
    }
    const log = eventLog();
    const result = await engine.run(workflow, { inputs: sampleInputs(workflow), onEvent: log.onEvent });
    expect(log.events.map((e) => e.seq)).toEqual(log.events.map((_, i) => i));
    if (workflow.tags.includes("errors")) {
      // An example that fails on purpose shows that the other branches still complete.
      expect(result.status).toBe("failed");
      expect(Object.keys(result.outputs).length).toBeGreaterThan(0);
      const failedNodeIds = result.error?.details?.failedNodeIds as string[];
      expect(failedNodeIds.length).toBeGreaterThan(0);
      for (const id of failedNodeIds) expect(result.observations.find((o) => o.nodeId === id)?.status).toBe("failed");
      expect(result.observations.some((o) => o.status === "completed")).toBe(true);
    } else {
      expect(result.error).toBeUndefined();
      expect(result.status).toBe("completed");
    }
    for (const port of workflowInterface(workflow).outputs) {
      const node = result.observations.find((o) => o.nodeId === port.nodeId);
      if (node?.status === "completed") expect(result.outputs).toHaveProperty(port.name);
    }
  });

  it("the skill example runs two namespaced instances of its skill", async () => {
    const workflow = load("calls-skill.json");
    const result = await engine.run(workflow, { inputs: sampleInputs(workflow) });
    const skillNodes = workflow.nodes.filter((n) => n.type === "core:skill").map((n) => n.id);
    expect(skillNodes.length).toBeGreaterThanOrEqual(2);
    for (const id of skillNodes) expect(result.observations.some((o) => o.nodeId.startsWith(`${id}/`))).toBe(true);
  });

  it("the branch example skips its untaken side", async () => {
    const workflow = load("branch.json");
    const log = eventLog();
    await engine.run(workflow, { inputs: sampleInputs(workflow), onEvent: log.onEvent });
    expect(log.ofType("node.skipped").length).toBeGreaterThan(0);
    expect(log.ofType("node.skipped").every((e) => e.reason.length > 0 && e.causeNodeId)).toBe(true);
  });
});

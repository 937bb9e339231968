import { describe, expect, it } from "vitest";
import { NodeSpecSchema } from "@weft/types";
import { fixtureManifest, FIXTURE_NODES, FIXTURE_SKILLS } from "../test-support.ts";
import { skillEntryFromWorkflow, toolEntryFromNodeSpec } from "./entry.ts";
import { buildManifest } from "./manifest.ts";
import { manifestToOpenAiTools } from "./openai-tools.ts";
import { renderManifestPrompt } from "./render-prompt.ts";

describe("manifest entries", () => {
  it("builds a tool from a node spec: enums from options, types from ports, lists from multi ports", () => {
    const spec = NodeSpecSchema.parse({
      type: "text:case",
      title: "Case",
      description: "Changes case.",
      inputs: [
        { id: "mode", type: "string", options: ["upper", "lower"], required: true, description: "Which case" },
        { id: "parts", type: "string", multi: true },
        { id: "count", type: "integer", min: 1, max: 5, default: 2 },
      ],
    });
    const e = toolEntryFromNodeSpec(spec);
    expect(e).toMatchObject({ id: "text:case", kind: "tool", name: "text_case", description: "Changes case." });
    expect(e.inputSchema).toEqual({
      type: "object",
      description: "Changes case.",
      properties: {
        mode: { type: "string", enum: ["upper", "lower"], description: "Which case" },
        parts: { type: "array", items: { type: "string" } },
        count: { type: "integer", minimum: 1, maximum: 5, default: 2 },
      },
      required: ["mode"],
      additionalProperties: false,
    });
    expect(e.params.map((p) => [p.name, p.type, p.required, p.multi])).toEqual([
      ["mode", "string", true, false],
      ["parts", "string", false, true],
      ["count", "integer", false, false],
    ]);
    expect(e.params[0]!.options).toEqual(["upper", "lower"]);
  });

  it("builds a skill from a workflow interface", () => {
    const e = skillEntryFromWorkflow(FIXTURE_SKILLS[0]!);
    expect(e).toMatchObject({ id: "greet-player", kind: "skill", name: "skill_greet_player" });
    expect(e.inputSchema).toMatchObject({ properties: { player_id: { type: "string" }, greeting_context: { type: "string" } }, required: ["player_id"] });
  });
});

describe("prompt rendering for the <ACTION> protocol (seed 004 §4.2)", () => {
  const prompt = renderManifestPrompt(fixtureManifest());
  const lines = prompt.split("\n");

  it("has the exact machine-readable shape", () => {
    expect(lines[0]).toBe("You have access to the following tools and skills:");
    const tools = lines.indexOf("**Tools (direct function calls):**");
    const skills = lines.indexOf("**Skills (workflow executions):**");
    expect(tools).toBeGreaterThan(0);
    expect(skills).toBeGreaterThan(tools);
    const toolLines = lines.filter((l) => l.startsWith("*   `<"));
    expect(toolLines).toHaveLength(FIXTURE_NODES.length + FIXTURE_SKILLS.length);
    for (const l of toolLines) expect(l).toMatch(/^\* {3}`<[A-Za-z][A-Za-z0-9_]{0,63}>`: \S/);
    const paramLines = lines.filter((l) => l.startsWith("    *   `<"));
    for (const l of paramLines) expect(l).toMatch(/^ {4}\* {3}`<[A-Za-z_][A-Za-z0-9_]*>` \((string|number|integer|boolean|json|array|messages|any), (required|optional)\): \S/);
    expect(lines).toContain("*   `<world_read>`: Reads a value from the shared world state.");
    expect(lines).toContain('    *   `<path>` (string, required): The dot-separated path to the value (e.g. "environment.time.current_hour").');
    expect(lines).toContain("    *   `<default_value>` (any, optional): Value to return if path is not found.");
    expect(lines).toContain('    *   `<mode>` (string, required): One of: "upper", "lower".');
    expect(lines).toContain("    *   `<parts>` (array, required): A list of string values: one <item> tag per value.");
    expect(lines.slice(skills)).toContain("*   `<skill_greet_player>`: Greets the player appropriately based on context.");
  });

  it("states the protocol rules", () => {
    expect(prompt).toContain("One tool or skill per `<ACTION>` block");
    expect(prompt).toContain("<![CDATA[");
    expect(prompt).toContain("without any `<ACTION>` block");
  });

  it("says when a section is empty", () => {
    const only = renderManifestPrompt(buildManifest({ nodes: FIXTURE_NODES.slice(0, 1) }));
    expect(only).toContain("**Skills (workflow executions):**\n\n*   (none)");
  });
});

describe("OpenAI tools for the native protocol", () => {
  it("uses the safe names and the JSON Schemas", () => {
    const manifest = fixtureManifest();
    const tools = manifestToOpenAiTools(manifest);
    expect(tools).toHaveLength(manifest.entries.length);
    for (const [i, t] of tools.entries()) {
      expect(t.type).toBe("function");
      expect(t.function.name).toMatch(/^[A-Za-z][A-Za-z0-9_]{0,63}$/);
      expect(t.function.name).toBe(manifest.entries[i]!.name);
      expect(t.function.parameters).toEqual(manifest.entries[i]!.inputSchema);
    }
  });
});

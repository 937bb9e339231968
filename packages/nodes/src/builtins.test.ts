import { existsSync, readdirSync } from "node:fs";
import { join } from "node:path";
import { describe, expect, it } from "vitest";
import { NodeSpecSchema, nodeInputsJsonSchema, nodeOutputsJsonSchema } from "@weft/types";
import { builtinNodes, createBuiltinRegistry } from "./builtins.ts";

const SRC = import.meta.dirname;
const SCENE_NODE_TESTS = join(SRC, "../../agent-runtime/src/scene/nodes");

function listFiles(dir: string): string[] {
  return readdirSync(dir, { withFileTypes: true }).flatMap((entry) => (entry.isDirectory() ? listFiles(join(dir, entry.name)) : entry.name.endsWith(".ts") ? [join(dir, entry.name)] : []));
}

describe("built-in nodes", () => {
  it("are at least 25, with unique types", () => {
    const types = builtinNodes.map((d) => d.spec.type);
    expect(types.length).toBeGreaterThanOrEqual(25);
    expect(new Set(types).size).toBe(types.length);
    expect(createBuiltinRegistry().list()).toHaveLength(types.length);
  });

  it.each(builtinNodes.map((d) => [d.spec.type, d] as const))("%s has a complete spec", (_type, def) => {
    const spec = NodeSpecSchema.parse(def.spec);
    expect(spec).toEqual(def.spec);
    expect(spec.version).toBe(1);
    expect(spec.title.length).toBeGreaterThan(2);
    // The description is an LLM's tool description: a sentence, not a label.
    expect(spec.description.length).toBeGreaterThan(30);
    expect(spec.category).not.toBe("misc");
    for (const port of [...spec.inputs, ...spec.outputs]) expect(port.description?.length ?? 0, `${spec.type} port ${port.id}`).toBeGreaterThan(5);
    for (const field of spec.config) expect(field.description?.length ?? 0, `${spec.type} config ${field.id}`).toBeGreaterThan(5);
    expect(nodeInputsJsonSchema(spec).type).toBe("object");
    expect(nodeOutputsJsonSchema(spec).type).toBe("object");
  });

  it("of the core set are idempotent exactly when pure", () => {
    const impure = builtinNodes
      .filter((d) => d.spec.type.startsWith("core:") && !d.spec.flags.idempotent)
      .map((d) => d.spec.type)
      .sort();
    expect(impure).toEqual(["core:approval", "core:delay", "core:map", "core:preview", "core:skill"]);
  });

  it("each has a test file next to it, named after its type (scene:* nodes: beside the scene runtime they need)", () => {
    const files = new Set(listFiles(SRC).map((f) => f.slice(SRC.length + 1)));
    const missing = builtinNodes.flatMap((def) => {
      const name = def.spec.type.slice(def.spec.type.indexOf(":") + 1);
      const source = [...files].find((f) => f.endsWith(`/${name}.ts`));
      if (!source) return [`${def.spec.type}: no source file */${name}.ts`];
      // This package may not import the runtime, tests included: the scene nodes' tests live in the runtime's package.
      if (source.startsWith("scene/")) return existsSync(join(SCENE_NODE_TESTS, `${name}.test.ts`)) ? [] : [`${def.spec.type}: no packages/agent-runtime/src/scene/nodes/${name}.test.ts`];
      return files.has(source.replace(/\.ts$/, ".test.ts")) ? [] : [`${def.spec.type}: no ${source.replace(/\.ts$/, ".test.ts")}`];
    });
    expect(missing).toEqual([]);
  });
});

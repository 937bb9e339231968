import { describe, expect, it } from "vitest";
import { renderManifestPrompt } from "../manifest/render-prompt.ts";
import { fixtureManifest } from "../test-support.ts";
import { parseAction } from "./parse-action.ts";

/** The prompt the manifest renders and the parser agree (here, not in ../manifest/: the parser reads the manifest, not the reverse). */
describe("the rendered <ACTION> prompt (seed 004 §4.2) against the parser", () => {
  const prompt = renderManifestPrompt(fixtureManifest());
  const lines = prompt.split("\n");

  it("gives every tool an example that the parser accepts as a valid call of that tool", () => {
    const manifest = fixtureManifest();
    const examples = lines.filter((l) => l.startsWith("    Example: `")).map((l) => l.slice("    Example: `".length, -1));
    expect(examples).toHaveLength(manifest.entries.length);
    examples.forEach((example, i) => {
      const r = parseAction(example, manifest);
      expect(r, example).toMatchObject({ kind: "call", toolName: manifest.entries[i]!.name });
    });
  });

  it("never triggers an action when a model echoes the prompt", () => {
    expect(parseAction(prompt, fixtureManifest()).kind).toBe("text");
  });
});

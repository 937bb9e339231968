import { describe, expect, it } from "vitest";
import { fixtureManifest } from "../test-support.ts";
import { formatObservation } from "../observation.ts";
import { parseAction } from "./parse-action.ts";

/** Seed 004 §5, with the seed's tool ids written as this manifest's names. */
const manifest = fixtureManifest();

describe("seed 004 §5 examples", () => {
  it("§5.1 simple call: reply text before the block, raw parameter values", () => {
    const output = `Okay, I need to check the current weather to answer the player's question.
<ACTION>
    <world_read>
        <path>environment.weather.current_conditions</path>
        <default_value>unknown</default_value>
    </world_read>
</ACTION>`;
    const r = parseAction(output, manifest);
    expect(r).toEqual({
      kind: "call",
      responseText: "Okay, I need to check the current weather to answer the player's question.",
      trailingText: "",
      // The block ends the output.
      actionEnd: output.length,
      toolId: "world:read",
      toolKind: "tool",
      toolName: "world_read",
      params: { path: "environment.weather.current_conditions", default_value: "unknown" },
      notes: [],
    });
    const observation = formatObservation({ kind: "success", toolName: "world_read", outputs: { value: "sunny" } });
    expect(observation).toBe('Observation: Tool `world_read` executed successfully. Result: {"value":"sunny"}');
  });

  it("§5.2 nested parameters: repeated tags become a list", () => {
    const r = parseAction(
      `I need to read both the main application file and the utility functions to understand the context.
<ACTION>
    <fs_read_file>
        <args>
            <file>
                <path>src/app.ts</path>
            </file>
            <file>
                <path>src/utils.ts</path>
            </file>
        </args>
    </fs_read_file>
</ACTION>`,
      manifest,
    );
    expect(r).toMatchObject({
      kind: "call",
      responseText: "I need to read both the main application file and the utility functions to understand the context.",
      toolId: "fs:read-file",
      params: { args: { file: [{ path: "src/app.ts" }, { path: "src/utils.ts" }] } },
    });
  });

  it("§5.3 CDATA: the diff is kept byte for byte, whitespace outside CDATA dropped", () => {
    const diff = `
--- a/config/settings.json
+++ b/config/settings.json
@@ -1,5 +1,5 @@
 {
-  "feature_enabled": false,
+  "feature_enabled": true,
   "api_key": "old_key_value"
 }
            `;
    const r = parseAction(
      `I will try to apply the following diff to update the configuration.
<ACTION>
    <fs_apply_diff>
        <file_path>config/settings.json</file_path>
        <diff>
            <![CDATA[${diff}]]>
        </diff>
    </fs_apply_diff>
</ACTION>`,
      manifest,
    );
    expect(r.kind).toBe("call");
    if (r.kind !== "call") return;
    expect(r.params.diff).toBe(diff);
    expect(r.params.file_path).toBe("config/settings.json");
  });

  it("§5.3 (section 3.2.4) CDATA with special characters", () => {
    const r = parseAction(
      `<ACTION>
    <fs_apply_diff>
        <file_path>src/main.ts</file_path>
        <diff>
            <![CDATA[
<<<<<<< SEARCH
:start_line:10
-------
console.log("Old version");
=======
console.log("New version with <special & characters>");
>>>>>>> REPLACE
            ]]>
        </diff>
    </fs_apply_diff>
</ACTION>`,
      manifest,
    );
    expect(r).toMatchObject({ kind: "call", params: { file_path: "src/main.ts" } });
    if (r.kind === "call") expect(r.params.diff).toContain('console.log("New version with <special & characters>");\n>>>>>>> REPLACE\n            ');
  });

  it("§5.4 plain reply: no action, the whole output is the reply", () => {
    const text = "The weather is currently sunny and pleasant. It's a great day for an adventure!";
    expect(parseAction(text, manifest)).toEqual({ kind: "text", responseText: text, notes: [], quoted: [] });
  });

  it("§5.5 self-correction: a misspelt parameter names the right one, the corrected call passes", () => {
    const first = parseAction(
      `I'll try to get the player's name.
<ACTION>
    <player_info>
        <playerId>player123</playerId>
    </player_info>
</ACTION>`,
      manifest,
    );
    expect(first).toMatchObject({ kind: "error", code: "INVALID_PARAMS", toolId: "player:info", responseText: "I'll try to get the player's name.", line: 4, column: 9 });
    if (first.kind !== "error") return;
    expect(first.message).toContain("Invalid parameters for `player_info`");
    expect(first.message).toContain("<playerId> (line 4, column 9): unknown parameter; did you mean <player_id>?");
    expect(first.message).toContain("`<player_id>` (string, required): The player's id.");
    // The corrected example reuses the value under the right name.
    expect(first.message).toContain("<ACTION>\n  <player_info>\n    <player_id>player123</player_id>\n  </player_info>\n</ACTION>");
    expect(formatObservation(first)).toMatch(/^Observation: Error \(INVALID_PARAMS\) - Invalid parameters for `player_info`/);

    const second = parseAction(
      `My apologies, I used the wrong parameter name. Let me try again to get the player's information.
<ACTION>
    <player_info>
        <player_id>player123</player_id>
    </player_info>
</ACTION>`,
      manifest,
    );
    expect(second).toMatchObject({ kind: "call", toolId: "player:info", params: { player_id: "player123" } });
  });

  it("§3.2.2 a skill is called by its manifest name, or by its workflow id", () => {
    const byName = parseAction("<ACTION><skill_greet_player><player_id>p1</player_id></skill_greet_player></ACTION>", manifest);
    expect(byName).toMatchObject({ kind: "call", toolId: "greet-player", toolKind: "skill", params: { player_id: "p1" } });
    const byId = parseAction("<ACTION><greet-player><player_id>p1</player_id></greet-player></ACTION>", manifest);
    expect(byId).toMatchObject({ kind: "call", toolId: "greet-player", toolKind: "skill", notes: [] });
    const byNodeType = parseAction("<ACTION><world:read><path>a</path></world:read></ACTION>", manifest);
    expect(byNodeType).toMatchObject({ kind: "call", toolId: "world:read" });
  });
});

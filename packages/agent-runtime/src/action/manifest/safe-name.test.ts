import { describe, expect, it } from "vitest";
import { SAFE_TOOL_NAME, assignToolNames, baseToolName } from "./safe-name.ts";
import { Manifest } from "./manifest.ts";
import type { ManifestEntry } from "./entry.ts";

const entry = (id: string, kind: "tool" | "skill" = "tool"): ManifestEntry => ({
  id,
  kind,
  name: baseToolName(id, kind),
  description: id,
  inputSchema: { type: "object", properties: {}, required: [], additionalProperties: false },
  params: [],
});

describe("LLM-safe tool names", () => {
  it("turns node types and skill ids into names OpenAI accepts", () => {
    expect(baseToolName("core:text-template", "tool")).toBe("core_text_template");
    expect(baseToolName("fs:read.file", "tool")).toBe("fs_read_file");
    expect(baseToolName("greet-player", "skill")).toBe("skill_greet_player");
    expect(baseToolName("workflows/skills/npc_greet.json", "skill")).toBe("skill_workflows_skills_npc_greet_json");
    expect(baseToolName("9lives:x", "tool")).toBe("tool_9lives_x");
  });

  it("keeps ids with nothing usable (another script) distinct and valid", () => {
    const a = baseToolName("问候", "skill");
    const b = baseToolName("告别", "skill");
    expect(a).toMatch(SAFE_TOOL_NAME);
    expect(b).toMatch(SAFE_TOOL_NAME);
    expect(a).not.toBe(b);
  });

  it("cuts long ids to 64 characters with a hash that keeps them apart", () => {
    const long = "ns:" + "very-long-name-".repeat(10);
    const a = baseToolName(long + "a", "tool");
    const b = baseToolName(long + "b", "tool");
    expect(a.length).toBeLessThanOrEqual(64);
    expect(a).toMatch(SAFE_TOOL_NAME);
    expect(a).not.toBe(b);
  });

  it("gives colliding ids a stable suffix, whatever the order, and maps each back to its id", () => {
    const ids = ["core:a-b", "core:a.b", "core:a_b"];
    const forward = Manifest.create(ids.map((id) => entry(id)));
    const backward = Manifest.create([...ids].reverse().map((id) => entry(id)));
    const namesOf = (m: Manifest) => Object.fromEntries(m.entries.map((e) => [e.id, e.name]));
    expect(namesOf(forward)).toEqual(namesOf(backward));
    const names = Object.values(namesOf(forward));
    expect(new Set(names).size).toBe(3);
    for (const n of names) expect(n).toMatch(SAFE_TOOL_NAME);
    // The smallest id keeps the plain name; the others are suffixed.
    expect(namesOf(forward)["core:a-b"]).toBe("core_a_b");
    expect(namesOf(forward)["core:a.b"]).toMatch(/^core_a_b_[0-9a-f]{6}$/);
    for (const e of forward.entries) {
      const r = forward.resolve(e.name);
      expect(r.found && r.entry.id).toBe(e.id);
    }
  });

  it("makes names unique ignoring case, so a case-insensitive match is never ambiguous", () => {
    const names = assignToolNames([
      { id: "Greet", kind: "skill" },
      { id: "greet", kind: "skill" },
    ]);
    expect(names[0]!.toLowerCase()).not.toBe(names[1]!.toLowerCase());
  });

  it("keeps a tool and a skill apart when their names would collide", () => {
    const m = Manifest.create([entry("skill:x", "tool"), entry("x", "skill")]);
    const [a, b] = m.entries;
    expect(a!.name).not.toBe(b!.name);
    expect(m.getById("x", "skill")?.kind).toBe("skill");
    expect(m.getById("skill:x")?.kind).toBe("tool");
  });

  it("drops duplicate entries instead of failing", () => {
    const m = Manifest.create([entry("core:x"), entry("core:x")]);
    expect(m.entries).toHaveLength(1);
  });
});

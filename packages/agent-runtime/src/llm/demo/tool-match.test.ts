import { describe, expect, it } from "vitest";
import { parseActionManifest } from "./action-manifest.ts";
import { deriveArguments, keywords, paramsFromJsonSchema, pickTool } from "./tool-match.ts";

describe("the demo LLM's tool matching", () => {
  it("reads an <ACTION> manifest: tools, parameter types, required and optional", () => {
    const prompt = [
      "Intro text mentioning `<NotATool>`: ignored because it is before the header.",
      "You have access to the following tools and skills:",
      "**Tools (direct function calls):**",
      "*   `<ReadWorldStateTool>`: Reads a value from the shared world state.",
      "    *   Parameters:",
      "        *   `<path>` (string, required): The dot-separated path.",
      "        *   `<default_value>` (any, optional): Value to return if path is not found.",
      "**Skills (workflow executions):**",
      "*   `<skill_greet_player>`: Greets the player.",
      "        *   `<player_id>` (string): The player.",
    ].join("\n");
    expect(parseActionManifest(prompt)).toEqual([
      {
        name: "ReadWorldStateTool",
        description: "Reads a value from the shared world state.",
        params: [
          { name: "path", type: "string", required: true, description: "The dot-separated path." },
          { name: "default_value", type: "any", required: false, description: "Value to return if path is not found." },
        ],
      },
      { name: "skill_greet_player", description: "Greets the player.", params: [{ name: "player_id", type: "string", required: true, description: "The player." }] },
    ]);
    expect(parseActionManifest("no tools here")).toBeNull();
  });

  it("splits names into word stems and picks the best-matching tool, or none", () => {
    expect([...keywords("ReadWorldStateTool read_files")]).toEqual(["read", "world", "state", "file"]);
    const tools = [
      { name: "send_email", description: "Send an email to someone", params: [] },
      { name: "get_weather", description: "Current weather for a city", params: [{ name: "city", type: "string", required: true, description: "" }] },
    ];
    expect(pickTool(tools, "What's the weather in Lyon?")?.name).toBe("get_weather");
    expect(pickTool(tools, "Email Bob please")?.name).toBe("send_email");
    expect(pickTool(tools, "Tell me a joke")).toBeUndefined();
  });

  it("fills parameters from the message: explicit values, enums, numbers, quoted text, paths", () => {
    const params = paramsFromJsonSchema({
      type: "object",
      properties: {
        path: { type: "string" },
        count: { type: "integer" },
        mode: { type: "string", enum: ["fast", "thorough"] },
        verbose: { type: "boolean" },
        title: { type: ["string", "null"] },
        note: { type: "string" },
      },
      required: ["path", "count", "title"],
    });
    expect(deriveArguments(params, 'Scan src/app.ts 3 times, thorough please, title "Audit"')).toEqual({
      path: "src/app.ts",
      count: 3,
      title: "Audit",
      mode: "thorough",
    });
    expect(deriveArguments(params, "path = docs/a.md, count: 7.9, verbose: yes, title is Report")).toEqual({
      path: "docs/a.md",
      count: 7,
      title: "Report",
      verbose: true,
    });
    expect(deriveArguments([{ name: "text", type: "string", required: true, description: "" }], "  summarise this  ")).toEqual({ text: "summarise this" });
  });

  it("takes a named text to the end of its clause, and a named number or path as one word", () => {
    const note = [{ name: "note", type: "string", required: true, description: "" }];
    expect(deriveArguments(note, "Post a note: the library opens late on Friday.")).toEqual({ note: "the library opens late on Friday." });
    const params = paramsFromJsonSchema({
      type: "object",
      properties: { text: { type: "string" }, count: { type: "integer" }, path: { type: "string" } },
      required: ["text", "count", "path"],
    });
    expect(deriveArguments(params, "text: hello big world, count: 3 now, path: src/a.ts please")).toEqual({ text: "hello big world", count: 3, path: "src/a.ts" });
    expect(deriveArguments(params, 'text = "quoted, with a comma" count = 2 path = b.md')).toEqual({ text: "quoted, with a comma", count: 2, path: "b.md" });
  });

  it("reads the README's requests right: an option named in the words, and the text after an instruction", () => {
    const prompt = [
      "You have access to the following tools and skills:",
      "*   `<core_math>`: Computes a number from a and b.",
      "    *   `<a>` (number, required): First operand.",
      "    *   `<b>` (number, optional): Second operand.",
      '    *   `<op>` (string, optional): (setting) Which operation. One of: "add", "subtract", "multiply", "divide". Default: "add".',
      "*   `<core_text_transform>`: Trims white space from a text and changes its case.",
      "    *   `<text>` (string, required): The text to transform.",
      '    *   `<trim>` (string, optional): (setting) Which ends to strip. One of: "none", "both", "start", "end". Default: "both".',
      '    *   `<case>` (string, optional): (setting) How to change letter case. One of: "keep", "upper", "lower". Default: "keep".',
    ].join("\n");
    const [math, transform] = parseActionManifest(prompt)!;
    expect(math!.params.find((p) => p.name === "op")?.enum).toEqual(["add", "subtract", "multiply", "divide"]);
    expect(deriveArguments(math!.params, "multiply a: 6 by b: 7")).toEqual({ a: 6, b: 7, op: "multiply" });
    expect(deriveArguments(transform!.params, "upper case: hello from the weft")).toEqual({ text: "hello from the weft", case: "upper" });
    // An option is a whole word: "end" is not in "friends".
    expect(deriveArguments(transform!.params, "lower case: my friends")).toEqual({ text: "my friends", case: "lower" });
    // A parameter name before the colon keeps its value.
    expect(deriveArguments(transform!.params, "text: hello")).toEqual({ text: "hello" });
  });

  it("reads everyday words for operations, and spare numbers for a tool that computes", () => {
    const math = paramsFromJsonSchema({
      type: "object",
      properties: { a: { type: "number" }, b: { type: "number" }, op: { type: "string", enum: ["add", "multiply"] } },
      required: ["a"],
    });
    const tools = [
      { name: "core_math", description: "Computes a number from a and b: add, multiply.", params: math },
      { name: "core_text_transform", description: "Changes the case of a text.", params: [] },
    ];
    expect(pickTool(tools, "What is 6 times 7?")?.name).toBe("core_math");
    expect(deriveArguments(math, "What is 6 times 7?")).toEqual({ a: 6, b: 7, op: "multiply" });
    expect(deriveArguments(math, "add 2 and 3")).toEqual({ a: 2, b: 3, op: "add" });
    // A number given by name is not taken again by the next parameter.
    expect(deriveArguments(math, "multiply a: 6 by 7")).toEqual({ a: 6, b: 7, op: "multiply" });
    // Only a tool with a required number takes spare numbers for its optional ones.
    const text = paramsFromJsonSchema({ type: "object", properties: { text: { type: "string" }, width: { type: "integer" } }, required: ["text"] });
    expect(deriveArguments(text, "wrap 'abc' at 40")).toEqual({ text: "abc" });
  });
});

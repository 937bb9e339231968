import { describe, expect, it } from "vitest";
import { fixtureManifest } from "../test-support.ts";
import { parseAction } from "./parse-action.ts";
import type { ParseResult } from "./result.ts";

const manifest = fixtureManifest();
const parse = (text: string) => parseAction(text, manifest);
const call = (text: string) => {
  const r = parse(text);
  if (r.kind !== "call") throw new Error(`expected a call, got ${JSON.stringify(r, null, 2)}`);
  return r;
};
const error = (text: string) => {
  const r = parse(text);
  if (r.kind !== "error") throw new Error(`expected an error, got ${JSON.stringify(r, null, 2)}`);
  return r;
};
const act = (inner: string) => `<ACTION>${inner}</ACTION>`;

describe("parameter values", () => {
  it("are raw text: nothing becomes a number unless the schema says so", () => {
    expect(call(act("<world_read><path>007</path><default_value>42</default_value></world_read>")).params).toEqual({ path: "007", default_value: "42" });
  });

  it("are trimmed when ordinary, kept byte for byte in CDATA", () => {
    expect(call(act("<world_read><path>\n   a.b  \n</path></world_read>")).params.path).toBe("a.b");
    expect(call(act("<world_read><path>  <![CDATA[  a.b \n ]]>  </path></world_read>")).params.path).toBe("  a.b \n ");
  });

  it("keep carriage returns inside CDATA (XML would turn them into line feeds)", () => {
    expect(call(act("<world_read><path><![CDATA[a\r\nb\rc]]></path></world_read>")).params.path).toBe("a\r\nb\rc");
  });

  it("decode entities outside CDATA only", () => {
    expect(call(act("<world_read><path>&lt;b&gt; &amp; &quot;q&quot; &apos;s&apos; &#65;&#x42; &#x1F600;</path></world_read>")).params.path).toBe(`<b> & "q" 's' AB 😀`);
    expect(call(act("<world_read><path><![CDATA[&lt;b&gt; &amp;]]></path></world_read>")).params.path).toBe("&lt;b&gt; &amp;");
    expect(call(act("<world_read><path>&nbsp;&bogus;</path></world_read>")).params.path).toBe("&nbsp;&bogus;");
  });

  it("join split CDATA sections, so ]]> can be part of a value", () => {
    expect(call(act("<world_read><path><![CDATA[a]]]]><![CDATA[>b]]></path></world_read>")).params.path).toBe("a]]>b");
  });

  it("join text and CDATA in order", () => {
    expect(call(act("<world_read><path> x &amp; <![CDATA[<y>]]> z </path></world_read>")).params.path).toBe("x & <y> z");
  });

  it("become lists from repeated tags and from <item> children, a single <item> included", () => {
    expect(call(act("<text_join><parts><item>a</item><item>b</item></parts></text_join>")).params.parts).toEqual(["a", "b"]);
    expect(call(act("<text_join><parts><item>only</item></parts></text_join>")).params.parts).toEqual(["only"]);
    expect(call(act("<text_join><parts>a</parts><parts>b</parts></text_join>")).params.parts).toEqual(["a", "b"]);
    expect(call(act("<text_join><parts><part>a</part><part>b</part></parts></text_join>")).params.parts).toEqual(["a", "b"]);
    expect(call(act("<text_join><parts></parts></text_join>")).params.parts).toEqual([]);
    expect(call(act("<data_list><values><item>1</item><item><x>2</x></item></values></data_list>")).params.values).toEqual(["1", { x: "2" }]);
  });

  it("become objects from nested tags", () => {
    expect(call(act("<event_publish><event_type>t</event_type><payload><who>me</who><where><x>1</x></where></payload></event_publish>")).params.payload).toEqual({
      who: "me",
      where: { x: "1" },
    });
  });

  it("convert to number, integer and boolean where the schema asks", () => {
    expect(call(act("<math_add><a> 1.5 </a><b>-2e3</b><precision>3</precision></math_add>")).params).toEqual({ a: 1.5, b: -2000, precision: 3 });
    expect(call(act("<fs_apply_diff><file_path>f</file_path><diff>d</diff><dry_run>TRUE</dry_run></fs_apply_diff>")).params.dry_run).toBe(true);
    expect(call(act("<fs_apply_diff><file_path>f</file_path><diff>d</diff><dry_run>false</dry_run></fs_apply_diff>")).params.dry_run).toBe(false);
  });

  it("parse JSON text for json and list parameters", () => {
    expect(call(act('<event_publish><event_type>t</event_type><payload><![CDATA[{"message": "Task <done> & ok"}]]></payload></event_publish>')).params.payload).toEqual({
      message: "Task <done> & ok",
    });
    expect(call(act('<text_join><parts><![CDATA[["a", "b"]]]></parts></text_join>')).params.parts).toEqual(["a", "b"]);
    expect(call(act('<llm_chat><messages><![CDATA[[{"role": "user", "content": "Hi"}]]]></messages></llm_chat>')).params.messages).toEqual([{ role: "user", content: "Hi" }]);
    expect(call(act("<llm_chat><messages><item><role>user</role><content>Hi</content></item></messages></llm_chat>")).params.messages).toEqual([{ role: "user", content: "Hi" }]);
    // A json parameter that is not JSON-looking stays text.
    expect(call(act("<event_publish><event_type>t</event_type><payload>just text</payload></event_publish>")).params.payload).toBe("just text");
  });
});

describe("validation errors name the parameter, the rule and the fix", () => {
  it("a wrong type", () => {
    const e = error(act("<math_add>\n<a>one</a>\n<b>2</b>\n<precision>2.5</precision>\n</math_add>"));
    expect(e).toMatchObject({ code: "INVALID_PARAMS", toolId: "math:add", line: 2, column: 1 });
    expect(e.message).toContain('- <a> (line 2, column 1): expected a number, got string "one"');
    expect(e.message).toContain("- <precision> (line 4, column 1): expected an integer, got 2.5");
    expect(e.message).toContain("`<a>` (number, required)");
  });

  it("a value out of range or outside the options, with the nearest option", () => {
    expect(error(act("<math_add><a>1</a><b>2</b><precision>11</precision></math_add>")).message).toContain("<precision> (line 1, column 35): must be at most 10, got 11");
    const e = error(act("<text_case><mode>uper</mode><text>x</text></text_case>"));
    expect(e.message).toContain('must be one of "upper", "lower"; got "uper". Did you mean "upper"?');
  });

  it("a missing required parameter, with its type and description", () => {
    const e = error(act("<world_read><default_value>x</default_value></world_read>"));
    expect(e.message).toContain("- <path>: required parameter is missing");
    expect(e.message).toContain("`<path>` (string, required): The dot-separated path");
    expect(e.message).toContain("<path>text</path>");
  });

  it("an unknown parameter, with the nearest valid name", () => {
    const e = error(act("<math_add><a>1</a><b>2</b><precison>2</precison></math_add>"));
    expect(e.message).toContain("<precison> (line 1, column 35): unknown parameter; did you mean <precision>?");
  });

  it("a misspelt field inside a typed object", () => {
    const e = error(act("<llm_chat><messages><item><rol>user</rol></item></messages></llm_chat>"));
    expect(e.message).toContain("<messages>[0]<role> (line 1, column 19): is required but missing (is <rol> a misspelling of it?)");
  });

  it("markup in a text parameter without CDATA", () => {
    const e = error(act("<world_read><path><b>x</b></path></world_read>"));
    expect(e.message).toContain("expected text, got nested tags <b>; if the value contains markup, wrap it in <![CDATA[ ... ]]>");
  });

  it("JSON that does not parse", () => {
    const e = error(act('<event_publish><event_type>t</event_type><payload><![CDATA[{"a": }]]></payload></event_publish>'));
    expect(e.message).toMatch(/<payload> \(line 1, column 50\): looks like JSON but is not valid JSON/);
  });
});

describe("tool names", () => {
  it("match by safe name or id; letter case is a noted repair", () => {
    expect(call(act("<World_Read><path>a</path></World_Read>")).notes).toContain("The tool tag <World_Read> was matched to `world_read` ignoring letter case; write <world_read> exactly.");
    expect(call(act("<WORLD:READ><path>a</path></WORLD:READ>")).toolId).toBe("world:read");
  });

  it("unknown ones get the nearest tool, the list of tools and an example reusing the parameters", () => {
    const e = error("Let me look.\n<ACTION>\n  <read_world>\n    <path>a.b</path>\n  </read_world>\n</ACTION>");
    expect(e).toMatchObject({ code: "UNKNOWN_TOOL", line: 3, column: 3, responseText: "Let me look." });
    expect(e.message).toContain("Unknown tool <read_world> (line 3, column 3). Did you mean `world_read`");
    expect(e.message).toContain("Available tools: `world_read`, `world_update`");
    expect(e.message).toContain("Available skills: `skill_greet_player`, `skill_summarise`");
    expect(e.message).toContain("<world_read>\n    <path>a.b</path>\n  </world_read>");
  });
});

describe("attributes instead of child tags", () => {
  it("are accepted as parameters, with a note", () => {
    const r = call(act('<math_add a="1" b="2.5"/>'));
    expect(r.params).toEqual({ a: 1, b: 2.5 });
    expect(r.notes[0]).toContain("Parameters written as attributes of <math_add> (a, b) were accepted");
  });

  it("are an error when the same parameter is also a child tag", () => {
    expect(error(act('<world_read path="a"><path>b</path></world_read>')).message).toContain("is given both as an attribute and as a child tag");
  });
});

describe("one tool per ACTION, one ACTION per turn", () => {
  it("two tools in one block is MULTIPLE_TOOLS", () => {
    const e = error(act("<world_read><path>a</path></world_read>\n<clock_now/>"));
    expect(e).toMatchObject({ code: "MULTIPLE_TOOLS", line: 2, column: 1 });
    expect(e.message).toContain("contains 2 tool tags (<world_read>, <clock_now>)");
  });

  it("only the first block runs; the second is noted and kept out of the reply", () => {
    const r = call(`First.\n${act("<clock_now/>")}\nThen:\n${act("<world_read><path>a</path></world_read>")}`);
    expect(r.toolId).toBe("clock:now");
    expect(r.responseText).toBe("First.");
    expect(r.trailingText).toBe(`Then:\n${act("<world_read><path>a</path></world_read>")}`);
    expect(r.notes).toContain("Only the first <ACTION> block is executed per turn; a second block at line 4 was ignored. Call one tool, wait for its Observation, then call the next.");
  });
});

describe("text the model did not mean as an action is never executed", () => {
  const quoted: Array<[string, string]> = [
    ["a <think> block", `<think>I could do ${act("<clock_now/>")}</think>Done.`],
    ["a <thinking> block", `<thinking>\n${act("<clock_now/>")}\n</thinking>\nDone.`],
    ["a <reasoning> block", `<reasoning>${act("<clock_now/>")}</reasoning>Done.`],
    ["an unclosed <think> block", `<think>still thinking ${act("<clock_now/>")}`],
    ["reasoning closed without its opening tag", `I might call ${act("<clock_now/>")}</think>Done.`],
    ["a ``` code block", "Like this:\n```xml\n" + act("<clock_now/>") + "\n```\nDone."],
    ["a ~~~ code block", "Like this:\n~~~\n" + act("<clock_now/>") + "\n~~~"],
    ["an indented code fence", "Like this:\n   ```\n" + act("<clock_now/>") + "\n   ```"],
    ["inline code", "Write `" + act("<clock_now/>") + "` to get the time."],
    ["double-backtick inline code", "Write ``" + act("<clock_now/>") + "`` to get the time."],
    ["an escaped tag", "Write &lt;ACTION&gt;&lt;clock_now/&gt;&lt;/ACTION&gt; to get the time."],
    ["an HTML comment", `<!-- ${act("<clock_now/>")} -->Done.`],
  ];
  it.each(quoted)("inside %s", (_what, text) => {
    const r = parse(text);
    expect(r.kind).toBe("text");
  });

  it("notes why it was not executed, and keeps reasoning out of the reply", () => {
    const r = parse(`<think>maybe ${act("<clock_now/>")}</think>It is late.`) as Extract<ParseResult, { kind: "text" }>;
    expect(r.responseText).toBe("It is late.");
    expect(r.notes).toEqual(["An <ACTION> tag inside a <think> block (line 1) was reasoning and was not executed; write the <ACTION> block after your reasoning."]);
    const fenced = parse("```\n" + act("<clock_now/>") + "\n```") as Extract<ParseResult, { kind: "text" }>;
    expect(fenced.notes[0]).toContain("inside a Markdown code block (line 1) was an example");
    const unclosed = parse("I use <think> tags.\n" + act("<clock_now/>")) as Extract<ParseResult, { kind: "text" }>;
    expect(unclosed.notes[0]).toBe("An <ACTION> tag inside a <think> block (opened at line 1 and never closed) was reasoning and was not executed; write the <ACTION> block after your reasoning.");
  });

  it("a </think> inside an action's value is not the end of headless reasoning", () => {
    const r = call(`Saving the template.\n${act("<world_read><path><![CDATA[ends reasoning: </think>]]></path></world_read>")}`);
    expect(r.params.path).toBe("ends reasoning: </think>");
    expect(r.responseText).toBe("Saving the template.");
    expect(parse("Close reasoning with `</think>`.")).toEqual({ kind: "text", responseText: "Close reasoning with `</think>`.", notes: [], quoted: [] });
    const headless = call(`I might call ${act("<world_read><path>x</path></world_read>")} first.</think>Now:\n${act("<clock_now/>")}`);
    expect(headless.toolId).toBe("clock:now");
    expect(headless.responseText).toBe("Now:");
  });

  it("a real block after reasoning or a quoted example still runs", () => {
    const r = call(`<think>I will call ${act("<world_read><path>x</path></world_read>")}</think>Checking.\n\`<ACTION>\` looks like this:\n${act("<clock_now/>")}`);
    expect(r.toolId).toBe("clock:now");
    expect(r.responseText).toBe("Checking.\n`<ACTION>` looks like this:");
  });
});

describe("truncation, emptiness and broken structure", () => {
  it("an <ACTION> never closed is TRUNCATED, naming where it opened", () => {
    const e = error("Reading.\n<ACTION>\n  <world_read>\n    <path>a</path>");
    expect(e).toMatchObject({ code: "TRUNCATED", line: 2, column: 1, toolId: "world:read", responseText: "Reading." });
    expect(e.message).toContain("Your <ACTION> block opened (line 2, column 1) is never closed with </ACTION>");
    expect(e.message).toContain("<world_read>\n    <path>text</path>");
  });

  it("a CDATA section never closed is TRUNCATED, even when </ACTION> appears inside it", () => {
    const e = error("<ACTION><fs_apply_diff><file_path>a</file_path><diff><![CDATA[\n-x\n+y </diff></fs_apply_diff></ACTION>");
    expect(e).toMatchObject({ code: "TRUNCATED", line: 1, column: 54 });
    expect(e.message).toContain("The <![CDATA[ section opened (line 1, column 54) is never closed with ]]>");
  });

  it("an output cut inside the tags is TRUNCATED", () => {
    expect(error("<ACTION").code).toBe("TRUNCATED");
    expect(error("I will read it.\n<ACTI")).toMatchObject({ code: "TRUNCATED", line: 2, column: 1, responseText: "I will read it." });
    expect(error("<ACTION><clock_now/></ACTI").code).toBe("TRUNCATED");
    expect(error("<ACTION><clock_now/><!-- note").code).toBe("TRUNCATED");
  });

  it("an empty block is EMPTY_ACTION", () => {
    for (const text of ["<ACTION></ACTION>", "<ACTION>\n   \n</ACTION>", "<ACTION/>", "<ACTION><!-- nothing --></ACTION>"]) {
      const e = error(text);
      expect(e.code, text).toBe("EMPTY_ACTION");
      expect(e.message).toContain("is empty. Put exactly one tool or skill tag inside it");
    }
  });

  it("unbalanced tags are MALFORMED_XML with the line and column in the output", () => {
    const e = error("Go.\n<ACTION>\n<world_read>\n  <path>a</pat>\n</world_read>\n</ACTION>");
    expect(e).toMatchObject({ code: "MALFORMED_XML", line: 4, column: 10, toolId: "world:read" });
    expect(e.message).toContain("Malformed XML in your <ACTION> block (line 4, column 10): Expected closing tag 'path' (opened in line 4, column 3) instead of closing tag 'pat'.");
  });

  it("positions stay right after multi-line CDATA and repaired characters", () => {
    const e = error("<ACTION>\n<fs_apply_diff>\n<diff><![CDATA[\nline 1\nline 2 & <x>\n]]></diff>\n<file_path>a & b</file_pat>\n</fs_apply_diff>\n</ACTION>");
    expect(e).toMatchObject({ code: "MALFORMED_XML", line: 7, column: 17 });
    expect(e.message).toContain("Expected closing tag 'file_path' (opened in line 7, column 1) instead of closing tag 'file_pat'.");
  });

  it("a tool tag left open is MALFORMED_XML naming it", () => {
    const e = error("<ACTION><world_read><path>a</path></ACTION>");
    expect(e.code).toBe("MALFORMED_XML");
    expect(e.message).toContain("Expected closing tag 'world_read' (opened in line 1, column 9) instead of closing tag 'ACTION'");
  });

  it("a </ACTION> without its opening tag is MALFORMED_XML", () => {
    const e = error("<world_read><path>a</path></world_read>\n</ACTION>");
    expect(e).toMatchObject({ code: "MALFORMED_XML", line: 2, column: 1 });
    expect(e.message).toContain("found </ACTION> without an opening <ACTION> tag");
  });
});

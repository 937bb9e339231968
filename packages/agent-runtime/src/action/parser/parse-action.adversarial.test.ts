import { describe, expect, it } from "vitest";
import { fixtureManifest } from "../test-support.ts";
import { parseAction } from "./parse-action.ts";

/** How models really misbehave, one case per habit. */
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

describe("wrapping and stray text", () => {
  it("a real block wrapped in a code fence is not executed, and the note says how to fix it", () => {
    const r = parse("Sure:\n```xml\n<ACTION>\n  <clock_now/>\n</ACTION>\n```");
    expect(r.kind).toBe("text");
    if (r.kind === "text") expect(r.notes[0]).toContain("Markdown code block (line 2)");
  });

  it("text before, inside (outside the tool tag) and after the block", () => {
    const r = call("Plan: check time.\n<ACTION>\nI will call:\n<clock_now/>\nthanks\n</ACTION>\nObservation: (hallucinated)");
    expect(r.responseText).toBe("Plan: check time.");
    expect(r.trailingText).toBe("Observation: (hallucinated)");
    expect(r.notes).toContain('Text inside <ACTION> outside the tool tag was ignored: "I will call:\\n\\nthanks".');
  });

  it("wrong case of ACTION and of the tool, noted", () => {
    const r = call("<Action><CLOCK_NOW/></action>");
    expect(r.toolId).toBe("clock:now");
    expect(r.notes).toEqual([
      "The tag was written <Action>; it is <ACTION> (accepted).",
      "The closing tag was written </action>; it is </ACTION> (accepted).",
      "The tool tag <CLOCK_NOW> was matched to `clock_now` ignoring letter case; write <clock_now> exactly.",
    ]);
  });

  it("attributes on ACTION are ignored, noted", () => {
    expect(call('<ACTION id="1"><clock_now/></ACTION>').notes).toContain("Attributes on <ACTION> are ignored.");
  });

  it("a mention of <ACTION> in prose before the real block", () => {
    const r = call("I will now write the <ACTION> block:\n<ACTION><clock_now/></ACTION>");
    expect(r.toolId).toBe("clock:now");
    expect(r.notes[0]).toContain("followed by another <ACTION> tag was read as a mention");
  });

  it("a mention of <ACTION> in prose with no block at all is a reply", () => {
    const r = parse("To call a tool, use an <ACTION> tag with the tool inside.");
    expect(r.kind).toBe("text");
    if (r.kind === "text") expect(r.notes[0]).toContain("read as a mention, not as an action");
  });

  it("JSON instead of XML inside ACTION", () => {
    const e = error(act('{"tool": "clock_now", "params": {}}'));
    expect(e.code).toBe("MALFORMED_XML");
    expect(e.message).toContain("contains JSON but no tool tag");
    expect(e.message).toContain("Available tools: `world_read`");
  });

  it("an unclosed <ACTION tag before the tool tag", () => {
    const e = error("<ACTION\n<clock_now/>\n</ACTION>");
    expect(e.code).toBe("MALFORMED_XML");
    expect(e.message).toContain("the <ACTION tag is not closed with '>'");
  });

  it("Windows line endings", () => {
    expect(call("Now.\r\n<ACTION>\r\n  <world_read>\r\n    <path>a.b</path>\r\n  </world_read>\r\n</ACTION>\r\n").params).toEqual({ path: "a.b" });
  });
});

describe("special characters", () => {
  it("a bare & and a < that cannot start a tag are read as text, noted", () => {
    const r = call(act("<world_read><path>Tom & Jerry: a < b, x<5, a <= b</path></world_read>"));
    expect(r.params.path).toBe("Tom & Jerry: a < b, x<5, a <= b");
    expect(r.notes).toContain('1 bare "&" character(s) were read as literal text; wrap such values in <![CDATA[ ... ]]>.');
    expect(r.notes).toContain('3 "<" character(s) that cannot start a tag were read as literal text; wrap such values in <![CDATA[ ... ]]>.');
  });

  it("a diff without CDATA: conflict markers survive, a tag-like < is an error pointing at it", () => {
    const ok = call(act("<fs_apply_diff><file_path>a</file_path><diff>\n<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE\n</diff></fs_apply_diff>"));
    expect(ok.params.diff).toBe("<<<<<<< SEARCH\nold\n=======\nnew\n>>>>>>> REPLACE");
    const e = error("<ACTION>\n<fs_apply_diff>\n<file_path>a</file_path>\n<diff>\n+ if (a<b) { x = 1; }\n</diff>\n</fs_apply_diff>\n</ACTION>");
    expect(e).toMatchObject({ code: "MALFORMED_XML", toolId: "fs:apply-diff", line: 5, column: 11 });
    expect(e.message).toContain("(line 5, column 11): Tag 'b)' is an invalid name.");
    expect(e.message).toContain("must be wrapped in <![CDATA[ ... ]]>");
    expect(e.message).toContain("<fs_apply_diff>\n    <file_path><![CDATA[text]]></file_path>\n    <diff><![CDATA[text]]></diff>\n  </fs_apply_diff>");
  });

  it("]]> written inside CDATA without splitting it is put back together, noted", () => {
    const r = call(act("<world_read><path><![CDATA[a ]]> b]]></path></world_read>"));
    expect(r.params.path).toBe("a ]]> b");
    expect(r.notes[0]).toContain('contains "]]>" inside CDATA');
  });

  it("nested CDATA comes back as written", () => {
    expect(call(act("<world_read><path><![CDATA[outer <![CDATA[inner]]> rest]]></path></world_read>")).params.path).toBe("outer <![CDATA[inner]]> rest");
  });

  it("an empty CDATA is an empty value", () => {
    expect(call(act("<world_read><path><![CDATA[]]></path></world_read>")).params.path).toBe("");
  });

  it("unicode and emoji, in text, CDATA and attributes", () => {
    const r = call(act('<text_join separator=" · "><parts><item>你好 🌍</item><item><![CDATA[👩‍💻 <ok>]]></item></parts></text_join>'));
    expect(r.params).toEqual({ parts: ["你好 🌍", "👩‍💻 <ok>"], separator: " · " });
  });

  it("an XML declaration and comments inside ACTION", () => {
    const r = call(act('<?xml version="1.0"?>\n<!-- the time --><clock_now><!-- none --></clock_now>'));
    expect(r.toolId).toBe("clock:now");
    expect(r.notes).toContain("The XML declaration or processing instruction inside <ACTION> was ignored; it is not needed.");
  });

  it("a DOCTYPE with entities (billion laughs) is refused", () => {
    const e = error(act('<!DOCTYPE x [<!ENTITY a "aaaaaaaaaa"><!ENTITY b "&a;&a;&a;&a;">]><world_read><path>&b;</path></world_read>'));
    expect(e.code).toBe("MALFORMED_XML");
    expect(e.message).toContain("<!DOCTYPE> or <!ENTITY> are not allowed");
  });
});

describe("parameter shapes", () => {
  it("a self-closing tag for a tool without parameters", () => {
    expect(call(act("<clock_now/>")).params).toEqual({});
    expect(call(act("<clock_now></clock_now>")).params).toEqual({});
  });

  it("a parameter named like the ACTION tag", () => {
    expect(call(act("<world_update><action>delete</action><path>a.b</path></world_update>")).params).toEqual({ action: "delete", path: "a.b" });
  });

  it("the only parameter written as bare text inside the tool tag, noted", () => {
    const r = call(act("<fs_read_one>src/a.ts</fs_read_one>"));
    expect(r.params).toEqual({ path: "src/a.ts" });
    expect(r.notes[0]).toContain("was read as its only parameter <path>");
  });

  it("bare text inside a tool with several parameters is an error", () => {
    expect(error(act("<math_add>1 + 2</math_add>")).message).toContain("contains text outside any parameter tag");
  });

  it("whitespace-only values", () => {
    expect(call(act("<world_read><path>   </path></world_read>")).params.path).toBe("");
    expect(error(act("<math_add><a> </a><b>1</b></math_add>")).message).toContain("expected a number, got an empty value");
  });

  it("numbers and booleans written loosely", () => {
    expect(call(act("<math_add><a>+3</a><b>.5</b></math_add>")).params).toEqual({ a: 3, b: 0.5 });
    expect(error(act("<math_add><a>1,000</a><b>1</b></math_add>")).code).toBe("INVALID_PARAMS");
    expect(error(act("<math_add><a>0x10</a><b>1</b></math_add>")).code).toBe("INVALID_PARAMS");
    expect(error(act("<fs_apply_diff><file_path>a</file_path><diff>d</diff><dry_run>yes</dry_run></fs_apply_diff>")).message).toContain('expected true or false, got string "yes"');
  });

  it("a single value for a list parameter becomes a one-item list, noted", () => {
    const r = call(act("<text_join><parts>alone</parts></text_join>"));
    expect(r.params.parts).toEqual(["alone"]);
    expect(r.notes[0]).toContain("was read as a list of one item");
  });

  it("an object parameter from child tags, from JSON, or empty", () => {
    expect(call(act("<world_update><action>set</action><path>p</path><value><a>1</a><b><item>x</item></b></value></world_update>")).params.value).toEqual({ a: "1", b: ["x"] });
    expect(call(act('<world_update><action>set</action><path>p</path><value>{"a": [1, true]}</value></world_update>')).params.value).toEqual({ a: [1, true] });
    expect(call(act("<world_update><action>set</action><path>p</path><value/></world_update>")).params.value).toBe("");
  });

  it("a JSON list whose items have the wrong type", () => {
    expect(error(act('<text_join><parts><![CDATA[["a", {"b": 1}]]]></parts></text_join>')).message).toContain("<parts>[1] (line 1, column 20): expected text, got an object");
  });

  it("a misspelt tool with misspelt parameters gets both suggestions", () => {
    const e = error(act("<world_reed><pth>a</pth></world_reed>"));
    expect(e.code).toBe("UNKNOWN_TOOL");
    expect(e.message).toContain("Did you mean `world_read`");
  });

  it("a tool name in another script", () => {
    const e = error(act("<读取><path>a</path></读取>"));
    expect(e.code).toBe("UNKNOWN_TOOL");
    expect(e.message).toContain("Unknown tool <读取>");
    expect(e.message).toContain("A call looks like this:\n<ACTION>\n  <world_read>");
  });
});

describe("hostile input", () => {
  it("prototype keys never pollute anything", () => {
    for (const text of [
      act("<__proto__><polluted>1</polluted></__proto__>"),
      act("<world_read><constructor>1</constructor><path>a</path></world_read>"),
      act("<world_update><action>set</action><path>p</path><value><prototype>1</prototype></value></world_update>"),
    ]) {
      expect(parse(text).kind).toBe("error");
    }
    const r = call(act('<world_update><action>set</action><path>p</path><value><![CDATA[{"__proto__": {"polluted": 1}}]]></value></world_update>'));
    expect(Object.getPrototypeOf(r.params.value)).toBe(Object.prototype);
    expect(({} as Record<string, unknown>).polluted).toBeUndefined();
  });

  it("very deep nesting is an error, not a crash", () => {
    const e = error(act(`<world_read><path>${"<a>".repeat(5000)}x${"</a>".repeat(5000)}</path></world_read>`));
    expect(e.code).toBe("MALFORMED_XML");
    expect(e.message).toContain("nested more than 64 levels deep");
  });

  it("huge values come back whole", () => {
    const big = "line <x> & ]]\n".repeat(200_000);
    const r = call(act(`<fs_apply_diff><file_path>a</file_path><diff><![CDATA[${big}]]></diff></fs_apply_diff>`));
    expect(r.params.diff).toBe(big);
    const text = "word ".repeat(400_000).trim();
    expect(call(act(`<world_read><path>${text}</path></world_read>`)).params.path).toBe(text);
  });

  it("pathological markdown and tags stay fast enough to finish (linear scans)", () => {
    const backticks = Array.from({ length: 2000 }, (_, i) => "`".repeat((i % 50) + 1) + "x").join("");
    expect(parse(backticks + act("<clock_now/>")).kind).toBe("call");
    const flood = parse("<ACTION> ".repeat(50_000));
    expect(flood.kind === "error" && flood.message).toContain("more than 64 <ACTION> tags");
    expect(parse("`a` <ACTION> <action> ".repeat(50_000)).kind).toBe("error");
    expect(parse("<!-- ".repeat(50_000) + act("<clock_now/>")).kind).toBe("call");
    expect(parse("<think>".repeat(50_000)).kind).toBe("text");
    expect(parse("```\n".repeat(50_000)).kind).toBe("text");
    expect(parse("</ACTION>".repeat(50_000)).kind).toBe("error");
    expect(parse(act("<![CDATA[".repeat(50_000))).kind).toBe("error");
  });

  it("non-string input does not throw", () => {
    expect(parseAction(undefined as unknown as string, manifest).kind).toBe("text");
    expect(parseAction(42 as unknown as string, manifest)).toEqual({ kind: "text", responseText: "42", notes: [], quoted: [] });
  });

  it("an empty manifest answers every call with UNKNOWN_TOOL and says no tools exist", () => {
    const e = parseAction(act("<clock_now/>"), []);
    expect(e.kind === "error" && e.code).toBe("UNKNOWN_TOOL");
    if (e.kind === "error") expect(e.message).toContain("No tools or skills are available to you");
  });
});

import fc from "fast-check";
import { describe, expect, it } from "vitest";
import { z } from "zod";
import type { ManifestEntry } from "../manifest/entry.ts";
import { fixtureManifest } from "../test-support.ts";
import { parseAction } from "./parse-action.ts";
import { ParseResultSchema } from "./result.ts";

/**
 * Whatever the input: parseAction never throws, always returns a well-formed result, and a `call`
 * always names a manifest tool with parameters that an independent validator (zod's JSON Schema
 * import) accepts.
 */
const manifest = fixtureManifest();
const oracles = new Map(manifest.entries.map((e) => [`${e.kind}:${e.id}`, z.fromJSONSchema(e.inputSchema as Parameters<typeof z.fromJSONSchema>[0])]));

function assertSafe(text: string): void {
  const r = parseAction(text, manifest);
  expect(ParseResultSchema.safeParse(r).success).toBe(true);
  if (r.kind !== "call") return;
  const entry: ManifestEntry | undefined = manifest.getById(r.toolId, r.toolKind);
  expect(entry, `unknown tool ${r.toolId}`).toBeDefined();
  const checked = oracles.get(`${r.toolKind}:${r.toolId}`)!.safeParse(r.params);
  expect(checked.success, `${text}\n=> ${JSON.stringify(r.params)}`).toBe(true);
}

const TOKENS = [
  "<ACTION>",
  "</ACTION>",
  "<action>",
  "</Action>",
  "<ACTION/>",
  "<ACTION",
  "<![CDATA[",
  "]]>",
  "]]]]><![CDATA[>",
  "<!--",
  "-->",
  "<think>",
  "</think>",
  "<thinking>",
  "```",
  "```xml\n",
  "~~~",
  "`",
  "\n",
  " ",
  "x",
  "42",
  "true",
  "&",
  "&amp;",
  "&lt;",
  "&#60;",
  "&#x1F600;",
  "<",
  ">",
  "/>",
  "=",
  '"',
  "'",
  '<?xml version="1.0"?>',
  "<!DOCTYPE x>",
  "<item>",
  "</item>",
  "<world_read>",
  "</world_read>",
  "<path>",
  "</path>",
  "<default_value>",
  "</default_value>",
  "<math_add>",
  "</math_add>",
  "<a>",
  "</a>",
  "<b>",
  "</b>",
  "<precision>",
  "</precision>",
  "<text_join>",
  "</text_join>",
  "<parts>",
  "</parts>",
  "<clock_now/>",
  "<clock_now>",
  "</clock_now>",
  "<world_update>",
  "</world_update>",
  "<action>set</action>",
  "<value>",
  "</value>",
  '{"a": 1}',
  "[1, 2]",
  "<llm_chat>",
  "</llm_chat>",
  "<messages>",
  "</messages>",
  "<role>",
  "</role>",
  "user",
  "<__proto__>",
  "<constructor>",
  "😀",
  "你好",
];

const VALID = [
  "Checking.\n<ACTION>\n  <world_read>\n    <path>a.b</path>\n    <default_value>0</default_value>\n  </world_read>\n</ACTION>",
  "<ACTION><math_add><a>1.5</a><b>2</b><precision>3</precision></math_add></ACTION>",
  "<ACTION><text_join><parts><item>a</item><item>b</item></parts><separator><![CDATA[ & ]]></separator></text_join></ACTION>",
  '<ACTION><world_update><action>set</action><path>p</path><value><![CDATA[{"k": [1, "<x>"]}]]></value></world_update></ACTION>',
  "<think>hmm</think>Time?\n<ACTION><clock_now/></ACTION>\nDone.",
  '<ACTION><llm_chat><messages><![CDATA[[{"role": "user", "content": "hi"}]]]></messages><strict>true</strict></llm_chat></ACTION>',
];

const mutation = fc.oneof(
  fc.record({ op: fc.constant("delete" as const), at: fc.nat(), len: fc.integer({ min: 1, max: 24 }) }),
  fc.record({ op: fc.constant("insert" as const), at: fc.nat(), token: fc.constantFrom(...TOKENS) }),
  fc.record({ op: fc.constant("truncate" as const), at: fc.nat() }),
  fc.record({ op: fc.constant("duplicate" as const), at: fc.nat(), len: fc.integer({ min: 1, max: 40 }) }),
  fc.record({ op: fc.constant("case" as const), at: fc.nat(), len: fc.integer({ min: 1, max: 12 }) }),
);
type Mutation = typeof mutation extends fc.Arbitrary<infer M> ? M : never;

function mutate(text: string, m: Mutation): string {
  const at = text.length === 0 ? 0 : m.at % (text.length + 1);
  switch (m.op) {
    case "delete":
      return text.slice(0, at) + text.slice(at + m.len);
    case "insert":
      return text.slice(0, at) + m.token + text.slice(at);
    case "truncate":
      return text.slice(0, at);
    case "duplicate":
      return text.slice(0, at + m.len) + text.slice(at, at + m.len) + text.slice(at + m.len);
    case "case": {
      const part = text.slice(at, at + m.len);
      const flipped = part === part.toUpperCase() ? part.toLowerCase() : part.toUpperCase();
      return text.slice(0, at) + flipped + text.slice(at + m.len);
    }
    default: {
      const never: never = m;
      return never;
    }
  }
}

/** Well-formed actions with random tools, parameter names, values and encodings. */
const paramNames = [...new Set(manifest.entries.flatMap((e) => e.params.map((p) => p.name))), "pth", "Path", "valu", "role", "content"];
const toolTags = manifest.entries.flatMap((e) => [e.name, e.id, e.name.toUpperCase(), `${e.name}s`]);
const scalar = fc.oneof(
  fc.constantFrom("1", "2.5", "-3", "1e3", "true", "False", "abc", "", " ", "set", "upper", "user", "null", "[1,2]", '["a"]', '{"a":1}', '[{"role":"user","content":"x"}]', "a & b", "x < y"),
  fc.string({ maxLength: 6 }),
);
const cdata = fc.string({ unit: "grapheme", maxLength: 12 }).map((s) => `<![CDATA[${s.replaceAll("]]>", "]]]]><![CDATA[>")}]]>`);
const { value } = fc.letrec<{ value: string; items: string; object: string }>((tie) => ({
  value: fc.oneof({ depthSize: "small" }, scalar, cdata, tie("items"), tie("object")),
  items: fc.array(tie("value"), { maxLength: 3 }).map((vs) => vs.map((v) => `<item>${v}</item>`).join("")),
  object: fc.array(fc.tuple(fc.constantFrom(...paramNames), tie("value")), { maxLength: 3 }).map((kv) => kv.map(([k, v]) => `<${k}>${v}</${k}>`).join("")),
}));
const generatedAction = fc
  .tuple(fc.constantFrom(...toolTags), fc.array(fc.tuple(fc.constantFrom(...paramNames), value), { maxLength: 5 }))
  .map(([tool, params]) => `Reason.\n<ACTION>\n<${tool}>${params.map(([k, v]) => `<${k}>${v}</${k}>`).join("\n")}</${tool}>\n</ACTION>`);

describe("parseAction under fuzzing", () => {
  it("generated actions: a call only when the independent validator agrees", () => {
    fc.assert(fc.property(generatedAction, assertSafe), { numRuns: 1500 });
  });

  it("arbitrary strings", () => {
    fc.assert(fc.property(fc.string({ unit: "binary", maxLength: 400 }), assertSafe), { numRuns: 400 });
    fc.assert(
      fc.property(
        fc.string({ unit: "grapheme", maxLength: 200 }).map((s) => `<ACTION>${s}</ACTION>`),
        assertSafe,
      ),
      { numRuns: 300 },
    );
  });

  it("soups of protocol tokens", () => {
    fc.assert(
      fc.property(
        fc.array(fc.constantFrom(...TOKENS), { maxLength: 60 }).map((t) => t.join("")),
        assertSafe,
      ),
      { numRuns: 1500 },
    );
  });

  it("mutated valid actions", () => {
    for (const valid of VALID) expect(parseAction(valid, manifest).kind, valid).toBe("call");
    fc.assert(
      fc.property(fc.constantFrom(...VALID), fc.array(mutation, { minLength: 1, maxLength: 5 }), (valid, ms) => assertSafe(ms.reduce(mutate, valid))),
      { numRuns: 2000 },
    );
  });

  it("any string survives a CDATA round trip byte for byte", () => {
    fc.assert(
      fc.property(fc.string({ unit: "binary", maxLength: 300 }), (value) => {
        const cdata = `<![CDATA[${value.replaceAll("]]>", "]]]]><![CDATA[>")}]]>`;
        const r = parseAction(`Go.\n<ACTION><world_read><path>${cdata}</path></world_read></ACTION>`, manifest);
        expect(r.kind === "call" && r.params.path).toBe(value);
      }),
      { numRuns: 500 },
    );
  });

  it("any finite number survives as text where the schema asks for a number", () => {
    fc.assert(
      fc.property(fc.double({ noNaN: true, noDefaultInfinity: true }), fc.integer({ min: 0, max: 10 }), (a, precision) => {
        const r = parseAction(`<ACTION><math_add><a>${a}</a><b> ${-a} </b><precision>${precision}</precision></math_add></ACTION>`, manifest);
        expect(r.kind === "call" && r.params).toEqual({ a: Number(String(a)), b: Number(String(-a)), precision });
      }),
      { numRuns: 300 },
    );
  });
});

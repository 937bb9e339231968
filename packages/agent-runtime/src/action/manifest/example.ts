import type { ManifestEntry, ManifestParam } from "./entry.ts";

/** A parameter as written inside an example: its tag name and XML content. */
export interface ExampleParam {
  name: string;
  xml: string;
}

/** Text as XML content: CDATA when it holds markup characters or line breaks (`]]>` split safely). */
export function xmlContent(value: string): string {
  if (!/[<>&\n]/.test(value)) return value;
  return `<![CDATA[${value.replaceAll("]]>", "]]]]><![CDATA[>")}]]>`;
}

const PLACEHOLDER_BY_TYPE: Record<ManifestParam["type"], string> = {
  string: "text",
  number: "1.5",
  integer: "1",
  boolean: "true",
  json: '<![CDATA[{"key": "value"}]]>',
  array: "<item>value</item><item>another value</item>",
  messages: '<![CDATA[[{"role": "user", "content": "Hello"}]]]>',
  image: '<![CDATA[{"mimeType": "image/png", "data": "<base64>"}]]>',
  file: '<![CDATA[{"mimeType": "application/pdf", "name": "report.pdf", "data": "<base64>"}]]>',
  any: "value",
};

/** A plausible value for `param`: its first option, its default, or a placeholder of its type. */
export function exampleParamXml(param: ManifestParam): string {
  const one = exampleScalar(param);
  return param.multi ? `<item>${one}</item>` : one;
}

function exampleScalar(param: ManifestParam): string {
  if (param.options && param.options.length > 0) return xmlContent(String(param.options[0]));
  const d = param.default;
  if (typeof d === "string" && d !== "" && d.length <= 40) return xmlContent(d);
  if (typeof d === "number" || typeof d === "boolean") return String(d);
  return PLACEHOLDER_BY_TYPE[param.type];
}

const JSON_PLACEHOLDER_BY_TYPE: Record<ManifestParam["type"], unknown> = {
  string: "text",
  number: 1.5,
  integer: 1,
  boolean: true,
  json: { key: "value" },
  array: ["value"],
  messages: [{ role: "user", content: "Hello" }],
  image: { mimeType: "image/png", data: "<base64>" },
  file: { mimeType: "application/pdf", name: "report.pdf", data: "<base64>" },
  any: "value",
};

/** A plausible value for `param` in native tool-call arguments. */
export function exampleJsonValue(param: ManifestParam): unknown {
  const one = param.options && param.options.length > 0 ? param.options[0] : param.default !== undefined ? param.default : JSON_PLACEHOLDER_BY_TYPE[param.type];
  return param.multi ? [one] : one;
}

/** The parameters an example shows: the required ones, or the first one when none is required. */
export function exampleParams(entry: ManifestEntry): ExampleParam[] {
  const shown = entry.params.filter((p) => p.required);
  if (shown.length === 0 && entry.params.length > 0) shown.push(entry.params[0]!);
  return shown.map((p) => ({ name: p.name, xml: exampleParamXml(p) }));
}

/** `<ACTION><name><p>v</p></name></ACTION>`, on one line (`inline`) or indented (`block`). */
export function renderActionExample(toolName: string, params: readonly ExampleParam[], style: "inline" | "block"): string {
  if (style === "inline") {
    const inner = params.length === 0 ? `<${toolName}/>` : `<${toolName}>${params.map((p) => `<${p.name}>${p.xml}</${p.name}>`).join("")}</${toolName}>`;
    return `<ACTION>${inner}</ACTION>`;
  }
  if (params.length === 0) return `<ACTION>\n  <${toolName}/>\n</ACTION>`;
  const lines = params.map((p) => `    <${p.name}>${p.xml}</${p.name}>`);
  return `<ACTION>\n  <${toolName}>\n${lines.join("\n")}\n  </${toolName}>\n</ACTION>`;
}

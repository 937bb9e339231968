// @vitest-environment happy-dom
import { describe, expect, it } from "vitest";
import { ConfigFieldSchema, PortSpecSchema } from "@weft/types";
import { isShortWidget, placeholderOf, showConfigInline, widgetForConfig, widgetForPort } from "./widget-kind.ts";

const port = (input: Parameters<typeof PortSpecSchema.parse>[0]) => PortSpecSchema.parse(input);

describe("inline widgets", () => {
  it("picks the editor from the port type, its options and multiline flag", () => {
    expect(widgetForPort(port({ id: "a", type: "string" })).kind).toBe("text");
    expect(widgetForPort(port({ id: "a", type: "string", multiline: true })).kind).toBe("multiline");
    expect(widgetForPort(port({ id: "a", type: "integer", min: 1, max: 5 }))).toMatchObject({ kind: "integer", min: 1, max: 5 });
    expect(widgetForPort(port({ id: "a", type: "string", options: ["x", "y"] }))).toMatchObject({ kind: "select", options: ["x", "y"] });
    for (const type of ["json", "array", "messages", "any"] as const) expect(widgetForPort(port({ id: "a", type })).kind).toBe("json");
    expect(widgetForConfig(ConfigFieldSchema.parse({ id: "c", kind: "code", language: "js" }))).toMatchObject({ kind: "code", language: "js" });
  });

  it("shows the default as placeholder and keeps long editors on their own line", () => {
    expect(placeholderOf(widgetForPort(port({ id: "a", type: "number", default: 3 })), "number")).toBe("default: 3");
    expect(placeholderOf(widgetForPort(port({ id: "a", type: "string" })), "string")).toBe("string");
    expect(placeholderOf(widgetForPort(port({ id: "a", type: "string", default: "" })), "string")).toBe("string");
    expect(placeholderOf(widgetForPort(port({ id: "a", type: "string", default: " " })), "string")).toBe('default: " "');
    expect(isShortWidget({ kind: "select" })).toBe(true);
    expect(isShortWidget({ kind: "multiline" })).toBe(false);
    expect(showConfigInline("core:workflow-input", "description")).toBe(false);
    expect(showConfigInline("core:workflow-input", "name")).toBe(true);
  });
});

import { describe, expect, it } from "vitest";
import { InterfaceNodeConfigSchema, NodeFailure } from "@weft/types";
import { coerceText, interfaceConfigFields, readInterfaceConfig } from "./interface-config.ts";

describe("interface node config", () => {
  it("declares the fields of InterfaceNodeConfigSchema", () => {
    const schemaKeys = Object.keys(InterfaceNodeConfigSchema.shape).sort();
    expect(
      interfaceConfigFields("input")
        .map((f) => f.id)
        .sort(),
    ).toEqual(schemaKeys);
    expect(interfaceConfigFields("output").map((f) => f.id)).toEqual(["name", "portType", "description"]);
  });

  it("reads a valid config with defaults and refuses an invalid one", () => {
    expect(readInterfaceConfig("core:workflow-input", { name: "topic" })).toEqual({ name: "topic", portType: "any", required: false, description: "" });
    expect(() => readInterfaceConfig("core:workflow-input", { name: "t", portType: "float" })).toThrow(NodeFailure);
  });

  it("converts only text, and only when it reads as the declared type", () => {
    expect(coerceText("2.5", "number")).toBe(2.5);
    expect(coerceText("7", "integer")).toBe(7);
    expect(coerceText("", "number")).toBe("");
    expect(coerceText("abc", "number")).toBe("abc");
    expect(coerceText("yes", "boolean")).toBe("yes");
    expect(coerceText("not json", "messages")).toBe("not json");
    expect(coerceText(5, "string")).toBe(5);
    expect(coerceText("5", "string")).toBe("5");
  });
});

import { describe, expect, it } from "vitest";
import { NodeSpecSchema } from "@weft/types";
import { fieldEditLabel, idInWords } from "./edit-labels.ts";

const spec = NodeSpecSchema.parse({
  type: "core:workflow-input",
  title: "Workflow input",
  inputs: [{ id: "value", type: "any", label: "Value" }],
  config: [
    { id: "portType", kind: "select", label: "Port type" },
    { id: "url", kind: "text", label: "URL" },
  ],
});

describe("undo history labels", () => {
  it("name the field as the node shows it and the node by its title", () => {
    expect(fieldEditLabel("Workflow input", spec, "config", "portType")).toBe("Changed the port type of Workflow input");
    expect(fieldEditLabel("Fetch", spec, "config", "url")).toBe("Changed the URL of Fetch");
    expect(fieldEditLabel("Topic", spec, "inputs", "value")).toBe("Changed the value of Topic");
  });

  it("read a field without a label from its id, in words", () => {
    expect(fieldEditLabel("Map", undefined, "config", "itemInput")).toBe("Changed the item input of Map");
    expect(idInWords("max_items")).toBe("max items");
  });
});

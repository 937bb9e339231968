import { describe, expect, it } from "vitest";
import { portDots } from "./port-dots.ts";

describe("a palette entry's port dots", () => {
  it("paints a dot per port, inputs from the left and outputs from the right, in their type's colour", () => {
    const dots = portDots({
      inputs: [
        { id: "text", type: "string" },
        { id: "vars", type: "json" },
      ],
      outputs: [{ id: "result", type: "number" }],
    });
    expect(dots.style.paddingLeft).toBe("20px");
    expect(dots.style.paddingRight).toBe("10px");
    const layers = dots.style.background.split(", radial");
    expect(layers).toHaveLength(3);
    expect(layers[0]).toContain("var(--port-string)");
    expect(layers[0]).toContain("left 0px center");
    expect(layers[1]).toContain("var(--port-json)");
    expect(layers[1]).toContain("left 10px center");
    expect(layers[2]).toContain("var(--port-number)");
    expect(layers[2]).toContain("right 0px center");
    expect(dots.title).toBe("in text: string\nin vars: json\nout result: number");
  });

  it("paints nothing for a node without ports", () => {
    expect(portDots({ inputs: [], outputs: [] })).toEqual({ style: { paddingLeft: "0px", paddingRight: "0px" }, title: "" });
  });
});

import { describe, expect, it } from "vitest";
import type { WorkflowInput } from "../../packages/types/src/index.ts";
import { connect, edgeCount, node, texts } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { useWeft } from "./support/weft.ts";

const weft = useWeft();

// A string wired into an array input (stored as is: saving does not refuse a graph), and a second array input to wire by hand.
const mismatched: WorkflowInput = {
  id: "mismatched",
  name: "Mismatched",
  nodes: [
    { id: "txt", type: "core:const-text", position: { x: 0, y: 0 }, config: { value: "a,b" } },
    { id: "len", type: "core:array-length", position: { x: 420, y: 0 } },
    { id: "len2", type: "core:array-length", position: { x: 420, y: 320 } },
    // Below len2, so its port is not at the canvas's edge, where a held drag pans the canvas away from the pointer.
    { id: "spacer", type: "core:const-number", position: { x: 420, y: 640 }, config: { value: 1 } },
  ],
  edges: [{ id: "bad", source: "txt", sourceHandle: "value", target: "len", targetHandle: "items" }],
};

describe("problems in the user's words", () => {
  it("names nodes by title, jumps to the node, and fixes a type mismatch by inserting the converter", async () => {
    const { page } = weft;
    await weft.createWorkflow(mismatched);
    await page.goto(weft.url);
    await poll(() => node(page, "len").count()).toBe(1);

    await page.getByRole("button", { name: "Validate" }).click();
    const list = page.locator(".workflow-settings .issues");
    await poll(() => list.textContent()).toContain("“Text” gives a string but “Array length” takes an array in “Array”");
    expect(await list.textContent()).not.toMatch(/\/api\/|"txt"|edge "bad"/);

    await list.getByRole("button", { name: "Jump to node" }).first().click();
    await poll(() => node(page, "len").getAttribute("class")).toContain("selected");

    // The suggested converter goes in between, wired through; the mismatch is gone (len2's empty input stays).
    await page.locator(".vue-flow__pane").click({ position: { x: 20, y: 20 } });
    await list.getByRole("button", { name: "Insert Split text" }).click();
    await poll(() => node(page, "text_split_1").count()).toBe(1);
    await page.locator(".vue-flow__pane").click({ position: { x: 20, y: 20 } });
    await page.getByRole("button", { name: "Validate" }).click();
    await poll(() => list.textContent()).not.toContain("gives a string");
    expect(await list.textContent()).toContain("“Array length” needs a value for “Array”");

    // A refused connection offers the same fix in its message.
    const before = await edgeCount(page);
    // Released only once the canvas shows the refusal under the pointer: the drop is then surely on the port.
    await connect(page, ["txt", "value"], ["len2", "items"], { release: false });
    await poll(() => texts(page, ".connection-refusal")).toContain("a string output cannot feed an array input");
    await page.mouse.up();
    await poll(() => texts(page, ".toast")).toContain("Not connected: a string output cannot feed an array input");
    await page.locator(".toast").getByRole("button", { name: "Insert Split text" }).click();
    await poll(() => node(page, "text_split_2").count()).toBe(1);
    await poll(() => edgeCount(page)).toBe(before + 2);
  });
});

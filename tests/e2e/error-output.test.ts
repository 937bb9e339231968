import { describe, expect, it } from "vitest";
import type { WorkflowInput } from "../../packages/types/src/index.ts";
import { connect, handle, inspectRun, node, openFromList, texts } from "./support/canvas.ts";
import { RunListSchema } from "../../apps/frontend/src/shared/api/schemas.ts";
import { poll } from "./support/poll.ts";
import { useWeft } from "./support/weft.ts";

const weft = useWeft();

/** Broken JSON into Parse JSON; a JSON writer beside it, not wired yet, to take the error. */
const orders: WorkflowInput = {
  id: "orders-errors",
  name: "Orders with an error path",
  nodes: [
    { id: "raw", type: "core:const-text", label: "Order text", position: { x: 0, y: 0 }, config: { value: '{"a": bad}' } },
    { id: "parse", type: "core:json-parse", position: { x: 320, y: 0 } },
    { id: "report", type: "core:json-stringify", label: "Report", position: { x: 680, y: 0 } },
  ],
  edges: [{ id: "e1", source: "raw", sourceHandle: "value", target: "parse", targetHandle: "text" }],
};

describe("a node's error output in the editor", () => {
  it("chooses 'continue on the error output' in the inspector, wires the $error port, runs, shows the handled error, and picks an error workflow", async () => {
    const { page } = weft;
    await weft.createWorkflow({ id: "on-failure", name: "On failure", nodes: [] });
    await weft.createWorkflow(orders);
    await page.goto(weft.url, { timeout: 30_000 });
    await openFromList(page, "orders-errors");
    await poll(() => node(page, "parse").count()).toBe(1);
    // No error port until it is chosen.
    expect(await handle(page, "parse", "$error", "output").count()).toBe(0);

    await node(page, "parse").locator(".node-title").click();
    await page.getByRole("combobox", { name: "When it fails" }).selectOption("route");
    await poll(() => page.getByTestId("error-output-note").count()).toBe(1);
    await poll(() => handle(page, "parse", "$error", "output").count()).toBe(1);
    expect(await handle(page, "parse", "$error", "output").getAttribute("data-port-type")).toBe("json");

    await connect(page, ["parse", "$error"], ["report", "value"]);
    await poll(async () => (await weft.page.locator(".vue-flow__edge").count()) >= 2).toBe(true);

    await page.locator(".vue-flow__pane").click({ position: { x: 10, y: 10 } });
    await page.keyboard.press("Control+Enter");
    // The run completes: the error went on as data.
    const lastStatus = async () => (await weft.read("/api/runs?workflowId=orders-errors&limit=1", RunListSchema)).runs[0]?.status;
    await poll(lastStatus, { timeout: 30_000 }).toBe("completed");

    await inspectRun(page, "parse");
    await poll(() => page.getByTestId("inspector-handled").count()).toBe(1);
    expect(await texts(page, "[data-testid=inspector-error]")).toContain("handled: sent on the $error output");
    expect(await texts(page, "[data-testid=inspector-outputs]")).toContain("Parse JSON");

    // The downstream node got the error as its input.
    await inspectRun(page, "report");
    await poll(() => page.getByTestId("inspector-status").textContent()).toBe("completed");
    expect(await texts(page, "[data-testid=inspector-outputs]")).toContain("INVALID_JSON");

    // The workflow's settings (nothing selected) name an error workflow, chosen from the saved ones.
    await page.locator(".vue-flow__pane").click({ position: { x: 10, y: 10 } });
    await page.getByRole("combobox", { name: "Error workflow" }).selectOption("on-failure");

    // Saved: the stored workflow has the policy, the edge and the error workflow.
    await page.keyboard.press("Control+s");
    await poll(async () => {
      const stored = await weft.storedWorkflow("orders-errors");
      return (
        stored.edges.some((e) => e.source === "parse" && e.sourceHandle === "$error") &&
        stored.nodes.find((n) => n.id === "parse")?.policy?.onError === "route" &&
        stored.errorWorkflowId === "on-failure"
      );
    }).toBe(true);
  });
});

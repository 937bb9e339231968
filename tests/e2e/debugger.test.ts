import { describe, expect, it } from "vitest";
import type { WorkflowInput } from "../../packages/types/src/index.ts";
import { clearPaletteSearch, inspectRun, node, openFromList, searchPalette, texts } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { useWeft } from "./support/weft.ts";
import { RunListSchema } from "../../apps/frontend/src/shared/api/schemas.ts";

const weft = useWeft({}, async () => {
  await weft.createWorkflow(debugWorkflow);
  await weft.createWorkflow(slowWorkflow);
});

const mod = process.platform === "darwin" ? "Meta" : "Control";

/** name → "Hello, {{0}}!" → UPPER → output, and an LLM reply; beside it a JSON parse that fails and a node that is skipped. */
const debugWorkflow: WorkflowInput = {
  id: "debug-me",
  name: "Debug me",
  nodes: [
    { id: "in_name", type: "core:workflow-input", position: { x: 0, y: 0 }, config: { name: "name", portType: "string", required: true } },
    { id: "greet", type: "core:text-template", position: { x: 320, y: 0 }, config: { template: "Hello, {{0}}!" } },
    { id: "shout", type: "core:text-transform", position: { x: 640, y: 0 }, config: { case: "upper" } },
    { id: "out_greeting", type: "core:workflow-output", position: { x: 960, y: 0 }, config: { name: "greeting", portType: "string" } },
    { id: "reply", type: "llm:chat", position: { x: 640, y: 260 } },
    { id: "raw", type: "core:const-text", position: { x: 0, y: 520 }, config: { value: '{"a": 1,' } },
    { id: "parse", type: "core:json-parse", position: { x: 320, y: 520 } },
    { id: "pick", type: "core:get-path", position: { x: 640, y: 520 }, inputs: { path: "a" } },
  ],
  edges: [
    { id: "e1", source: "in_name", sourceHandle: "value", target: "greet", targetHandle: "values" },
    { id: "e2", source: "greet", sourceHandle: "text", target: "shout", targetHandle: "text" },
    { id: "e3", source: "shout", sourceHandle: "text", target: "out_greeting", targetHandle: "value" },
    { id: "e4", source: "greet", sourceHandle: "text", target: "reply", targetHandle: "prompt" },
    { id: "e5", source: "raw", sourceHandle: "value", target: "parse", targetHandle: "text" },
    { id: "e6", source: "parse", sourceHandle: "value", target: "pick", targetHandle: "value" },
  ],
};

/**
 * Two waits in a row: long enough to reload the page in the middle of the run. The second is the longer: on a
 * loaded machine the reload alone took longer than 1.5 s, and the page came back to a run already finished.
 */
const slowWorkflow: WorkflowInput = {
  id: "slow",
  name: "Slow",
  nodes: [
    { id: "first", type: "core:delay", position: { x: 0, y: 0 }, inputs: { value: "x", ms: 1500 } },
    { id: "second", type: "core:delay", position: { x: 320, y: 0 }, inputs: { ms: 8000 } },
  ],
  edges: [{ id: "e", source: "first", sourceHandle: "value", target: "second", targetHandle: "value" }],
};

const status = (id: string) => node(weft.page, id).locator(".weft-node").getAttribute("data-status", { timeout: 2000 });

async function openWorkflow(id: string) {
  const { page } = weft;
  await openFromList(page, id);
  await poll(() => page.locator(".vue-flow__node-weft").count()).toBeGreaterThan(1);
}

describe("running and debugging in the browser", () => {
  it("runs with interface inputs and shows every node's status, outputs, error and skip reason", async () => {
    const { page } = weft;
    // The first load parses the whole editor: slower than the default limit when the machine is busy.
    await page.goto(weft.url, { timeout: 30_000 });
    await openWorkflow("debug-me");
    // A text template's `template` is both an input and a setting: it is edited once, in the setting.
    expect(await node(page, "greet").locator(".port-row.input").filter({ hasText: "Template" }).locator("textarea, input").count()).toBe(0);
    expect(await node(page, "greet").locator(".config-row").filter({ hasText: "Template" }).locator("textarea").inputValue()).toBe("Hello, {{0}}!");

    await page.locator('[data-testid="run"]').click();
    const nameField = page.locator(".run-dialog textarea");
    await nameField.fill("Grace");
    await page.locator('.run-dialog button[type="submit"]').click();

    await poll(() => texts(page, '[data-testid="run-status"]'), { timeout: 15_000 }).toMatch(/^(completed|failed)$/);
    expect(await status("shout")).toBe("completed");
    expect(await status("out_greeting")).toBe("completed");
    expect(await status("reply")).toBe("completed");
    expect(await status("parse")).toBe("failed");
    expect(await status("pick")).toBe("skipped");
    // The skip reason is on the node (on hover) and names the cause.
    expect(await node(page, "pick").locator(".node-status").getAttribute("title")).toContain("parse");
    // The failed node says why on the canvas itself.
    expect(await texts(page, '.vue-flow__node[data-id="parse"] .node-run')).toMatch(/\w+: .+/);

    await inspectRun(page, "shout");
    await poll(() => texts(page, '[data-testid="inspector-status"]')).toBe("completed");
    expect(await texts(page, '[data-testid="inspector-outputs"]')).toContain('"HELLO, GRACE!"');
    expect(await texts(page, '[data-testid="node-run-details"]')).toContain('"Hello, Grace!"'); // its input

    await inspectRun(page, "parse");
    const error = await texts(page, '[data-testid="inspector-error"]');
    expect(error).toContain("Invalid JSON");
    expect(error).toContain("parse · INVALID_JSON"); // the id and code as secondary text

    await inspectRun(page, "pick");
    expect(await texts(page, ".skip-reason")).toContain("parse");

    await inspectRun(page, "reply");
    expect(await texts(page, '[data-testid="node-run-details"]')).toMatch(/Streamed \(\d+ chunks\)/);

    expect(await texts(page, '[data-testid="run-outputs"]')).toContain('"HELLO, GRACE!"');
  });

  it("re-runs with the remembered inputs (unchanged nodes come from the cache) and opens a past run from the history", async () => {
    const { page } = weft;
    await page.locator(".vue-flow__pane").click({ position: { x: 20, y: 20 } });
    await page.keyboard.press(`${mod}+Enter`);
    await poll(() => page.locator(".run-dialog textarea").inputValue()).toBe("Grace");
    await page.keyboard.press(`${mod}+Enter`);
    await poll(() => page.locator('[data-testid="run-history"] li').count(), { timeout: 15_000 }).toBe(2);
    await poll(() => texts(page, '[data-testid="run-status"]'), { timeout: 15_000 }).toMatch(/^(completed|failed)$/);
    expect(await status("shout")).toBe("cached");

    const runs = await weft.read("/api/runs?workflowId=debug-me", RunListSchema);
    const older = runs.runs[1].id;
    await page.locator(`[data-testid="run-history"] li[data-run-id="${older}"]`).click();
    await poll(() => page.locator(".run-banner").getAttribute("data-run-id")).toBe(older);
    expect(await status("shout")).toBe("completed");
    expect(await status("parse")).toBe("failed");
  });

  it("follows a run again after a page reload in the middle of it, without losing or repeating events", async () => {
    const { page } = weft;
    await openWorkflow("slow");
    await page.locator('[data-testid="run"]').click();
    await poll(() => status("first")).toBe("running");
    await page.reload({ timeout: 30_000 });
    await poll(() => page.locator(".tab.active").getAttribute("data-tab-id"), { timeout: 15_000 }).toBe("slow");
    // Back on the live run: it goes on and finishes on screen.
    await poll(() => status("second"), { timeout: 15_000 }).toBe("running");
    await poll(() => texts(page, '[data-testid="run-status"]'), { timeout: 30_000 }).toBe("completed");
    expect(await status("first")).toBe("completed");
    expect(await status("second")).toBe("completed");
    await inspectRun(page, "second");
    expect(await page.locator(".invocation-tabs").count()).toBe(0); // one invocation, not a replayed duplicate
    expect(await texts(page, '[data-testid="inspector-outputs"]')).toContain('"x"');
  });

  it("shows the problems of a graph the server refuses to run on the nodes concerned, and clears them once fixed", async () => {
    const { page } = weft;
    await page.locator(".new-tab").click();
    await (await searchPalette(page, "core:text-transform")).click();
    await clearPaletteSearch(page);
    await poll(() => node(page, "text_transform_1").count()).toBe(1);

    await page.locator('[data-testid="run"]').click();
    const issue = node(page, "text_transform_1").locator(".node-issues");
    await poll(() => issue.count()).toBe(1);
    // In the user's words: the node's title, not its id, and no API advice.
    expect(await texts(page, '.vue-flow__node[data-id="text_transform_1"] .node-issues')).toContain("“Trim / change case” needs a value for “Text”");
    expect(await texts(page, ".toast")).toMatch(/Could not start .*: “Trim \/ change case” needs a value for “Text”/);
    expect(await texts(page, ".toast")).not.toContain("/api/");

    await node(page, "text_transform_1").locator(".port-row.input", { hasText: "Text" }).locator("input").fill("now it has one");
    await poll(() => issue.count(), { timeout: 5000 }).toBe(0);
    await page.locator('[data-testid="run"]').click();
    await poll(() => status("text_transform_1"), { timeout: 10_000 }).toBe("completed");
  });
});

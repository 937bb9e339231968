import { describe, expect, it } from "vitest";
import type { Page } from "playwright-core";
import { centerOf, drag, emptyPointBeside, handle, node, viewSettled } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { useWeft, type Weft } from "./support/weft.ts";

// The small window of issue 37: everything here must work at 1024×700 too.
const weft = useWeft({ viewport: { width: 1024, height: 700 } });

const offered = (page: Page) => page.locator("#quick-add-results [role=option] .quick-add-title").allTextContents();
const edges = (page: Page) => page.locator(".vue-flow__edge").evaluateAll((els) => els.map((e) => e.getAttribute("data-id") ?? e.querySelector("[data-id]")?.getAttribute("data-id") ?? ""));
const nodeIds = (page: Page) => page.locator(".vue-flow__node").evaluateAll((els) => els.map((e) => e.getAttribute("data-id") ?? ""));
const toasts = (page: Page) => page.locator(".toast").allTextContents();

async function open(weft: Weft, id: string) {
  await weft.page.goto(`${weft.url}/#/workflows/${id}`, { timeout: 60_000 });
  // A new hash alone does not load the page again: reload, so workflows made through the API since are listed.
  await weft.page.reload({ timeout: 60_000 });
  // Counted, not read: reading an attribute waits for the tab and could outlast the poll on a busy machine.
  await poll(() => weft.page.locator(`.tab.active[data-tab-id="${id}"]`).count(), { timeout: 60_000 }).toBe(1);
  await viewSettled(weft.page);
}

/** The node that appeared since `before`. */
async function added(page: Page, before: string[]): Promise<string> {
  await poll(() => nodeIds(page).then((ids) => ids.length)).toBe(before.length + 1);
  const [id] = (await nodeIds(page)).filter((i) => !before.includes(i));
  return id as string;
}

/** A node's position in flow units, as Vue Flow draws it. */
const positionOf = (page: Page, id: string) =>
  node(page, id).evaluate((el) => {
    const m = /translate\(([-\d.]+)px, ?([-\d.]+)px\)/.exec((el as HTMLElement).style.transform);
    return { x: Number(m?.[1]), y: Number(m?.[2]) };
  });

/** The edges drawn in the stored workflow's open tab, as "source.port->target.port" (Vue Flow's edge ids). */
async function edgeIds(page: Page): Promise<string[]> {
  return (await edges(page)).filter(Boolean);
}

describe("quick-add wires the right port", () => {
  it("connects a dropped string output to Text template's string input (not json Variables), says so, and the run succeeds", async () => {
    const { page } = weft;
    await weft.createWorkflow({ id: "strings", name: "Strings", nodes: [{ id: "txt", type: "core:const-text", position: { x: 0, y: 0 }, config: { value: "hello weft" } }], edges: [] });
    await open(weft, "strings");
    const before = await nodeIds(page);

    await drag(page, await centerOf(handle(page, "txt", "value", "output")), await emptyPointBeside(page, "txt"));
    const search = page.getByRole("combobox", { name: "Search node types" });
    await poll(() => search.count()).toBe(1);
    await search.fill("Text template");
    await poll(() => offered(page).then((o) => o[0])).toBe("Text template");
    await poll(() => page.locator(".quick-add-port").textContent()).toContain("Text template.Template (string)");
    // Tab offers the other ports that fit, then comes back.
    await page.keyboard.press("Tab");
    await poll(() => page.locator(".quick-add-port").textContent()).toContain("Text template.Values");
    await page.keyboard.press("Shift+Tab");
    await poll(() => page.locator(".quick-add-port").textContent()).toContain("Text template.Template (string)");
    await page.keyboard.press("Enter");

    const template = await added(page, before);
    await poll(() => edgeIds(page)).toEqual([`txt.value->${template}.template`]);
    await poll(() => toasts(page).then((t) => t.join("\n"))).toContain("Connected Text.Text → Text template.Template");

    await page.keyboard.press("Control+Enter");
    await poll(() => page.getByTestId("run-announcer").textContent(), { timeout: 30_000 }).toMatch(/^Run completed/);
    await poll(() => node(page, template).locator(".node-run").textContent(), { timeout: 15_000 }).toContain("hello weft");
  });

  it("offers only nodes with an input for Map's array Results, and makes the Workflow output an array output, connected", async () => {
    const { page } = weft;
    await weft.createWorkflow({ id: "mapped", name: "Mapped", nodes: [{ id: "map", type: "core:map", position: { x: 0, y: 0 }, config: { nodeType: "core:text-transform" } }], edges: [] });
    await open(weft, "mapped");
    const before = await nodeIds(page);

    await drag(page, await centerOf(handle(page, "map", "results", "output")), await emptyPointBeside(page, "map"));
    await poll(() => offered(page).then((o) => o.length)).toBeGreaterThan(0);
    await expect(page.locator(".quick-add-hint").textContent()).resolves.toContain("take an array");
    const search = page.getByRole("combobox", { name: "Search node types" });
    await search.fill("workflow");
    await poll(() => offered(page)).toContain("Workflow output");
    expect(await offered(page)).not.toContain("Workflow input");
    await search.fill("Workflow output");
    await poll(() => offered(page).then((o) => o[0])).toBe("Workflow output");
    await page.keyboard.press("Enter");

    const output = await added(page, before);
    await poll(() => edgeIds(page)).toEqual([`map.results->${output}.value`]);
    await poll(() => handle(page, output, "value", "input").getAttribute("data-port-type")).toBe("array");
    await poll(() => toasts(page).then((t) => t.join("\n"))).toContain("Connected Map.Results → Workflow output.Value");
  });

  it("puts a node quick-added on a selected node (/) beside it, connected, and inside the view when zoomed in", async () => {
    const { page } = weft;
    const nodes = Array.from({ length: 24 }, (_, i) => ({ id: `t${i}`, type: "core:const-text", position: { x: (i % 6) * 320, y: Math.floor(i / 6) * 220 }, config: { value: `v${i}` } }));
    await weft.createWorkflow({ id: "wide", name: "Wide", nodes, edges: [] });
    await open(weft, "wide");
    const pane = await page.locator(".vue-flow__pane").boundingBox();
    if (!pane) throw new Error("no canvas");

    // Select the right-most node of the second row, then zoom in around the view's centre by keyboard:
    // the node (and where the pointer was) leave the view.
    await node(page, "t11").locator(".node-title").click();
    await poll(() => node(page, "t11").getAttribute("class")).toContain("selected");
    for (let i = 0; i < 4; i++) await page.keyboard.press("=");
    await viewSettled(page);

    const before = await nodeIds(page);
    await page.keyboard.press("/");
    const search = page.getByRole("combobox", { name: "Search node types" });
    await poll(() => search.count()).toBe(1);
    await search.fill("core:text-transform");
    await poll(() => offered(page).then((o) => o[0])).toBe("Trim / change case");
    await page.keyboard.press("Enter");

    const trim = await added(page, before);
    await poll(() => edgeIds(page)).toEqual([`t11.value->${trim}.text`]);
    await viewSettled(page);
    const box = await node(page, trim).boundingBox();
    expect(box).not.toBeNull();
    expect(box!.x).toBeGreaterThanOrEqual(pane.x);
    expect(box!.y).toBeGreaterThanOrEqual(pane.y);
    expect(box!.x + box!.width).toBeLessThanOrEqual(pane.x + pane.width);
    expect(box!.y + box!.height).toBeLessThanOrEqual(pane.y + pane.height);
  });

  it("takes the only match of Connect… on Enter, and ? lists the node keys", async () => {
    const { page } = weft;
    await weft.createWorkflow({
      id: "pair",
      name: "Pair",
      nodes: [
        { id: "txt", type: "core:const-text", position: { x: 0, y: 0 }, config: { value: "x" } },
        { id: "trim", type: "core:text-transform", position: { x: 400, y: 0 } },
      ],
      edges: [],
    });
    await open(weft, "pair");
    await node(page, "trim").locator(".node-title").click();
    await node(page, "trim").focus();
    await page.keyboard.press("Shift+F10");
    await page.getByRole("menuitem", { name: /^Connect…/ }).focus();
    await page.keyboard.press("Enter");
    const filter = page.getByRole("searchbox", { name: "Filter the connections" });
    await poll(() => filter.count()).toBe(1);
    await filter.focus();
    await page.keyboard.type("from Text of");
    await page.keyboard.press("Enter");
    await poll(() => page.locator(".connect-dialog").count()).toBe(0);
    await poll(() => edgeIds(page)).toEqual(["txt.value->trim.text"]);

    await page.keyboard.press("Escape");
    await page.locator(".vue-flow__pane").focus();
    await page.keyboard.press("?");
    const help = page.getByRole("dialog", { name: "Keyboard shortcuts" });
    await poll(() => help.count()).toBe(1);
    const keys = await help.locator(".kbd").allTextContents();
    for (const key of ["Tab", "Enter", "Shift+F10"]) expect(keys).toContain(key);
    await page.keyboard.press("Escape");
    await poll(() => help.count()).toBe(0);
  });

  it("lays a 4-node chain out as one row", async () => {
    const { page } = weft;
    const at = [
      { x: 0, y: 0 },
      { x: 400, y: 0 },
      { x: 0, y: 300 },
      { x: 400, y: 300 },
    ];
    const nodes = at.map((position, i) => ({ id: `s${i}`, type: "core:text-transform", position }));
    const chain = nodes.slice(1).map((n, i) => ({ id: `s${i}.text->${n.id}.text`, source: `s${i}`, sourceHandle: "text", target: n.id, targetHandle: "text" }));
    await weft.createWorkflow({ id: "chain", name: "Chain", nodes, edges: chain });
    await open(weft, "chain");
    await page.locator(".vue-flow__pane").click({ position: { x: 5, y: 5 } });
    await page.keyboard.press("l");
    // One row: every node's box crosses one horizontal line (nodes differ in height), left to right along the chain.
    const boxes = () => Promise.all(nodes.map((n) => node(page, n.id).boundingBox()));
    const oneRow = async () => {
      const all = await boxes();
      return Math.max(...all.map((b) => b?.y ?? Infinity)) < Math.min(...all.map((b) => (b ? b.y + b.height : -Infinity)));
    };
    await poll(oneRow).toBe(true);
    await viewSettled(page);
    const lefts = (await Promise.all(nodes.map((n) => positionOf(page, n.id)))).map((p) => p.x);
    expect(lefts).toEqual([...lefts].sort((a, b) => a - b));
  });

  it("lets Map's Skill be picked from the saved skills by name, and its help names real node types", async () => {
    const { page } = weft;
    await weft.createWorkflow({
      id: "shouter-hhrj07",
      name: "Shouter",
      nodes: [
        { id: "in", type: "core:workflow-input", config: { name: "item", portType: "string", required: true } },
        { id: "up", type: "core:text-transform", config: { case: "upper" } },
        { id: "out", type: "core:workflow-output", config: { name: "loud", portType: "string" } },
      ],
      edges: [
        { id: "e1", source: "in", sourceHandle: "value", target: "up", targetHandle: "text" },
        { id: "e2", source: "up", sourceHandle: "text", target: "out", targetHandle: "value" },
      ],
    });
    await weft.createWorkflow({ id: "per-item", name: "Per item", nodes: [{ id: "map", type: "core:map", position: { x: 0, y: 0 } }], edges: [] });
    await open(weft, "per-item");
    await node(page, "map").locator(".node-title").click();
    const inspector = page.locator(".inspector");
    const skill = inspector.getByRole("combobox", { name: "Skill" });
    await poll(() => skill.count()).toBe(1);
    await skill.selectOption({ label: "Shouter (shouter-hhrj07)" });
    await poll(() => node(page, "map").getByRole("combobox", { name: "Skill" }).inputValue()).toBe("shouter-hhrj07");
    await expect(inspector.textContent()).resolves.toContain("e.g. core:text-transform");
    await page.keyboard.press("Control+s");
    await poll(() => weft.storedWorkflow("per-item").then((w) => w.nodes[0]?.config.workflowId)).toBe("shouter-hhrj07");
  });
});

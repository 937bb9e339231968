import { describe, expect, it } from "vitest";
import { node } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { useWeft } from "./support/weft.ts";

const weft = useWeft();

describe("smaller things of issue 17", () => {
  it("an empty field whose default is empty text shows its type, not a bare 'default:'", async () => {
    const { page } = weft;
    await weft.createWorkflow({ id: "paths", name: "Paths", nodes: [{ id: "get", type: "core:get-path", position: { x: 0, y: 0 } }], edges: [] });
    await page.goto(`${weft.url}/#/workflows/paths?node=get`);
    await poll(() => node(page, "get").getAttribute("class")).toContain("selected");
    await poll(() => page.locator('.inspector [placeholder="string"]').count()).toBeGreaterThan(0);
    expect(await page.locator('[placeholder="default: "]').count()).toBe(0);
  });

  it("an import whose id is taken gets a name that tells it apart", async () => {
    const doc = { id: "twin", name: "Twin", nodes: [], edges: [] };
    await weft.createWorkflow(doc);
    const imported = await weft.api("POST", "/api/workflows/import", doc);
    expect(imported.status).toBe(201);
    expect(imported.body).toMatchObject({ workflow: { id: "twin-2", name: "Twin (imported)" } });
  });

  it("the new agent's disabled Save button says what is missing", async () => {
    const { page } = weft;
    await page.goto(`${weft.url}/#/agents`);
    await page.getByTestId("agent-new").click();
    const save = page.getByTestId("agent-save");
    await poll(() => save.isDisabled()).toBe(true);
    const why = await save.getAttribute("aria-describedby");
    expect(why).toBeTruthy();
    expect(await page.locator(`#${why}`).textContent()).toContain("give the agent a name");
  });
});

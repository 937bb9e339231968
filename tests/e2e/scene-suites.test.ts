import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { SceneSuiteRunSchema, SceneSuiteSchema } from "../../packages/types/src/index.ts";
import { createShopScene } from "../../apps/backend/src/evals/testing/shop-scene.ts";
import { texts } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { useWeft } from "./support/weft.ts";

const EXAMPLES = fileURLToPath(new URL("../../workflows", import.meta.url));

let shop: Awaited<ReturnType<typeof createShopScene>> | undefined;
const weft = useWeft({ examplesDir: EXAMPLES, viewport: { width: 1280, height: 800 } }, async () => {
  // The shop's seller over-sells whatever the stock (a scripted model): seed 2 starts with 2 in stock.
  shop = await createShopScene({ call: (method, path, body) => weft.api(method, path, body) });
});
afterAll(async () => shop?.stop());

describe("scene suites in the Scenes view", () => {
  it("runs a scene suite from its Evals tab, shows per seed pass or fail, and the first broken step's link opens the timeline at that step", async () => {
    const cases = [
      {
        id: "stock",
        name: "never over-sells",
        script: [{ to: "seller", text: "Sell 3 units" }],
        variations: [
          { name: "seed 1", world: { stock: 5 } },
          { name: "seed 2", world: { stock: 2 } },
        ],
        invariants: [{ kind: "state", name: "stock never below 0", path: "stock", op: "gte", value: 0 }],
      },
    ];
    const created = await weft.api("POST", "/api/evals/scene-suites", { name: "Shop rules", sceneId: "shop", cases });
    expect(created.status).toBe(201);
    const suiteId = SceneSuiteSchema.parse((created.body as { suite: unknown }).suite).id;

    const { page } = weft;
    await page.goto(`${weft.url}/#/scenes`);
    await page.locator(".scene-list").getByText("Shop", { exact: true }).click();
    await page.getByTestId("side-evals").click();
    await poll(() => texts(page, '[data-testid="scene-suite"]')).toContain("Shop rules (1)");
    await page.getByTestId("scene-suite-run").click();
    await poll(() => page.getByTestId("scene-suite-result").getAttribute("data-status"), { timeout: 60_000 }).toBe("completed");
    expect(await page.locator('tr[data-variation="seed 1"]').getAttribute("data-pass")).toBe("true");
    expect(await page.locator('tr[data-variation="seed 2"]').getAttribute("data-pass")).toBe("false");
    expect(await texts(page, 'tr[data-variation="seed 2"]')).toContain("stock never below 0: -1");

    const runs = (await weft.api("GET", `/api/evals/scene-suites/${suiteId}/runs`)).body as { runs: unknown[] };
    const run = SceneSuiteRunSchema.parse(runs.runs[0]);
    const broken = run.results[1].broken[0];
    expect(broken.step).toBe(2);

    // The link opens the variation's own scene run at that step: its timeline marks the world change that broke it.
    await page.locator('tr[data-variation="seed 2"] [data-testid="broken-step-link"]').click();
    await poll(() => page.evaluate(() => location.hash)).toBe(`#/scenes/${encodeURIComponent(run.results[1].sceneId ?? "")}?seq=${broken.seq}`);
    await poll(() => page.getByTestId("timeline-focus").count()).toBe(1);
    expect(await page.getByTestId("timeline-focus").getAttribute("data-key")).toBe(`log-${broken.seq}`);
    expect(await texts(page, '[data-testid="timeline-focus"]')).toMatch(/set\s+stock\s+2\s+→\s+-1/);
    expect(await page.getByTestId("timeline-focus").isVisible()).toBe(true);

    // Opened afresh from the address (a link from CI's JUnit report), it lands at the same step.
    await page.goto(`${weft.url}${broken.link}`);
    await poll(() => page.getByTestId("timeline-focus").count()).toBe(1);
    expect(await page.getByTestId("timeline-focus").getAttribute("data-key")).toBe(`log-${broken.seq}`);
  });
});

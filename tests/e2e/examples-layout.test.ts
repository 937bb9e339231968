import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { poll } from "./support/poll.ts";
import { useWeft } from "./support/weft.ts";
import { WorkflowListSchema } from "../../apps/frontend/src/shared/api/schemas.ts";

const EXAMPLES = fileURLToPath(new URL("../../workflows", import.meta.url));

const weft = useWeft({ examplesDir: EXAMPLES });

describe("the example workflows", () => {
  it("open with no node drawn over another", async () => {
    const { page } = weft;
    const listed = await weft.read("/api/workflows", WorkflowListSchema);
    expect(listed.workflows.length).toBeGreaterThanOrEqual(5);
    await page.goto(weft.url);
    await page.locator(".sidebar-tabs button", { hasText: "Workflows" }).click();
    const overlaps: string[] = [];
    for (const { id, name, nodeCount } of listed.workflows) {
      await page.locator(`.workflow-item[data-workflow-id="${id}"]`).click();
      await poll(() => page.locator(".tab.active .tab-name").textContent()).toBe(name);
      await poll(() => page.locator(".vue-flow__node-weft").count()).toBe(nodeCount);
      const boxes = await page.locator(".vue-flow__node-weft").evaluateAll((nodes) =>
        nodes.map((node) => {
          const r = node.getBoundingClientRect();
          return { id: node.getAttribute("data-id") ?? "?", left: r.left, top: r.top, right: r.right, bottom: r.bottom };
        }),
      );
      for (let a = 0; a < boxes.length; a++) {
        for (let b = a + 1; b < boxes.length; b++) {
          const p = boxes[a];
          const q = boxes[b];
          // A pixel or two of shared border is not an overlap.
          if (Math.min(p.right, q.right) - Math.max(p.left, q.left) > 2 && Math.min(p.bottom, q.bottom) - Math.max(p.top, q.top) > 2) overlaps.push(`${id}: ${p.id} / ${q.id}`);
        }
      }
    }
    expect(overlaps).toEqual([]);
  });
});

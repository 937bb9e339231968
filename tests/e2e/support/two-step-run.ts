import type { Page } from "playwright-core";
import type { WorkflowInput } from "../../../packages/types/src/index.ts";
import { texts } from "./canvas.ts";
import { poll } from "./poll.ts";

/** "ada" → UPPER → "Hi {{0}}": two cheap nodes whose outputs change with the first one's input. */
export function greetingWorkflow(id: string, name: string): WorkflowInput {
  return {
    id,
    name,
    nodes: [
      { id: "shout", type: "core:text-transform", position: { x: 0, y: 0 }, config: { case: "upper" }, inputs: { text: "ada" } },
      { id: "greet", type: "core:text-template", position: { x: 340, y: 0 }, config: { template: "Hi {{0}}" } },
    ],
    edges: [{ id: "e1", source: "shout", sourceHandle: "text", target: "greet", targetHandle: "values" }],
  };
}

/** Clicks Run and waits until the history lists `count` runs and the newest has completed. */
export async function runAndWait(page: Page, count: number): Promise<void> {
  await page.locator('[data-testid="run"]').click();
  await poll(() => page.locator('[data-testid="run-history"] li').count(), { timeout: 15_000 }).toBe(count);
  await poll(() => texts(page, '[data-testid="run-status"]'), { timeout: 15_000 }).toBe("completed");
}

import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { RunResponseSchema } from "../../apps/frontend/src/shared/api/schemas.ts";
import { poll } from "./support/poll.ts";
import { useWeft } from "./support/weft.ts";

/** The repository's examples (Home's gallery copies some of them). */
const EXAMPLES = fileURLToPath(new URL("../../workflows", import.meta.url));

/** A new browser on a new installation, in the smallest window the editor supports. */
const weft = useWeft({ examplesDir: EXAMPLES, home: true, viewport: { width: 1024, height: 700 } }, async () => {
  weft.page.setDefaultTimeout(30_000);
  await weft.page.goto(weft.url);
});

const banner = () => weft.page.locator(".run-banner");

/** From Home: uses the approval template and runs the copy with `request`; the run's id once the banner names it. */
async function runTemplateCopy(request: string): Promise<string> {
  const { page } = weft;
  await page.reload();
  await page.getByTestId("view-home").click();
  await page.getByTestId("use-template-approval").click();
  await poll(() => page.locator(".tab.active .tab-name").textContent()).toBe("Approve before it runs");
  expect(await page.getByTestId("built-in-bar").count()).toBe(0);
  await page.getByTestId("run").click();
  const dialog = page.getByRole("dialog", { name: "Run inputs" });
  await dialog.waitFor();
  await dialog.getByLabel("request", { exact: true }).fill(request);
  await dialog.getByRole("button", { name: /Run/ }).click();
  await poll(() => banner().getAttribute("data-run-id"), { timeout: 30_000 }).not.toBeNull();
  return (await banner().getAttribute("data-run-id"))!;
}

describe("the approval template, as a user runs it", () => {
  it("its copy waits for a decision from the inbox, then runs only the approved branch", async () => {
    const { page } = weft;
    const runId = await runTemplateCopy("refund 42 EUR to Ada");
    await poll(async () => (await weft.read(`/api/runs/${runId}`, RunResponseSchema)).run.status, { timeout: 30_000 }).toBe("waiting");

    // The header's inbox counts it; approving there resumes the run on the approved branch only.
    await poll(() => page.getByTestId("approvals-count").textContent(), { timeout: 30_000 }).toBe("1");
    await page.getByTestId("approvals-inbox").click();
    const item = page.locator(".approval", { hasText: "Go ahead with this request?" });
    await poll(() => item.count()).toBe(1);
    expect(await item.locator(".data").textContent()).toContain("refund 42 EUR to Ada");
    await item.getByRole("button", { name: "Approve" }).click();

    // The editor follows the run on: its banner shows it completed, with the answer.
    await poll(() => page.getByTestId("run-status").textContent(), { timeout: 30_000 }).toBe("completed");
    await poll(() => page.getByTestId("run-outputs").innerText()).toContain("Done: refund 42 EUR to Ada");
    const { run, observations } = await weft.read(`/api/runs/${runId}`, RunResponseSchema);
    expect(run.outputs).toEqual({ result: "Done: refund 42 EUR to Ada" });
    const byId = new Map(observations.map((o) => [o.nodeId, o.status]));
    expect(byId.get("done")).toBe("completed");
    expect(byId.get("refused")).toBe("skipped");
    // The run is of the user's copy, stored under an id of its own.
    expect(run.workflowId).not.toBe("approval-flow");
  });

  it("a run waiting for a decision is cancelled from its banner: it ends cancelled and its approval leaves the inbox", async () => {
    const { page } = weft;
    const runId = await runTemplateCopy("delete the archive");
    await poll(() => page.getByTestId("run-status").textContent(), { timeout: 30_000 }).toBe("waiting");
    await poll(() => page.getByTestId("approvals-count").textContent(), { timeout: 30_000 }).toBe("1");

    await page.getByTestId("run-cancel").click();
    await poll(() => page.getByTestId("run-status").textContent(), { timeout: 30_000 }).toBe("cancelled");
    expect((await weft.read(`/api/runs/${runId}`, RunResponseSchema)).run.status).toBe("cancelled");
    expect(await page.getByTestId("run-cancel").count()).toBe(0);
    const pending = (await weft.api("GET", `/api/approvals`)).body as { approvals: { runId: string }[] };
    expect(pending.approvals.filter((a) => a.runId === runId)).toEqual([]);
    await poll(() => page.getByTestId("approvals-count").count()).toBe(0);
  });
});

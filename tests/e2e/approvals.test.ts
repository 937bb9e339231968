import { describe, expect, it } from "vitest";
import { seriousViolations } from "./support/axe.ts";
import { poll } from "./support/poll.ts";
import { useWeft } from "./support/weft.ts";

// The smallest window the editor supports.
const weft = useWeft({ viewport: { width: 1024, height: 700 } });

/** `GET /api/runs/:id`, as far as this test reads it. */
interface RunAnswer {
  run: { status: string };
  observations: { nodeId: string; status: string; outputs: Record<string, unknown> }[];
}

describe("approvals", () => {
  it("answers a waiting run's approval from the inbox, by keyboard, with a comment; the run completes on the approved branch", async () => {
    await weft.createWorkflow({
      id: "e2e-approval",
      name: "Approve a refund",
      nodes: [
        { id: "gate", type: "core:approval", config: { question: "Refund 42 EUR to Ada?" }, inputs: { data: { customer: "Ada", amount: 42 } } },
        { id: "yes", type: "core:json-stringify" },
        { id: "no", type: "core:json-stringify" },
      ],
      edges: [
        { id: "e1", source: "gate", sourceHandle: "approved", target: "yes", targetHandle: "value" },
        { id: "e2", source: "gate", sourceHandle: "rejected", target: "no", targetHandle: "value" },
      ],
    });
    const started = await weft.api("POST", "/api/workflows/e2e-approval/runs", {});
    expect(started.status).toBe(202);
    const { runId } = started.body as { runId: string };
    const status = async () => (await weft.api("GET", `/api/runs/${runId}`)).body as RunAnswer;
    await poll(async () => (await status()).run.status).toBe("waiting");

    const { page } = weft;
    await page.goto(weft.url);
    // The header's inbox counts what waits, and opens from the keyboard.
    await poll(() => page.getByTestId("approvals-count").textContent()).toBe("1");
    await page.getByTestId("approvals-inbox").focus();
    await page.keyboard.press("Enter");
    const item = page.locator(".approval", { hasText: "Refund 42 EUR to Ada?" });
    await poll(() => item.count()).toBe(1);
    expect(await item.locator(".data").textContent()).toContain('"customer": "Ada"');
    expect(await seriousViolations(page)).toEqual([]);

    await item.getByRole("textbox").focus();
    await page.keyboard.type("checked the invoice");
    await page.keyboard.press("Tab");
    await page.keyboard.press("Enter");

    await poll(async () => (await status()).run.status).toBe("completed");
    const { observations } = await status();
    const byId = new Map(observations.map((o) => [o.nodeId, o]));
    expect(byId.get("yes")?.status).toBe("completed");
    expect(byId.get("no")?.status).toBe("skipped");
    expect(byId.get("gate")?.outputs.decision).toMatchObject({ decision: "approved", decidedBy: "owner", comment: "checked the invoice" });
    // Decided, it leaves the inbox; the Runs tab shows the run completed.
    await poll(() => item.count()).toBe(0);
    expect(await page.getByTestId("approvals-count").count()).toBe(0);
    await page.getByRole("tab", { name: "Runs" }).click();
    await poll(() => page.locator(`[data-testid="recent-runs"] li[data-run-id="${runId}"] .pill.completed`).count()).toBe(1);
  });

  it("decides from a signed link's page opened without signing in: the page shows what to review, and the link works once", async () => {
    await weft.createWorkflow({
      id: "e2e-approval-link",
      name: "Approve by mail",
      nodes: [
        { id: "gate", type: "core:approval", config: { question: "Ship order 7?" }, inputs: { data: { order: 7 } } },
        { id: "yes", type: "core:json-stringify" },
        { id: "no", type: "core:json-stringify" },
      ],
      edges: [
        { id: "e1", source: "gate", sourceHandle: "approved", target: "yes", targetHandle: "value" },
        { id: "e2", source: "gate", sourceHandle: "rejected", target: "no", targetHandle: "value" },
      ],
    });
    const { runId } = (await weft.api("POST", "/api/workflows/e2e-approval-link/runs", {})).body as { runId: string };
    const status = async () => (await weft.api("GET", `/api/runs/${runId}`)).body as RunAnswer;
    await poll(async () => (await status()).run.status).toBe("waiting");
    const approvals = (await weft.api("GET", `/api/approvals?runId=${runId}`)).body as { approvals: { id: string }[] };
    const made = await weft.api("POST", `/api/approvals/${approvals.approvals[0]!.id}/link`, {});
    expect(made.status).toBe(200);
    const { pageUrl } = made.body as { pageUrl: string };
    expect(pageUrl).toMatch(/\/approve\.html#.+/);

    // A browser with no session: the link alone is the proof.
    const browser = weft.page.context().browser()!;
    const context = await browser.newContext({ viewport: { width: 1024, height: 700 } });
    try {
      const page = await context.newPage();
      await page.goto(pageUrl);
      await poll(() => page.locator("#question").textContent()).toBe("Ship order 7?");
      expect(await page.locator("#data").textContent()).toContain('"order": 7');
      // Opening the page decided nothing.
      expect((await status()).run.status).toBe("waiting");
      expect(await seriousViolations(page)).toEqual([]);
      await page.getByLabel("Comment (optional)").fill("packed");
      await page.getByRole("button", { name: "Approve" }).click();
      await poll(() => page.getByRole("status").textContent()).toContain("Done: approved");
      await poll(async () => (await status()).run.status).toBe("completed");
      const gate = (await status()).observations.find((o) => o.nodeId === "gate");
      expect(gate?.outputs.decision).toMatchObject({ decision: "approved", comment: "packed" });

      // Opened again, the link shows the decision and cannot decide twice.
      await page.reload();
      await poll(() => page.getByRole("status").textContent()).toContain("Already decided: approved");
      expect(await page.getByRole("button", { name: "Reject" }).isDisabled()).toBe(true);
    } finally {
      await context.close();
    }
  });
});

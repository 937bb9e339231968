import { createServer as createHttpServer, type Server } from "node:http";
import type { AddressInfo } from "node:net";
import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { RunResponseSchema } from "../../apps/frontend/src/shared/api/schemas.ts";
import { poll } from "./support/poll.ts";
import { useWeft } from "./support/weft.ts";

/** The repository's examples (Home's gallery copies some of them). */
const EXAMPLES = fileURLToPath(new URL("../../workflows", import.meta.url));

/** A new browser on a new installation, in the small window issue 37 names. */
const weft = useWeft({ examplesDir: EXAMPLES, home: true, viewport: { width: 1024, height: 700 } }, async () => {
  weft.page.setDefaultTimeout(30_000);
  await weft.page.goto(weft.url);
});

const banner = () => weft.page.locator(".run-banner");

/** A page on this machine: a private address, which http:request reaches only where an owner's rule allows it. */
async function servePage(html: string): Promise<{ server: Server; url: string }> {
  const server = createHttpServer((_req, res) => {
    res.writeHead(200, { "content-type": "text/html; charset=utf-8" });
    res.end(html);
  });
  await new Promise<void>((resolve) => server.listen(0, "127.0.0.1", resolve));
  return { server, url: `http://127.0.0.1:${(server.address() as AddressInfo).port}` };
}

describe("the HTTP + structured output template, as a user runs it", () => {
  it("its copy runs on a page the owner allowed: the answer is the page's title and summary as JSON; without the rule, the error says what to allow", async () => {
    const { page } = weft;
    const { server, url } = await servePage("<html><head><title>Opening hours</title></head><body><p>The library opens at nine every weekday.</p></body></html>");
    try {
      await page.reload();
      await page.getByTestId("view-home").click();
      await page.getByTestId("use-template-http-structured").click();
      await poll(() => page.locator(".tab.active .tab-name").textContent()).toBe("HTTP + structured output");
      expect(await page.getByTestId("built-in-bar").count()).toBe(0);

      /** Presses Run, gives the URL, and waits for the run to end: its stored record. */
      const runWithUrl = async () => {
        const before = (await banner().count()) > 0 ? await banner().getAttribute("data-run-id") : null;
        await page.getByTestId("run").click();
        const dialog = page.getByRole("dialog", { name: "Run inputs" });
        await dialog.waitFor();
        await dialog.getByLabel("url", { exact: true }).fill(`${url}/hours`);
        await dialog.getByRole("button", { name: /Run/ }).click();
        await poll(() => banner().getAttribute("data-run-id"), { timeout: 30_000 }).not.toBe(before);
        await poll(() => page.getByTestId("run-status").textContent(), { timeout: 60_000 }).toMatch(/^(completed|failed)$/);
        const runId = (await banner().getAttribute("data-run-id"))!;
        return weft.read(`/api/runs/${runId}`, RunResponseSchema);
      };

      // No rule yet: the private address is refused. http:request reports a refusal on its Result port (ok: false),
      // with the rule to add; the nodes after it are skipped and the run has no answer.
      const refused = await runWithUrl();
      const fetched = refused.observations.find((o) => o.nodeId === "fetch");
      expect(fetched?.outputs.ok).toBe(false);
      expect(JSON.stringify(fetched?.outputs.result)).toContain(`To allow it, add a permission rule: allow http.request on ${url}/**.`);
      expect(refused.observations.find((o) => o.nodeId === "ask")?.status).toBe("skipped");
      expect(refused.run.outputs).toEqual({});

      expect((await weft.api("PUT", "/api/settings/permissions", { defaultAction: "allow", rules: [{ action: "allow", tool: "http.request", target: `${url}/**` }] })).status).toBe(200);
      const { run: ran } = await runWithUrl();
      expect(ran.status, ran.error?.message).toBe("completed");
      const answer = ran.outputs.answer as { title?: unknown; summary?: unknown };
      expect({ title: typeof answer.title, summary: typeof answer.summary }).toEqual({ title: "string", summary: "string" });
      expect(String(answer.title).length).toBeGreaterThan(0);
      // The answer is shown where the user ran it.
      await poll(() => page.getByTestId("run-outputs").innerText()).toContain(answer.title);
    } finally {
      server.close();
      await weft.api("PUT", "/api/settings/permissions", { defaultAction: "allow", rules: [] });
    }
  });
});

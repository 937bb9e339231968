import { describe, expect, it } from "vitest";
import { chainWorkflow } from "./support/notes.ts";
import { poll } from "./support/poll.ts";
import { useWeft } from "./support/weft.ts";

const weft = useWeft();

describe("opening the editor by a link", () => {
  it("asks the server for the linked workflow once and for no other (a big workflow's answer is not fetched and checked twice)", async () => {
    const { page } = weft;
    await weft.createWorkflow(chainWorkflow("alpha", "Alpha", 3));
    await weft.createWorkflow(chainWorkflow("beta", "Beta", 2));
    const asked: string[] = [];
    page.on("request", (request) => {
      const path = new URL(request.url()).pathname;
      if (path.startsWith("/api/workflows/")) asked.push(`${request.method()} ${path}`);
    });
    const count = (call: string) => asked.filter((a) => a === call).length;

    // A fresh browser following a link to the first listed workflow.
    await page.goto(`${weft.url}/#/workflows/alpha`);
    await poll(() => page.locator(".vue-flow__node-weft").count()).toBe(3);
    await expect(page.locator(".tab").allTextContents()).resolves.toEqual([expect.stringContaining("Alpha")]);
    await poll(() => page.locator(".palette-item").count()).toBeGreaterThan(10);
    expect([count("GET /api/workflows/alpha"), count("GET /api/workflows/beta")]).toEqual([1, 0]);

    // A reload of that address: the remembered tab's fetch is the only one.
    asked.length = 0;
    await page.reload();
    await poll(() => page.locator(".vue-flow__node-weft").count()).toBe(3);
    await poll(() => page.locator(".palette-item").count()).toBeGreaterThan(10);
    expect([count("GET /api/workflows/alpha"), count("GET /api/workflows/beta")]).toEqual([1, 0]);

    // A link to another workflow than the ones open: that one is asked for once, the open ones are not asked again.
    asked.length = 0;
    await page.goto(`${weft.url}/#/workflows/beta`);
    await poll(() => page.locator(".tab").count()).toBe(2);
    await poll(() => page.locator(".vue-flow__node-weft").count()).toBe(2);
    expect([count("GET /api/workflows/alpha"), count("GET /api/workflows/beta")]).toEqual([0, 1]);
  });
});

// @vitest-environment happy-dom
import { afterAll, beforeAll, beforeEach, describe, expect, it } from "vitest";
import { freshPinia } from "../../apps/frontend/src/shared/testing/fresh-pinia.ts";
import { useNodesStore } from "../../apps/frontend/src/shared/workflow/nodes-store.ts";
import { startPageServer, type PageServer } from "./support/page-server.ts";

let page: PageServer;
beforeAll(async () => {
  page = await startPageServer();
}, 30_000);
afterAll(() => page?.stop());
beforeEach(() => void freshPinia());

describe("nodes store against the real server", () => {
  it("loads the catalogue, groups it by category and looks types up", async () => {
    const nodes = useNodesStore();
    expect(nodes.status).toBe("idle");
    const result = await nodes.load();
    expect(result.ok).toBe(true);
    expect(nodes.status).toBe("ready");
    const template = nodes.lookup("core:text-template");
    expect(template?.title).toBe("Text template");
    const categories = nodes.categories.map((c) => c.category);
    expect(categories).toEqual([...categories].sort((a, b) => a.localeCompare(b)));
    expect(nodes.categories.find((c) => c.category === template?.category)?.specs.map((s) => s.type)).toContain("core:text-template");
  });

  it("starts from nothing in a fresh pinia (no state leaks between tests)", () => {
    expect(useNodesStore().specs).toEqual([]);
  });
});

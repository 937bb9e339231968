import type { Tool } from "@modelcontextprotocol/sdk/types.js";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import { afterAll, describe, expect, it } from "vitest";
import { silentLogger } from "@weft/types";
import { waitFor } from "../testing/test-server.ts";
import { McpManager } from "./mcp-manager.ts";

const EVERYTHING = join(fileURLToPath(new URL("../../node_modules/@modelcontextprotocol/", import.meta.url)), "server-everything/dist/index.js");

/**
 * server-everything registers its task tools once the client is initialised and announces them with
 * notifications/tools/list_changed: the manager must list the tools again on its own.
 */
describe("tools/list_changed", () => {
  const saved: Record<string, Tool[]>[] = [];
  const manager = new McpManager({ load: async () => ({}), save: async (tools) => void saved.push(tools) }, silentLogger);
  afterAll(() => manager.stop());

  it("lists a server's tools again when it announces a change, without being asked", async () => {
    await manager.configure([{ kind: "stdio", name: "everything", command: process.execPath, args: [EVERYTHING], env: {} }]);
    await manager.startAll();
    expect(saved.length).toBeGreaterThanOrEqual(1);
    const listings = await waitFor(async () => (saved.length >= 2 ? saved.length : undefined), 60_000, "a second listing after list_changed");
    expect(listings).toBeGreaterThanOrEqual(2);
    expect(manager.entry("mcp:everything.simulate-research-query")).toBeDefined();
  });
});

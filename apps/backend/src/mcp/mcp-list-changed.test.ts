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
 * notifications/tools/list_changed: the manager must list the tools again on its own. The one that runs
 * only as an MCP task (`execution.taskSupport: "required"`) is shown as unsupported, not as a node type
 * that would always fail.
 */
describe("tools/list_changed", () => {
  const saved: Record<string, Tool[]>[] = [];
  const manager = new McpManager({ load: async () => ({}), save: async (tools) => void saved.push(tools) }, silentLogger);
  afterAll(() => manager.stop());

  it("lists a server's tools again when it announces a change, without being asked", async () => {
    await manager.configure([{ kind: "stdio", name: "everything", disabled: false, timeoutMs: 60_000, autoApprove: [], command: process.execPath, args: [EVERYTHING], env: {} }]);
    await manager.startAll();
    expect(saved.length).toBeGreaterThanOrEqual(1);
    const listings = await waitFor(async () => (saved.length >= 2 ? saved.length : undefined), 60_000, "a second listing after list_changed");
    expect(listings).toBeGreaterThanOrEqual(2);
    const unsupported = await waitFor(async () => manager.statuses().everything?.unsupportedTools, 60_000, "the task tool to be listed");
    expect(unsupported).toEqual([{ name: "simulate-research-query", reason: expect.stringContaining('execution.taskSupport: "required"') }]);
    expect(manager.entry("mcp:everything.simulate-research-query")).toBeUndefined();
    expect(manager.entry("mcp:everything.echo")).toBeDefined();
  });
});

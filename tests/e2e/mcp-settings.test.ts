import { fileURLToPath } from "node:url";
import { describe, expect, it } from "vitest";
import { seriousViolations } from "./support/axe.ts";
import { poll } from "./support/poll.ts";
import { useWeft } from "./support/weft.ts";
import { NodesResponseSchema } from "../../apps/frontend/src/shared/api/schemas.ts";

const EVERYTHING = fileURLToPath(new URL("../../apps/backend/node_modules/@modelcontextprotocol/server-everything/dist/index.js", import.meta.url));
const SECRET = "mcp-e2e-Secret-Value-4Hq8Zr";

const weft = useWeft();

describe("Settings → MCP servers", () => {
  it("saves pasted mcpServers JSON, shows the server running with its tools, never shows the env value again, and passes axe", async () => {
    const { page } = weft;
    await page.goto(weft.url);
    await page.getByTestId("settings").click();
    await page.getByRole("tab", { name: "MCP servers" }).click();
    const section = page.getByTestId("mcp-settings");
    const config = { mcpServers: { everything: { command: process.execPath, args: [EVERYTHING], env: { API_TOKEN: SECRET } } } };
    await section.getByLabel("Servers (JSON)").fill(JSON.stringify(config));
    await section.getByTestId("mcp-save").click();
    await poll(() => section.getByTestId("mcp-server-everything").innerText()).toContain("running");
    // The tool that runs only as an MCP task is named as not offered, with why.
    await poll(async () => {
      await section.getByTestId("mcp-refresh").click();
      return section.getByTestId("mcp-server-everything").innerText();
    }).toContain("Not offered: simulate-research-query");
    expect(await page.content()).not.toContain(SECRET);
    expect(await section.getByLabel("Servers (JSON)").inputValue()).toContain('"API_TOKEN": null');
    expect(await seriousViolations(page)).toEqual([]);

    await section.getByLabel("Servers (JSON)").fill("{ not json");
    await section.getByTestId("mcp-save").click();
    expect(await section.getByRole("alert").innerText()).toContain("not JSON");

    const nodes = await weft.read("/api/nodes", NodesResponseSchema);
    expect(nodes.nodes.map((n) => n.type)).toContain("mcp:everything.echo");
  });
});

/**
 * An MCP stdio server (the official SDK) that outlives its client unless something kills it: it
 * ignores stdin's end and SIGTERM, and starts a child of its own (as npx starts node) that does the
 * same. Writes "<its pid> <its child's pid>" to the file named by its first argument once serving.
 */
import { writeFileSync } from "node:fs";
import { McpServer } from "@modelcontextprotocol/sdk/server/mcp.js";
import { StdioServerTransport } from "@modelcontextprotocol/sdk/server/stdio.js";

const pidFile = process.argv[2];
if (!pidFile) throw new Error("usage: stubborn-mcp-server.ts PID_FILE");

process.on("SIGTERM", () => undefined);
const child = Bun.spawn([process.execPath, "-e", "process.on('SIGTERM', () => {}); setInterval(() => {}, 1 << 30);"], { stdio: ["ignore", "ignore", "ignore"] });
// Holds the process up after stdin ends.
setInterval(() => undefined, 1 << 30);

const server = new McpServer({ name: "stubborn", version: "1.0.0" });
server.registerTool("ping", { description: "Answers pong" }, () => ({ content: [{ type: "text", text: "pong" }] }));
await server.connect(new StdioServerTransport());
writeFileSync(pidFile, `${process.pid} ${child.pid}`);

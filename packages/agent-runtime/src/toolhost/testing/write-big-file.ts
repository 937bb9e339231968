/**
 * Test helper process: writes a large file through the tool host, so the test can kill it
 * mid-write. Run as `bun write-big-file.ts <project> <pkg> <state> <path> <megabytes>`.
 */
import { ToolHost } from "../tool-host.ts";

const [project, pkg, state, path, megabytes] = process.argv.slice(2);
const bytes = Number(megabytes) * 1024 * 1024;
const host = new ToolHost({ mounts: { project, pkg, state }, limits: { maxWriteBytes: bytes } });
const content = "new content line\n".repeat(Math.ceil(bytes / 17)).slice(0, bytes);
process.stdout.write("writing\n");
const result = await host.call("fs.write", { path, content }, { runId: "writer" });
process.stdout.write(JSON.stringify({ ok: result.ok }) + "\n");

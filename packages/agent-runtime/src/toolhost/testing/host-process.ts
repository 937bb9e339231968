/**
 * Test helper process: a tool host in a process of its own, so a test can kill it (kill -9) or run it
 * where the kernel refuses namespaces. Run as `bun host-process.ts '<json>'` with the mounts, an
 * optional audit file, the allowlist, the sandbox mode and one shell.exec call; prints the call's
 * result as one JSON line.
 */
import type { CommandRuleInput } from "@weft/types";
import { AuditLog } from "../audit/audit-log.ts";
import type { MountRoots } from "../fs/mounts.ts";
import { ToolHost } from "../tool-host.ts";

interface HostProcessSpec {
  mounts: MountRoots;
  auditFile?: string;
  commands: CommandRuleInput[];
  shellSandbox?: "bwrap" | "off";
  call: Record<string, unknown>;
}

const spec = JSON.parse(process.argv[2] ?? "{}") as HostProcessSpec;
const host = new ToolHost({
  mounts: spec.mounts,
  commands: spec.commands,
  limits: { maxShellTimeoutMs: 120_000 },
  ...(spec.auditFile ? { audit: new AuditLog({ file: spec.auditFile }) } : {}),
  ...(spec.shellSandbox ? { shellSandbox: spec.shellSandbox } : {}),
});
const result = await host.call("shell.exec", spec.call, { runId: "child-run" });
process.stdout.write(JSON.stringify(result) + "\n");

import * as fs from "node:fs";
import type { ToolName } from "@weft/types";
import type { Mounts } from "../fs/mounts.ts";
import { parseVirtualPath } from "../fs/virtual-path.ts";
import type { PathRules } from "../permissions/path-rules.ts";
import type { SandboxLayout } from "./bubblewrap.ts";
import { COMMAND_READ_TOOLS } from "./path-arguments.ts";

const WRITE_TOOLS: readonly ToolName[] = ["fs.write", "fs.apply_patch"];

export interface LayoutContext {
  mounts: Mounts;
  pathRules: PathRules;
  stateScope?: string;
  maxPathBytes: number;
  /** Real path of the working folder. */
  cwd: string;
  network: boolean;
}

/** The real path and kind of each existing mount path in `paths`; links and missing paths are left out (nothing to cover). */
function existing(paths: readonly string[], ctx: LayoutContext): Array<{ real: string; folder: boolean }> {
  const found: Array<{ real: string; folder: boolean }> = [];
  for (const path of paths) {
    let stat: fs.Stats;
    let real: string;
    try {
      if (parseVirtualPath(path, ctx.maxPathBytes).mount === "state" && ctx.stateScope === undefined) continue;
      real = ctx.mounts.locate(path, { intent: "read", stateScope: ctx.stateScope, maxPathBytes: ctx.maxPathBytes }).real;
      stat = fs.lstatSync(real);
    } catch {
      // A rule target that is no valid mount path, or nothing there: nothing to cover.
      continue;
    }
    if (stat.isDirectory() || stat.isFile()) found.push({ real, folder: stat.isDirectory() });
  }
  return found;
}

/**
 * What one command sees: @project/ read-write, @pkg/ read-only, this run's @state/ folder
 * read-write; folders and files the rules keep from the read tools covered up, those they keep
 * from being written bound read-only.
 */
export function sandboxLayout(ctx: LayoutContext): SandboxLayout {
  const mounts = [
    { real: ctx.mounts.rootOf("project", ctx.stateScope, "@project/"), writable: true },
    { real: ctx.mounts.rootOf("pkg", ctx.stateScope, "@pkg/"), writable: false },
    ...(ctx.stateScope !== undefined ? [{ real: ctx.mounts.rootOf("state", ctx.stateScope, "@state/"), writable: true }] : []),
  ];
  return {
    mounts,
    hidden: existing(ctx.pathRules.blockedPrefixes(COMMAND_READ_TOOLS), ctx),
    readOnly: existing(ctx.pathRules.blockedPrefixes(WRITE_TOOLS), ctx).map((entry) => entry.real),
    cwd: ctx.cwd,
    network: ctx.network,
  };
}

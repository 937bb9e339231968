import * as fs from "node:fs";
import { join } from "node:path";
import type { ToolName } from "@weft/types";
import { ToolFailure, errnoCode } from "../tool-failure.ts";
import type { Mounts } from "../fs/mounts.ts";
import type { Located } from "../fs/secure-fs.ts";
import type { PathRules } from "../permissions/path-rules.ts";

/** A command reads, lists and searches what it names: paths the rules keep from these tools are kept from commands too. */
export const COMMAND_READ_TOOLS: readonly ToolName[] = ["fs.read", "fs.list", "fs.search"];

export interface ArgumentContext {
  /** The working folder. */
  cwd: Located;
  mounts: Mounts;
  pathRules: PathRules;
  /** Names the @state/ folder (see ToolEnv.stateScope). */
  stateScope?: string;
  maxPathBytes: number;
  commandText: string;
}

const MOUNT_ARG = /^@(project|pkg|state)(\/|$)/;

function refuse(ctx: ArgumentContext, arg: string, rule: string, fix: string): ToolFailure {
  return new ToolFailure("E_SANDBOX_VIOLATION", `Refused command ${JSON.stringify(ctx.commandText)}: the argument ${JSON.stringify(arg)} ${rule}. ${fix}`, {
    command: ctx.commandText,
    argument: arg,
    rule,
  });
}

/** Refuses a path below `base` that passes through a symbolic link (existing parts only). */
function assertNoSymlinks(base: string, relative: string, ctx: ArgumentContext, arg: string): void {
  let current = base;
  for (const segment of relative.split("/")) {
    if (segment === "" || segment === ".") continue;
    current = join(current, segment);
    let stat: fs.Stats;
    try {
      stat = fs.lstatSync(current);
    } catch (error) {
      if (errnoCode(error) === "ENOENT" || errnoCode(error) === "ENOTDIR") return;
      throw refuse(ctx, arg, "cannot be checked", "Name a file inside the working folder.");
    }
    if (stat.isSymbolicLink()) throw refuse(ctx, arg, "passes through a symbolic link, which could lead outside the mounts", "Name the real file instead of the link.");
    if (!stat.isFile() && !stat.isDirectory()) throw refuse(ctx, arg, "names a device, FIFO or socket", "Name a regular file or folder.");
  }
}

/** Refuses a path the permission rules keep from the read tools, when it exists (a name that is no file reads nothing). */
function assertPermitted(ctx: ArgumentContext, what: string, virtualPath: string, real: string): void {
  if (!ctx.pathRules.blocks(COMMAND_READ_TOOLS, virtualPath)) return;
  try {
    fs.lstatSync(real);
  } catch {
    return;
  }
  throw new ToolFailure(
    "E_PERMISSION_DENIED",
    `Refused command ${JSON.stringify(ctx.commandText)}: ${what} names ${virtualPath}, which the permission settings keep from ${COMMAND_READ_TOOLS.join(", ")}, so commands may not reach it either. Do not retry it; work on other files or ask the user.`,
    { command: ctx.commandText, path: virtualPath },
  );
}

/** Refuses a working folder the permission rules keep from the read tools. */
export function assertWorkingFolderPermitted(ctx: ArgumentContext): void {
  assertPermitted(ctx, "its working folder", ctx.cwd.virtual.text, ctx.cwd.real);
}

/** The mount path of `relative` (already checked: no `..`, not absolute) below the working folder. */
function virtualBelow(cwd: Located, relative: string): string {
  const segments = [...cwd.virtual.segments, ...relative.split("/").filter((s) => s !== "" && s !== ".")];
  return `@${cwd.virtual.mount}/${segments.join("/")}`;
}

/** The places inside one argument where a path can start: the whole argument, after `=`, after short options (`-f/etc/x`). */
function pathCandidates(arg: string): string[] {
  const candidates = [arg];
  const eq = arg.indexOf("=");
  if (arg.startsWith("-") && eq !== -1) candidates.push(arg.slice(eq + 1));
  const attached = /^-[A-Za-z0-9]+(.+)$/.exec(arg);
  if (attached && !arg.startsWith("--")) candidates.push(attached[1]);
  return candidates;
}

/**
 * Checks every argument that could name a file: absolute and home paths and `..` segments are
 * refused, relative paths may not pass through symlinks, files the permission rules keep from the
 * read tools are refused, and mount paths (`@project/src/a.ts`) are turned into real paths after
 * the same checks fs.* tools apply.
 */
export function mapPathArguments(argv: string[], ctx: ArgumentContext): string[] {
  const mapped = [argv[0]];
  for (const arg of argv.slice(1)) {
    for (const candidate of pathCandidates(arg)) {
      if (candidate.startsWith("/")) throw refuse(ctx, arg, "is an absolute path, outside the mounts", "Use a path relative to the working folder, or a mount path such as @project/src/a.ts.");
      if (candidate.startsWith("~")) throw refuse(ctx, arg, "refers to a home folder, outside the mounts", "Use a path relative to the working folder.");
      if (candidate.split("/").includes("..")) throw refuse(ctx, arg, "contains a `..` segment", "Name the file from the working folder without `..`, or use a mount path such as @project/docs/a.md.");
    }
    const eq = arg.startsWith("-") ? arg.indexOf("=") : -1;
    const prefix = eq === -1 ? "" : arg.slice(0, eq + 1);
    const value = eq === -1 ? arg : arg.slice(eq + 1);
    if (MOUNT_ARG.test(value)) {
      const located = ctx.mounts.locate(value, { intent: "read", stateScope: ctx.stateScope, maxPathBytes: ctx.maxPathBytes });
      assertNoSymlinks(located.root, located.virtual.segments.join("/"), ctx, arg);
      assertPermitted(ctx, `the argument ${JSON.stringify(arg)}`, located.virtual.text, located.real);
      mapped.push(prefix + located.real);
      continue;
    }
    if (!value.startsWith("-")) {
      assertNoSymlinks(ctx.cwd.real, value, ctx, arg);
      assertPermitted(ctx, `the argument ${JSON.stringify(arg)}`, virtualBelow(ctx.cwd, value), join(ctx.cwd.real, value));
    }
    mapped.push(arg);
  }
  return mapped;
}

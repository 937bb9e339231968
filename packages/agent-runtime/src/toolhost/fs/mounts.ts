import * as fs from "node:fs";
import { dirname, join, relative, resolve, sep } from "node:path";
import { MOUNT_NAMES, type MountName } from "@weft/types";
import { ToolFailure } from "../tool-failure.ts";
import type { Located } from "./secure-fs.ts";
import { parseVirtualPath } from "./virtual-path.ts";

/** Real folders behind the mounts. `state` holds one private folder per run or session (`<state>/<scope>`). */
export interface MountRoots {
  project: string;
  pkg: string;
  state: string;
}

export type PathIntent = "read" | "write";

const SCOPE_ID = /^[A-Za-z0-9][A-Za-z0-9._-]{0,127}$/;

function realFolder(name: MountName, folder: string): string {
  let real: string;
  try {
    real = fs.realpathSync(folder);
  } catch {
    throw new Error(`The @${name}/ mount's folder ${JSON.stringify(folder)} does not exist; create it or point the mount elsewhere.`);
  }
  if (!fs.statSync(real).isDirectory()) throw new Error(`The @${name}/ mount's folder ${JSON.stringify(folder)} is not a folder.`);
  return real;
}

function contains(outer: string, inner: string): boolean {
  return inner === outer || inner.startsWith(outer.endsWith(sep) ? outer : outer + sep);
}

/** Maps virtual paths to real ones and enforces the per-mount rules (read-only @pkg/, private @state/). */
export class Mounts {
  private readonly roots: Record<MountName, string>;

  constructor(roots: MountRoots) {
    this.roots = { project: realFolder("project", roots.project), pkg: realFolder("pkg", roots.pkg), state: realFolder("state", roots.state) };
    for (const a of MOUNT_NAMES) {
      for (const b of MOUNT_NAMES) {
        if (a !== b && contains(this.roots[a], this.roots[b])) {
          throw new Error(`Mount folders must not contain one another: @${b}/ (${this.roots[b]}) is inside @${a}/ (${this.roots[a]}).`);
        }
      }
    }
  }

  /** The mount that would show `path` to tools, if any (@state/ shows only what is inside a run's folder). */
  visibleMountOf(path: string): MountName | undefined {
    const absolute = resolve(path);
    let real = absolute;
    // The file may not exist yet: resolve links in the nearest folder that does.
    for (let dir = absolute; ; dir = dirname(dir)) {
      if (fs.existsSync(dir)) {
        real = join(fs.realpathSync(dir), relative(dir, absolute));
        break;
      }
      if (dir === dirname(dir)) break;
    }
    for (const mount of ["project", "pkg"] as const) if (contains(this.roots[mount], real)) return mount;
    const parent = dirname(real);
    return parent !== this.roots.state && contains(this.roots.state, parent) ? "state" : undefined;
  }

  /**
   * The real folder a mount maps to. @state/ is private to a run, or to a session spanning several
   * runs (an agent's conversation): `scope` names it, and its folder is created on first use.
   */
  rootOf(mount: MountName, scope: string | undefined, pathForErrors: string): string {
    if (mount !== "state") return this.roots[mount];
    if (scope === undefined) {
      throw new ToolFailure("E_SANDBOX_VIOLATION", `Refused path ${JSON.stringify(pathForErrors)}: @state/ is private to a run and this call has no run id. Call the tool from within a run.`, {
        path: pathForErrors,
        rule: "state-needs-run",
      });
    }
    if (!SCOPE_ID.test(scope)) throw new ToolFailure("E_INTERNAL", `The run or session id ${JSON.stringify(scope)} cannot name a @state/ folder (letters, digits, '.', '_' and '-' only).`);
    const folder = join(this.roots.state, scope);
    try {
      fs.mkdirSync(folder, { mode: 0o700 });
    } catch (error) {
      if (!(error instanceof Error && "code" in error && error.code === "EEXIST")) throw error;
    }
    if (!fs.lstatSync(folder).isDirectory()) {
      throw new ToolFailure("E_SANDBOX_VIOLATION", `The @state/ folder of ${scope} is not a plain folder; refusing to use it.`, { rule: "state-not-folder" });
    }
    return folder;
  }

  /** Checks a model-supplied path and says where it lands; refuses what its mount does not allow. */
  locate(path: string, options: { intent: PathIntent; stateScope?: string; maxPathBytes: number }): Located {
    const virtual = parseVirtualPath(path, options.maxPathBytes);
    if (options.intent === "write") {
      if (virtual.mount === "pkg") {
        throw new ToolFailure("E_SANDBOX_VIOLATION", `Refused path ${JSON.stringify(path)}: @pkg/ is read-only. Write to @project/ (the user's files) or @state/ (this run's private files) instead.`, {
          path,
          rule: "pkg-read-only",
        });
      }
      if (virtual.segments.includes(".git")) {
        throw new ToolFailure("E_SANDBOX_VIOLATION", `Refused path ${JSON.stringify(path)}: files inside .git/ belong to version control and are never written by tools.`, {
          path,
          rule: "git-internals",
        });
      }
    }
    const root = this.rootOf(virtual.mount, options.stateScope, path);
    return { virtual, root, real: virtual.segments.length === 0 ? root : join(root, ...virtual.segments) };
  }

  /**
   * Folders git must not search for a repository in: above the project and package folders, and
   * the folder of all runs' state, so a command never reports on a repository outside the mounts.
   */
  gitCeilings(): string[] {
    return [dirname(this.roots.project), dirname(this.roots.pkg), this.roots.state];
  }

  /** Replaces real mount folders in a text (command output, system errors) with their mount paths. */
  virtualise(text: string, stateScope: string | undefined): string {
    let out = text;
    for (const { real, virtual } of this.prefixes(stateScope)) out = out.split(real).join(virtual);
    return out;
  }

  /** Real mount folders, longest first, so a nested one is replaced before its parent. */
  private prefixes(stateScope: string | undefined): Array<{ real: string; virtual: string }> {
    const list = [
      { real: this.roots.project, virtual: "@project" },
      { real: this.roots.pkg, virtual: "@pkg" },
      ...(stateScope !== undefined && SCOPE_ID.test(stateScope) ? [{ real: join(this.roots.state, stateScope), virtual: "@state" }] : []),
    ];
    return list.sort((a, b) => b.real.length - a.real.length);
  }
}

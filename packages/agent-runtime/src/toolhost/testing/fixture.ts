/**
 * Test fixture: real temporary folders for the three mounts plus an `outside` folder holding a
 * secret that no tool may ever reveal, and a ToolHost over them.
 */
import { mkdirSync, mkdtempSync, rmSync, writeFileSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { ToolHost, type ToolHostOptions } from "../tool-host.ts";

export const SECRET = "TOP-SECRET-OUTSIDE-THE-SANDBOX";

export interface Fixture {
  base: string;
  project: string;
  pkg: string;
  state: string;
  outside: string;
  host: ToolHost;
  /** Writes a file below the base folder, creating folders. */
  put(relative: string, content: string | Uint8Array): string;
  cleanup(): void;
}

export function createFixture(options: Omit<Partial<ToolHostOptions>, "mounts"> = {}): Fixture {
  const base = mkdtempSync(join(tmpdir(), "weft-toolhost-"));
  const dirs = { project: join(base, "project"), pkg: join(base, "pkg"), state: join(base, "state"), outside: join(base, "outside") };
  for (const dir of Object.values(dirs)) mkdirSync(dir);
  writeFileSync(join(dirs.outside, "secret.txt"), SECRET + "\n");
  const put = (relative: string, content: string | Uint8Array) => {
    const file = join(base, relative);
    mkdirSync(join(file, ".."), { recursive: true });
    writeFileSync(file, content);
    return file;
  };
  const host = new ToolHost({ ...options, mounts: { project: dirs.project, pkg: dirs.pkg, state: dirs.state } });
  return { base, ...dirs, host, put, cleanup: () => rmSync(base, { recursive: true, force: true }) };
}

/** The JSON text of a result, for asserting that a secret never appears anywhere in it. */
export function resultText(result: unknown): string {
  return JSON.stringify(result);
}

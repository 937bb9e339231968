import { spawn } from "node:child_process";
import { join, resolve } from "node:path";

export const ROOT = resolve(import.meta.dirname, "../../..");
const CLI = join(ROOT, "apps/cli/src/main.ts");

export interface Exit {
  code: number | null;
  stdout: string;
  stderr: string;
}

/** `bun apps/cli/src/main.ts agent …` as a real process, with the demo LLM unless `env` sets WEFT_LLM_*. */
export function weftAgent(args: string[], env: Record<string, string> = {}): Promise<Exit> {
  const clean = Object.fromEntries(Object.entries(process.env).filter(([k]) => !k.startsWith("WEFT_LLM_")));
  return new Promise((done, reject) => {
    const child = spawn(process.execPath, [CLI, "agent", ...args], { cwd: ROOT, env: { ...clean, ...env }, stdio: ["ignore", "pipe", "pipe"] });
    let stdout = "";
    let stderr = "";
    child.stdout.on("data", (d: Buffer) => (stdout += d.toString()));
    child.stderr.on("data", (d: Buffer) => (stderr += d.toString()));
    const timer = setTimeout(() => child.kill("SIGKILL"), 20_000);
    child.on("error", reject);
    child.on("close", (code) => {
      clearTimeout(timer);
      done({ code, stdout, stderr });
    });
  });
}

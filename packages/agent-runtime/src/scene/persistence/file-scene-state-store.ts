import { appendFile, mkdir, readFile, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import { SceneLogEntrySchema, SceneRuntimeStateSchema, type SceneLogEntry, type SceneRuntimeState } from "@weft/types";
import { SceneError } from "../errors.ts";
import type { SceneStateStore } from "./scene-state-store.ts";

const SAFE_ID = /^(?!\.{1,2}$)[A-Za-z0-9._-]+$/;

/**
 * Keeps each scene in `<dir>/<sceneId>/`: `state.json` replaced atomically (temp file + rename, so
 * a crash leaves the old or the new state, never half of one) and `log.jsonl` appended to.
 */
export class FileSceneStateStore implements SceneStateStore {
  constructor(private readonly dir: string) {}

  async saveState(state: SceneRuntimeState): Promise<void> {
    const folder = await this.folder(state.sceneId);
    const target = join(folder, "state.json");
    const temp = `${target}.${process.pid}.${Math.random().toString(36).slice(2)}.tmp`;
    await writeFile(temp, JSON.stringify(state));
    await rename(temp, target);
  }

  async loadState(sceneId: string): Promise<SceneRuntimeState | undefined> {
    const file = join(this.folderOf(sceneId), "state.json");
    const text = await readIfExists(file);
    if (text === undefined) return undefined;
    let raw: unknown;
    try {
      raw = JSON.parse(text);
    } catch (err) {
      throw new SceneError("INVALID_STATE", `The saved state ${file} is not valid JSON (${(err as Error).message}); the file was left as it is.`);
    }
    const parsed = SceneRuntimeStateSchema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      throw new SceneError("INVALID_STATE", `The saved state ${file} does not fit the scene state format at ${issue?.path.join(".") || "(root)"}: ${issue?.message}; the file was left as it is.`);
    }
    return parsed.data;
  }

  async appendLog(sceneId: string, entries: readonly SceneLogEntry[]): Promise<void> {
    if (entries.length === 0) return;
    const folder = await this.folder(sceneId);
    await appendFile(join(folder, "log.jsonl"), entries.map((e) => JSON.stringify(e)).join("\n") + "\n");
  }

  async readLog(sceneId: string, fromSeq = 0): Promise<SceneLogEntry[]> {
    const file = join(this.folderOf(sceneId), "log.jsonl");
    const text = await readIfExists(file);
    if (text === undefined) return [];
    const lines = text.split("\n");
    const out: SceneLogEntry[] = [];
    for (let i = 0; i < lines.length; i++) {
      const line = lines[i];
      if (line.trim() === "") continue;
      const isLast = i === lines.length - 1;
      let raw: unknown;
      try {
        raw = JSON.parse(line);
      } catch {
        // A crash during an append can leave a cut-off last line; everything before it is intact.
        if (isLast) break;
        throw new SceneError("INVALID_STATE", `Line ${i + 1} of ${file} is not valid JSON; the log was left as it is.`);
      }
      const parsed = SceneLogEntrySchema.safeParse(raw);
      if (!parsed.success) throw new SceneError("INVALID_STATE", `Line ${i + 1} of ${file} is not a scene log entry: ${parsed.error.issues[0]?.message}.`);
      if (parsed.data.seq >= fromSeq) out.push(parsed.data);
    }
    return out;
  }

  private folderOf(sceneId: string): string {
    if (!SAFE_ID.test(sceneId)) {
      throw new SceneError("INVALID_SCENE", `Scene id ${JSON.stringify(sceneId)} cannot name a folder: use letters, digits, ".", "_" or "-".`);
    }
    return join(this.dir, sceneId);
  }

  private async folder(sceneId: string): Promise<string> {
    const folder = this.folderOf(sceneId);
    await mkdir(folder, { recursive: true });
    return folder;
  }
}

async function readIfExists(file: string): Promise<string | undefined> {
  try {
    return await readFile(file, "utf8");
  } catch (err) {
    if ((err as NodeJS.ErrnoException).code === "ENOENT") return undefined;
    throw err;
  }
}

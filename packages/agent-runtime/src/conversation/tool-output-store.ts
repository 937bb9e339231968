import { mkdir, rename, writeFile } from "node:fs/promises";
import { join } from "node:path";
import type { ConversationToolMessage } from "@weft/types";

/**
 * Where full tool outputs go when only a preview enters the context (seed 003 "Tool output
 * strategy"). `save` returns the mount path the model can read the output from.
 */
export interface ToolOutputStore {
  save(toolCallId: string, content: string): Promise<string>;
}

/**
 * Saves outputs as files under the run's `@state` folder, atomically (temp file + rename), and
 * returns `@state/<subdir>/<name>`.
 */
export class FileToolOutputStore implements ToolOutputStore {
  constructor(
    /** The folder `@state/` maps to. */
    private readonly stateDir: string,
    private readonly subdir = "logs/tool-results",
  ) {}

  async save(toolCallId: string, content: string): Promise<string> {
    const name = `${fileStem(toolCallId)}${looksLikeJson(content) ? ".json" : ".txt"}`;
    const dir = join(this.stateDir, this.subdir);
    await mkdir(dir, { recursive: true });
    const target = join(dir, name);
    const temp = `${target}.${process.pid}.${crypto.randomUUID()}.tmp`;
    await writeFile(temp, content, "utf8");
    await rename(temp, target);
    return `@state/${this.subdir}/${name}`;
  }
}

/**
 * Saves a large tool result's full output and records where, so the context builder can send a
 * preview plus that path. Results at or under the threshold are returned unchanged.
 */
export async function storeLargeToolOutput(message: ConversationToolMessage, store: ToolOutputStore, thresholdChars: number): Promise<ConversationToolMessage> {
  if (message.content.length <= thresholdChars || message.fullOutputPath) return message;
  return { ...message, fullOutputPath: await store.save(message.tool_call_id, message.content) };
}

/** A file-name-safe stem; ids that needed changing get a hash suffix so two never collide. */
function fileStem(id: string): string {
  const safe = id.replace(/[^A-Za-z0-9_-]/g, "_").slice(0, 100);
  if (safe === id && safe !== "") return safe;
  return `${safe || "result"}-${Bun.hash(id).toString(16)}`;
}

function looksLikeJson(text: string): boolean {
  const start = text.trimStart()[0];
  if (start !== "{" && start !== "[") return false;
  try {
    JSON.parse(text);
    return true;
  } catch {
    return false;
  }
}

import { mkdtemp, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach } from "vitest";
import type { LlmChatRequest, LlmService } from "@weft/types";
import type { SceneRuntime } from "./scene-runtime.ts";

/** What a test deliberation asks its model: the answer, not the question, is what these tests look at. */
export const request: LlmChatRequest = { messages: [{ role: "user", content: "go" }] };

/** A model that answers "<name> 1", "<name> 2", … and counts its calls. */
export function countingLlm(name: string): LlmService & { calls: number } {
  const llm = {
    calls: 0,
    chat: async () => {
      llm.calls++;
      const text = `${name} ${llm.calls}`;
      return { text, toolCalls: [], finishReason: "stop" as const, model: "test", message: { role: "assistant" as const, content: text } };
    },
  };
  return llm;
}

/** A new folder for a scene's files per call, each removed after its test. Call at the top of a test file. */
export function sceneFolders(prefix: string): () => Promise<string> {
  const folders: string[] = [];
  afterEach(async () => {
    for (const f of folders.splice(0)) await rm(f, { recursive: true, force: true });
  });
  return async () => {
    const dir = await mkdtemp(join(tmpdir(), prefix));
    folders.push(dir);
    return dir;
  };
}

/**
 * What a kill -9 leaves: starts the scene, sends `message` to `instanceId`, waits until `reached()`
 * (its deliberation hangs at a gate) and saves the last commit.
 */
export async function crashWhen(runtime: SceneRuntime, instanceId: string, message: string, reached: () => boolean): Promise<void> {
  runtime.start();
  runtime.sendMessage(instanceId, message);
  while (!reached()) await Bun.sleep(1);
  await runtime.persist();
}

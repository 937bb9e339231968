import { mkdtemp, readdir, readFile, rm } from "node:fs/promises";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterEach, beforeEach, describe, expect, it } from "vitest";
import { toolResultMessage } from "./messages.ts";
import { FileToolOutputStore, storeLargeToolOutput } from "./tool-output-store.ts";

let dir: string;
beforeEach(async () => {
  dir = await mkdtemp(join(tmpdir(), "weft-tool-out-"));
});
afterEach(() => rm(dir, { recursive: true, force: true }));

describe("FileToolOutputStore", () => {
  it("writes full outputs under @state and returns their mount path, leaving no temp files", async () => {
    const store = new FileToolOutputStore(dir);
    expect(await store.save("call_1", '{"ok":true}')).toBe("@state/logs/tool-results/call_1.json");
    expect(await store.save("call_2", "plain text")).toBe("@state/logs/tool-results/call_2.txt");
    expect(await readFile(join(dir, "logs/tool-results/call_2.txt"), "utf8")).toBe("plain text");
    expect((await readdir(join(dir, "logs/tool-results"))).sort()).toEqual(["call_1.json", "call_2.txt"]);
  });

  it("never lets a call id escape the folder or two ids collide", async () => {
    const store = new FileToolOutputStore(dir, "out");
    const a = await store.save("../../etc/passwd", "x");
    const b = await store.save("a/b", "1");
    const c = await store.save("a_b", "2");
    expect(a).toMatch(/^@state\/out\/______etc_passwd-[0-9a-f]+\.txt$/);
    expect(new Set([b, c]).size).toBe(2);
    expect(await readdir(dir)).toEqual(["out"]);
  });

  it("stores only results over the threshold", async () => {
    const store = new FileToolOutputStore(dir);
    const small = toolResultMessage({ toolCallId: "s", result: "short" });
    expect(await storeLargeToolOutput(small, store, 100)).toBe(small);
    const big = await storeLargeToolOutput(toolResultMessage({ toolCallId: "b", result: "y".repeat(101) }), store, 100);
    expect(big.fullOutputPath).toBe("@state/logs/tool-results/b.txt");
  });
});

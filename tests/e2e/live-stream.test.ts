import { afterAll, describe, expect, it } from "vitest";
import { startScriptedLlmServer, type ScriptedLlmServer } from "../../packages/agent-runtime/src/llm/testing/scripted-llm-server.ts";
import type { WorkflowInput } from "../../packages/types/src/index.ts";
import { node, texts } from "./support/canvas.ts";
import { poll } from "./support/poll.ts";
import { useWeft } from "./support/weft.ts";

const CHUNKS = ["Weaving ", "is ", "the ", "craft ", "of ", "crossing ", "two ", "threads."];

let llm: ScriptedLlmServer;
const weft = useWeft({}, async () => {
  // A real OpenAI-compatible server that writes its answer slowly: two chunks, a pause, then the rest one by one.
  llm = await startScriptedLlmServer({ turns: [{ kind: "text", chunks: CHUNKS, chunkDelayMs: 250, stall: { afterChunks: 3, ms: 2500 } }] });
  const profile = await weft.api("POST", "/api/llm-profiles", { id: "scripted", name: "Scripted", baseUrl: llm.baseUrl, model: llm.model, apiKey: "sk-test" });
  expect(profile.status).toBe(201);
  await weft.createWorkflow(writer);
});
afterAll(async () => {
  await llm?.stop();
});

const writer: WorkflowInput = {
  id: "writer",
  name: "Writer",
  nodes: [
    { id: "reply", type: "llm:chat", position: { x: 0, y: 0 }, config: { profileId: "scripted" }, inputs: { prompt: "What is weaving?" } },
    { id: "out", type: "core:workflow-output", position: { x: 420, y: 0 }, config: { name: "text", portType: "string" } },
  ],
  edges: [{ id: "e1", source: "reply", sourceHandle: "text", target: "out", targetHandle: "value" }],
};

describe("live streamed text on a running node", () => {
  it("shows the text growing on the node while it runs, then the final output in the inspector", async () => {
    const { page } = weft;
    await page.goto(weft.url);
    await poll(() => page.locator(".tab.active").getAttribute("data-tab-id")).toBe("writer");
    const reply = node(page, "reply");
    await poll(() => reply.count()).toBe(1);

    // Every text the node's stream box shows, with the node's status at that moment, as the page renders them.
    await page.evaluate(() => {
      const seen: { text: string; status: string | null }[] = [];
      (window as unknown as { streamSeen: typeof seen }).streamSeen = seen;
      new MutationObserver(() => {
        const box = document.querySelector('.vue-flow__node[data-id="reply"] .node-stream');
        const text = box?.textContent ?? "";
        if (text && text !== seen[seen.length - 1]?.text) seen.push({ text, status: document.querySelector('.vue-flow__node[data-id="reply"] .weft-node')?.getAttribute("data-status") ?? null });
      }).observe(document.body, { subtree: true, childList: true, characterData: true });
    });

    await page.locator('[data-testid="run"]').click();
    // Mid-answer (the model pauses after two chunks): the node is running and shows what it wrote so far.
    await poll(() => texts(page, '.vue-flow__node[data-id="reply"] .node-stream'), { timeout: 10_000 }).toBe("Weaving is ");
    expect(await reply.locator(".weft-node").getAttribute("data-status")).toBe("running");

    await poll(() => texts(page, '[data-testid="run-status"]'), { timeout: 15_000 }).toBe("completed");
    const seen = await page.evaluate(() => (window as unknown as { streamSeen: { text: string; status: string | null }[] }).streamSeen);
    // It grew piece by piece, each text extending the one before, all while the node ran.
    expect(seen.length).toBeGreaterThanOrEqual(3);
    for (let i = 1; i < seen.length; i++) expect(seen[i]!.text.startsWith(seen[i - 1]!.text) && seen[i]!.text.length > seen[i - 1]!.text.length).toBe(true);
    expect(seen.every((s) => s.status === "running")).toBe(true);
    expect(CHUNKS.join("").startsWith(seen[seen.length - 1]!.text)).toBe(true);

    // Done: the node shows its output, the inspector the whole answer and the chunks it came in.
    expect(await reply.locator(".weft-node").getAttribute("data-status")).toBe("completed");
    await reply.locator(".node-title").click();
    await poll(() => page.locator(".inspector-title").getAttribute("title")).toBe("reply");
    const runTab = page.locator(".inspector .segmented button", { hasText: "Run" });
    if (!(await runTab.getAttribute("class"))?.includes("active")) await runTab.click();
    await poll(() => texts(page, '[data-testid="inspector-outputs"]')).toContain(`"${CHUNKS.join("")}"`);
    expect(await texts(page, '[data-testid="node-run-details"]')).toContain(`Streamed (${CHUNKS.length} chunks)`);
    expect(await texts(page, '[data-testid="run-outputs"]')).toContain(CHUNKS.join(""));
  });
});

import { mkdtempSync, rmSync } from "node:fs";
import { tmpdir } from "node:os";
import { join } from "node:path";
import { afterAll, afterEach, beforeAll, describe, expect, it } from "vitest";
// tests/ is not a workspace package: the test server is imported by path.
import { startScriptedLlmServer, type ScriptedLlmServer } from "../../packages/agent-runtime/src/llm/testing/scripted-llm-server.ts";
import { NATIVE_CORPUS, XML_CORPUS, type CorpusCase } from "./support/model-corpus.ts";
import { weftAgent, type Exit } from "./support/weft-agent.ts";

let project: string;
let server: ScriptedLlmServer | undefined;
beforeAll(() => {
  project = mkdtempSync(join(tmpdir(), "weft-corpus-"));
});
afterAll(() => rmSync(project, { recursive: true, force: true }));
afterEach(async () => {
  await server?.stop();
  server = undefined;
});

type Message = { role: string; content?: string | null };

/** Replays the case's model replies from a local OpenAI-compatible server through `weft agent`. */
async function replay(c: CorpusCase, json = true): Promise<{ run: Exit; requests: Message[][] }> {
  server = await startScriptedLlmServer({ turns: c.turns });
  const env = { WEFT_LLM_BASE_URL: server.baseUrl, WEFT_LLM_MODEL: server.model, WEFT_LLM_API_KEY: "sk-test" };
  const run = await weftAgent([c.agent, ...(json ? ["--json"] : []), "--project", project, "--message", c.message], env);
  return { run, requests: server.chatBodies().map((b) => b.messages as Message[]) };
}

function check(c: CorpusCase, run: Exit, requests: Message[][]): void {
  expect(run.code, run.stderr).toBe(c.ends.exit);
  const result = JSON.parse(run.stdout) as { status: string; text?: string };
  expect(result.status).toBe(c.ends.status);
  if (c.ends.text !== undefined) expect(result.text).toBe(c.ends.text);
  for (const piece of c.ends.stderr ?? []) expect(run.stderr).toContain(piece);
  if (c.ends.exit === 0) expect(run.stderr).toBe("");
  // One request per reply the model was told about, plus the first: nothing retried, nothing skipped.
  expect(requests).toHaveLength(c.told.length + 1);
  c.told.forEach((told, i) => {
    const messages = requests[i + 1]!;
    const last = messages.at(-1)!;
    expect(last.role).toBe(told.role);
    for (const piece of told.contains) expect(last.content).toContain(piece);
    for (const piece of told.lacks ?? []) expect(messages.map((m) => m.content ?? "").join("\n")).not.toContain(piece);
    if (told.previousReply !== undefined) expect(messages.at(-2)).toMatchObject({ role: "assistant", content: told.previousReply });
  });
  // The first request carries the user's message as sent.
  expect(requests[0]!.at(-1)).toEqual({ role: "user", content: c.message });
}

describe("a corpus of real model behaviour, through the weft agent process", () => {
  describe("<ACTION> XML (text-helper)", () => {
    for (const c of XML_CORPUS) {
      it(c.name, async () => {
        const { run, requests } = await replay(c);
        check(c, run, requests);
      });
    }
  });

  describe("native tool calls (calculator)", () => {
    for (const c of NATIVE_CORPUS) {
      it(c.name, async () => {
        const { run, requests } = await replay(c);
        check(c, run, requests);
      });
    }
  });

  it("prints each observation exactly as the model gets it, and the answer", async () => {
    const fenced = XML_CORPUS[0]!;
    const { run, requests } = await replay(fenced, false);
    expect(run.code).toBe(0);
    const told = requests[1]!.at(-1)!.content!;
    expect(run.stdout).toContain("step 1 · action rejected (QUOTED_ACTION)");
    expect(run.stdout).toContain(`step 1 · observation (failed)\n${told.replace(/^/gm, "    ")}\n`);
    expect(run.stdout).toContain("\nanswer: 6 × 7 = 42.\n");
  });

  it("prints a repeated mistake's firmer observation exactly as the model gets it", async () => {
    const repeated = XML_CORPUS.find((c) => c.name.startsWith("the same refused action twice"))!;
    const { run, requests } = await replay(repeated, false);
    expect(run.code).toBe(0);
    const told = requests[2]!.at(-1)!.content!;
    expect(told).toContain("STOP:");
    expect(run.stdout).toContain(`step 2 · observation (failed)\n${told.replace(/^/gm, "    ")}\n`);
  });
});

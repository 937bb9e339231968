import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { startTestServer, tempDir, type TestServer } from "../testing/test-server.ts";
import { createTestUser } from "../testing/users.ts";

/** The interpreter with the pinned Python `openai` SDK: scripts/ensure-python-openai.sh makes it for `npm test`. */
const PYTHON = process.env.WEFT_PYTHON_OPENAI;
if (!PYTHON && !process.env.CI) console.warn("WEFT_PYTHON_OPENAI is not set (source scripts/ensure-python-openai.sh): the Python openai SDK test is skipped; in CI it fails instead.");

const EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));
const CLIENT = fileURLToPath(new URL("./testing/python-sdk-client.py", import.meta.url));

/** What python-sdk-client.py prints. */
const ClientReportSchema = z.object({
  sdk: z.string(),
  models: z.array(z.string()),
  answer: z.object({ id: z.string(), object: z.string(), model: z.string(), content: z.string(), finish_reason: z.string() }),
  stream: z.object({ ids: z.array(z.string()), objects: z.array(z.string()), content: z.string(), finish_reason: z.string() }),
  wrong_token: z.object({ status: z.number(), code: z.string().nullable() }).nullable(),
});

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ dataDir: tempDir(), examplesDir: EXAMPLES });
});
afterAll(() => t.stop());

describe("the official Python openai SDK against /v1/", () => {
  it.skipIf(!PYTHON && !process.env.CI)("lists the agents and gets an agent's answer, streaming and not; a wrong token raises AuthenticationError", { timeout: 180_000 }, async () => {
    expect(PYTHON, "the Python openai SDK is missing: source scripts/ensure-python-openai.sh").toBeTruthy();
    const editor = await createTestUser(t, "py", "editor");
    const token = editor.bearer.authorization.replace(/^Bearer /, "");
    const proc = Bun.spawn([PYTHON ?? "python3", CLIENT, `${t.url}/v1`, "text-helper", "Please uppercase this text: hello weft"], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", OPENAI_API_KEY: token },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect(exitCode, stderr).toBe(0);
    const report = ClientReportSchema.parse(JSON.parse(stdout));
    expect(report.models).toContain("text-helper");
    expect(report.answer).toMatchObject({ object: "chat.completion", model: "text-helper", finish_reason: "stop" });
    expect(report.answer.id).toMatch(/^chatcmpl-/);
    expect(report.answer.content).toContain("HELLO WEFT");
    expect(report.stream.ids).toHaveLength(1);
    expect(report.stream.objects).toEqual(["chat.completion.chunk"]);
    expect(report.stream.content).toContain("HELLO WEFT");
    expect(report.stream.finish_reason).toBe("stop");
    expect(report.wrong_token).toEqual({ status: 401, code: "invalid_api_key" });
  });
});

import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { fileURLToPath } from "node:url";
import { z } from "zod";
import { startTestServer, tempDir, type TestServer } from "../testing/test-server.ts";
import { createTestUser } from "../testing/users.ts";

/** The interpreter with the pinned Python `a2a-sdk`: scripts/ensure-python-a2a.sh makes it for `npm test` where the package index serves it. */
const PYTHON = process.env.WEFT_PYTHON_A2A;
if (!PYTHON) console.warn("WEFT_PYTHON_A2A is not set (source scripts/ensure-python-a2a.sh; it needs a2a-sdk from the package index): the Python A2A SDK test is skipped.");

const EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));
const CLIENT = fileURLToPath(new URL("./testing/python-a2a-client.py", import.meta.url));

/** What python-a2a-client.py prints. */
const ClientReportSchema = z.object({
  card: z.object({ name: z.string(), interfaces: z.array(z.string()) }),
  task: z.object({ id: z.string(), context_id: z.string(), state: z.string(), answer: z.string(), artifacts: z.string() }),
  fetched_state: z.string(),
  wrong_token_status: z.number(),
});

let t: TestServer;
beforeAll(async () => {
  t = await startTestServer({ dataDir: tempDir(), examplesDir: EXAMPLES });
});
afterAll(() => t.stop());

describe("the official Python a2a-sdk client against a Weft agent", () => {
  it.skipIf(!PYTHON)("reads the agent's card, sends a message and gets the completed task with the answer; a wrong token is refused", { timeout: 180_000 }, async () => {
    const editor = await createTestUser(t, "py", "editor");
    const token = editor.bearer.authorization.replace(/^Bearer /, "");
    const proc = Bun.spawn([PYTHON ?? "python3", CLIENT, t.url, "text-helper", "Please uppercase this text: hello weft"], {
      env: { PATH: process.env.PATH ?? "/usr/bin:/bin", WEFT_TOKEN: token },
      stdout: "pipe",
      stderr: "pipe",
    });
    const [stdout, stderr, exitCode] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect(exitCode, stderr).toBe(0);
    const report = ClientReportSchema.parse(JSON.parse(stdout));
    expect(report.card.interfaces).toContain(`${t.url}/a2a/text-helper`);
    expect(report.task.state).toBe("TASK_STATE_COMPLETED");
    expect(report.task.answer).toContain("HELLO WEFT");
    expect(report.task.artifacts).toContain("HELLO WEFT");
    expect(report.fetched_state).toBe("TASK_STATE_COMPLETED");
    expect(report.wrong_token_status).toBe(401);
    // The task is a Weft conversation of the agent.
    expect((await t.call("GET", `/api/conversations/${report.task.context_id}`)).status).toBe(200);
  });
});

/** `weft eval` on an agent suite (issue 33 item 4), as the real process against a real server with a scripted LLM. */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { XMLParser } from "fast-xml-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { FIVE_CASES, fiveCaseTurns, startAgentEvalFixture, SuiteIdAnswer, type AgentEvalFixture } from "@weft/backend/src/testing/agent-eval-fixture.ts";
import { tempDir } from "@weft/backend/src/testing/test-server.ts";

const MAIN = join(resolve(import.meta.dirname, "../.."), "src/main.ts");
const JunitSchema = z.object({
  testsuites: z.object({ tests: z.string(), failures: z.string(), testsuite: z.object({ testcase: z.array(z.object({ name: z.string(), failure: z.unknown().optional() })) }) }),
});

let f: AgentEvalFixture;
beforeAll(async () => {
  f = await startAgentEvalFixture();
});
afterAll(() => f?.stop());

describe("weft eval on an agent suite", () => {
  it("exits 1 when the tool assertion of one of 5 cases fails, names the case and the tool, and writes JUnit XML with that failure", async () => {
    const created = await f.t.call("POST", "/api/evals/suites", { name: "scribe cli", target: { kind: "agent", id: "logbook" }, cases: FIVE_CASES });
    expect(created.status).toBe(201);
    const suiteId = SuiteIdAnswer.parse(created.body).suite.id;
    f.llm.enqueue(...fiveCaseTurns());
    const file = join(tempDir(), "agent.xml");
    const env = { ...process.env, NO_COLOR: "1", WEFT_AUTH_TOKEN: f.t.server.accessToken, WEFT_SERVER_URL: f.t.url };
    const proc = Bun.spawn([process.execPath, MAIN, "eval", suiteId, "--concurrency", "1", "--junit", file], { stdout: "pipe", stderr: "pipe", env });
    const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
    expect(code, stderr).toBe(1);
    expect(stdout).toContain("4/5 passed (80.0%)");
    expect(stdout).toContain("FAIL does not write when told not to (conversation ");
    expect(stdout).toContain('tool-not-called: tool "fs:write" was called 1 time(s), first at step 1');
    const junit = JunitSchema.parse(new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(readFileSync(file, "utf8")));
    expect(junit.testsuites).toMatchObject({ tests: "5", failures: "1" });
    expect(junit.testsuites.testsuite.testcase.filter((c) => c.failure !== undefined).map((c) => c.name)).toEqual(["does not write when told not to"]);
  });
});

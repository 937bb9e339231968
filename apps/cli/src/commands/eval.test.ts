/** `weft eval` as the real process against a real server. */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { XMLParser } from "fast-xml-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startTestServer, templateWorkflow, tempDir, type TestServer } from "@weft/backend/src/testing/test-server.ts";

const MAIN = join(resolve(import.meta.dirname, "../.."), "src/main.ts");
const SuiteAnswer = z.object({ suite: z.object({ id: z.string() }) });

let t: TestServer;

async function weft(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, NO_COLOR: "1", WEFT_AUTH_TOKEN: t.server.accessToken, WEFT_SERVER_URL: t.url };
  const proc = Bun.spawn([process.execPath, MAIN, "eval", ...args], { stdout: "pipe", stderr: "pipe", env });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

const caseOf = (i: number, expected: string) => ({ id: `c${i}`, name: `case ${i}`, inputs: { topic: `t${i}` }, assertions: [{ kind: "equals", output: "text", expected }] });

async function suite(name: string, cases: unknown[]): Promise<string> {
  const res = await t.call("POST", "/api/evals/suites", { name, target: { kind: "workflow", id: "notes" }, cases });
  expect(res.status).toBe(201);
  return SuiteAnswer.parse(res.body).suite.id;
}

const JunitSchema = z.object({
  testsuites: z.object({ tests: z.string(), failures: z.string(), testsuite: z.object({ failures: z.string(), testcase: z.array(z.object({ name: z.string(), failure: z.unknown().optional() })) }) }),
});
const parseJunit = (file: string) => JunitSchema.parse(new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(readFileSync(file, "utf8")));

beforeAll(async () => {
  t = await startTestServer();
  expect((await t.call("POST", "/api/workflows", { workflow: templateWorkflow("notes") })).status).toBe(201);
});
afterAll(() => t?.stop());

describe("weft eval", () => {
  it("exits 0 when every case passes, by the suite's name, and writes JUnit XML with no failure", async () => {
    await suite("all good", [caseOf(1, "Notes on t1"), caseOf(2, "Notes on t2"), caseOf(3, "Notes on t3")]);
    const file = join(tempDir(), "ok.xml");
    const res = await weft("all good", "--junit", file);
    expect(res.stderr).toContain("3/3 done");
    expect(res.stdout).toContain("3/3 passed (100.0%)");
    expect(res.code).toBe(0);
    const junit = parseJunit(file);
    expect(junit.testsuites).toMatchObject({ tests: "3", failures: "0" });
    expect(junit.testsuites.testsuite.testcase.map((c) => c.failure)).toEqual([undefined, undefined, undefined]);
  });

  it("exits 1 when one case fails, names it, and the JUnit XML counts that failure", async () => {
    const id = await suite("one bad", [caseOf(1, "Notes on t1"), caseOf(2, "Not this"), caseOf(3, "Notes on t3"), caseOf(4, "Notes on t4")]);
    const file = join(tempDir(), "bad.xml");
    const res = await weft(id, "--junit", file, "--against", "1");
    expect(res.code).toBe(1);
    expect(res.stdout).toContain("3/4 passed (75.0%)");
    expect(res.stdout).toContain("FAIL case 2");
    const junit = parseJunit(file);
    expect(junit.testsuites).toMatchObject({ tests: "4", failures: "1" });
    expect(junit.testsuites.testsuite.failures).toBe("1");
    expect(junit.testsuites.testsuite.testcase.filter((c) => c.failure !== undefined).map((c) => c.name)).toEqual(["case 2"]);
  });

  it("exits 2 naming the suites when none has that id or name, and for a version that is not a number", async () => {
    const unknown = await weft("no such suite");
    expect(unknown.code).toBe(2);
    expect(unknown.stderr).toContain('no eval suite has the id or name "no such suite"');
    const bad = await weft("all good", "--against", "latest");
    expect(bad.code).toBe(2);
    expect(bad.stderr).toContain('--against "latest" is not a version number');
  });

  it("prints its usage with --help, as the other commands do", async () => {
    const help = await weft("--help");
    expect(help.code).toBe(0);
    expect(help.stdout).toContain("weft eval <suite id or name>");
  });
});

/** `weft eval <scene suite>` as the real process against a real server and a scripted model. */
import { readFileSync } from "node:fs";
import { join, resolve } from "node:path";
import { fileURLToPath } from "node:url";
import { XMLParser } from "fast-xml-parser";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { startTestServer, tempDir, type TestServer } from "@weft/backend/src/testing/test-server.ts";
import { createShopScene } from "@weft/backend/src/evals/testing/shop-scene.ts";

const MAIN = join(resolve(import.meta.dirname, "../.."), "src/main.ts");
const EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));
const SuiteAnswer = z.object({ suite: z.object({ id: z.string() }) });

let t: TestServer;
let shop: Awaited<ReturnType<typeof createShopScene>>;

async function weft(...args: string[]): Promise<{ code: number; stdout: string; stderr: string }> {
  const env = { ...process.env, NO_COLOR: "1", WEFT_AUTH_TOKEN: t.server.accessToken, WEFT_SERVER_URL: t.url };
  const proc = Bun.spawn([process.execPath, MAIN, "eval", ...args], { stdout: "pipe", stderr: "pipe", env });
  const [stdout, stderr, code] = await Promise.all([new Response(proc.stdout).text(), new Response(proc.stderr).text(), proc.exited]);
  return { code, stdout, stderr };
}

const stockCase = (stocks: number[]) => ({
  id: "stock",
  name: "never over-sells",
  script: [{ to: "seller", text: "Sell 3 units" }],
  variations: stocks.map((stock, i) => ({ name: `seed ${i + 1}`, world: { stock } })),
  invariants: [{ kind: "state", name: "stock never below 0", path: "stock", op: "gte", value: 0 }],
});

async function sceneSuite(name: string, cases: unknown[]): Promise<string> {
  const res = await t.call("POST", "/api/evals/scene-suites", { name, sceneId: "shop", cases });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return SuiteAnswer.parse(res.body).suite.id;
}

const JunitSchema = z.object({
  testsuites: z.object({ tests: z.string(), failures: z.string(), testsuite: z.object({ testcase: z.array(z.object({ name: z.string(), failure: z.unknown().optional() })) }) }),
});

beforeAll(async () => {
  t = await startTestServer({ examplesDir: EXAMPLES });
  shop = await createShopScene(t);
});
afterAll(async () => {
  await t?.stop();
  await shop?.stop();
});

describe("weft eval with a scene suite", () => {
  it("exits 0 when no invariant breaks", async () => {
    await sceneSuite("shop ok", [stockCase([5, 9])]);
    const res = await weft("shop ok");
    expect(res.stdout).toContain("2/2 passed");
    expect(res.code).toBe(0);
  });

  it("exits 1 when an invariant breaks, naming the seed, the first broken step, its value and the timeline link, and counts it in JUnit XML", async () => {
    const id = await sceneSuite("shop oversold", [stockCase([5, 2, 4])]);
    const file = join(tempDir(), "scene.xml");
    const res = await weft(id, "--junit", file);
    expect(res.code).toBe(1);
    expect(res.stderr).toContain("3/3 done");
    expect(res.stdout).toContain("2/3 passed");
    expect(res.stdout).toContain("FAIL never over-sells · seed 2");
    expect(res.stdout).toContain("stock never below 0: first broken at step 2, value -1");
    expect(res.stdout).toMatch(new RegExp(`${t.url.replace(/[.]/g, "\\.")}/#/scenes/shop--eval-[0-9a-f]{8}-2\\?seq=\\d+`));
    const junit = JunitSchema.parse(new XMLParser({ ignoreAttributes: false, attributeNamePrefix: "" }).parse(readFileSync(file, "utf8")));
    expect(junit.testsuites).toMatchObject({ tests: "3", failures: "1" });
    expect(junit.testsuites.testsuite.testcase.map((c) => [c.name, c.failure !== undefined])).toEqual([
      ["never over-sells · seed 1", false],
      ["never over-sells · seed 2", true],
      ["never over-sells · seed 3", false],
    ]);
  });

  it("refuses a skill suite's options for a scene suite", async () => {
    await sceneSuite("shop options", [stockCase([5])]);
    const res = await weft("shop options", "--against", "2");
    expect(res.code).toBe(2);
    expect(res.stderr).toContain("are for skill suites");
  });
});

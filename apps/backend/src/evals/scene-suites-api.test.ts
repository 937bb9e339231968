import { fileURLToPath } from "node:url";
import { afterAll, beforeAll, describe, expect, it } from "vitest";
import { z } from "zod";
import { SceneStateViewSchema, SceneSuiteRunSchema, SceneSuiteSchema, SceneTimelineSchema, type SceneCaseInput, type SceneSuiteRun } from "@weft/types";
import { ErrorBodySchema } from "../testing/error-body.ts";
import { startTestServer, type TestServer } from "../testing/test-server.ts";
import { until } from "../testing/until.ts";
import { createTestUser, type TestUser } from "../testing/users.ts";
import { createShopScene } from "./testing/shop-scene.ts";

const EXAMPLES = fileURLToPath(new URL("../../../../workflows", import.meta.url));
const SuiteAnswer = z.object({ suite: SceneSuiteSchema });
const RunAnswer = z.object({ run: SceneSuiteRunSchema });
const ScenesAnswer = z.object({ scenes: z.array(z.object({ id: z.string() }).loose()) });
const errorOf = (body: unknown) => ErrorBodySchema.parse(body).error;

let t: TestServer;
let editor: TestUser;
let viewer: TestUser;
let shop: Awaited<ReturnType<typeof createShopScene>>;

beforeAll(async () => {
  t = await startTestServer({ examplesDir: EXAMPLES });
  editor = await createTestUser(t, "edna", "editor");
  viewer = await createTestUser(t, "vic", "viewer");
  shop = await createShopScene(t);
});
afterAll(async () => {
  await t.stop();
  await shop.stop();
});

const settled = async (sceneId: string) => {
  const s = SceneStateViewSchema.parse((await t.call("GET", `/api/scenes/${sceneId}/state`)).body);
  return s.agents.every((a) => a.status === "idle" && a.queue.length === 0 && a.inFlight === null) ? s : undefined;
};

/** A session of the shop as a person ran it: its user message is the trigger script the suite replays. */
async function recordShopSession(): Promise<void> {
  expect((await t.call("POST", "/api/scenes/shop/start")).status).toBe(200);
  expect((await t.call("POST", "/api/scenes/shop/messages", { to: "seller", text: "Sell 3 units to Ann" })).status).toBe(202);
  await until("the recorded session to settle", async () => {
    const s = await settled("shop");
    return s && s.world.customer === "ann" ? s : undefined;
  });
  await t.call("POST", "/api/scenes/shop/stop");
}

async function createSuite(as: TestUser, cases: SceneCaseInput[], sceneId = "shop"): Promise<string> {
  const res = await as.call("POST", "/api/evals/scene-suites", { name: "shop invariants", sceneId, cases });
  expect(res.status, JSON.stringify(res.body)).toBe(201);
  return SuiteAnswer.parse(res.body).suite.id;
}

async function runSuite(as: TestUser, suiteId: string): Promise<SceneSuiteRun> {
  const started = await as.call("POST", `/api/evals/scene-suites/${suiteId}/runs`);
  expect(started.status, JSON.stringify(started.body)).toBe(202);
  const id = RunAnswer.parse(started.body).run.id;
  return until(
    `scene suite run ${id}`,
    async () => {
      const run = RunAnswer.parse((await t.call("GET", `/api/evals/scene-runs/${id}`)).body).run;
      return run.status === "running" ? undefined : run;
    },
    180_000,
  );
}

const stockCase: SceneCaseInput = {
  id: "stock",
  name: "never over-sells",
  variations: [
    { name: "seed 1", world: { stock: 5 } },
    { name: "seed 2", world: { stock: 2 } },
    { name: "seed 3", world: { stock: 4 } },
  ],
  invariants: [
    { kind: "state", name: "stock never below 0", path: "stock", op: "gte", value: 0 },
    { kind: "followed-by", event: "order.placed", by: "order.confirmed", within: 2 },
    { kind: "at-most", event: "order.placed", times: 1 },
  ],
};
const unconfirmedCase: SceneCaseInput = {
  id: "unconfirmed",
  name: "every order is confirmed",
  script: [{ to: "seller", text: "Sell 3 units without confirming" }],
  world: { stock: 10 },
  invariants: [
    { kind: "state", path: "stock", op: "gte", value: 0 },
    { kind: "followed-by", name: "placed then confirmed", event: "order.placed", by: "order.confirmed", within: 5 },
    { kind: "never", event: "order.cancelled" },
  ],
};

describe("scene suites", () => {
  it("replays the recorded script per variation, names seed 2's first broken step with its value and link, and catches the missing confirmation", async () => {
    await recordShopSession();
    const suiteId = await createSuite(editor, [stockCase, unconfirmedCase]);
    const run = await runSuite(editor, suiteId);
    expect(run.status, run.error).toBe("completed");
    expect({ total: run.total, done: run.done, passed: run.passed, failed: run.failed }).toEqual({ total: 4, done: 4, passed: 2, failed: 2 });
    expect(run.results.map((r) => [r.caseId, r.variation, r.pass])).toEqual([
      ["stock", "seed 1", true],
      ["stock", "seed 2", false],
      ["stock", "seed 3", true],
      ["unconfirmed", "default", false],
    ]);
    // Seed 2 starts with 2 in stock: the sale at step 2 (after the customer note at step 1) leaves -1.
    const seed2 = run.results[1];
    expect(seed2.error).toBeUndefined();
    expect(seed2.broken).toHaveLength(1);
    expect(seed2.broken[0]).toMatchObject({ invariant: 0, name: "stock never below 0", step: 2, value: -1 });
    expect(seed2.broken[0].message).toContain('"stock" is -1, not ≥ 0 at step 2');
    const sceneId = seed2.sceneId ?? "";
    expect(seed2.broken[0].link).toBe(`/#/scenes/${encodeURIComponent(sceneId)}?seq=${seed2.broken[0].seq}`);
    // The link's seq is the recorded world change that broke it, in the variation's own stored scene run.
    const timeline = SceneTimelineSchema.parse((await t.call("GET", `/api/scenes/${sceneId}/timeline`)).body);
    expect(timeline.entries.find((e) => e.seq === seed2.broken[0].seq)).toMatchObject({ kind: "world.changed", change: { path: "stock", before: 2, after: -1 } });
    // The recorded script was replayed: the person's message went to the copy.
    expect(timeline.entries.find((e) => e.kind === "trigger.queued")).toMatchObject({ trigger: { kind: "user", text: "Sell 3 units to Ann" } });
    // Each variation is an ordinary scene run: it replays from its record.
    const replay = await t.call("POST", `/api/scenes/${sceneId}/replay`);
    expect(replay.body).toMatchObject({ ok: true, matches: true, world: { stock: -1, customer: "ann" } });

    const unconfirmed = run.results[3];
    expect(unconfirmed.broken.map((b) => [b.name, b.step])).toEqual([["placed then confirmed", 3]]);
    expect(unconfirmed.broken[0].message).toContain('"order.placed" at step 3 was not followed by "order.confirmed"');
    expect(unconfirmed.steps).toBe(3);

    // Deleting the suite deletes its runs and the scene copies they made; the suite's own scene stays.
    const copies = run.results.map((r) => r.sceneId ?? "");
    for (const copy of copies) expect((await t.call("GET", `/api/scenes/${copy}`)).status).toBe(200);
    expect((await editor.call("DELETE", `/api/evals/scene-suites/${suiteId}`)).status).toBe(200);
    for (const copy of copies) expect((await t.call("GET", `/api/scenes/${copy}`)).status).toBe(404);
    expect((await t.call("GET", "/api/scenes/shop")).status).toBe(200);
  });

  it("refuses malformed invariants and overrides with the field at fault and how to fix it", async () => {
    const bad = (cases: unknown[], sceneId = "shop") => editor.call("POST", "/api/evals/scene-suites", { name: "x", sceneId, cases });
    const invariant = (inv: unknown) => [{ id: "a", name: "a", invariants: [inv] }];
    const stringBound = await bad(invariant({ kind: "state", path: "stock", op: "gte", value: "zero" }));
    expect(stringBound.status).toBe(400);
    expect(errorOf(stringBound.body).message).toContain("cases.0.invariants.0.value");
    expect(errorOf(stringBound.body).message).toContain("give a number as value");
    const regex = await bad(invariant({ kind: "state-regex", path: "customer", pattern: "([a-z" }));
    expect(regex.status).toBe(400);
    expect(errorOf(regex.body).message).toContain("cases.0.invariants.0.pattern");
    const within = await bad(invariant({ kind: "followed-by", event: "order.placed", by: "order.confirmed", within: 0 }));
    expect(errorOf(within.body).message).toContain("within counts steps after the event");
    const topic = await bad(invariant({ kind: "never", event: "order..cancelled" }));
    expect(errorOf(topic.body).message).toContain("cases.0.invariants.0.event");
    const both = await bad([{ id: "a", name: "a", seeds: 3, variations: [{ name: "v", world: {} }], invariants: [{ kind: "never", event: "a.b" }] }]);
    expect(errorOf(both.body).message).toContain("either seeds");
    const path = await bad([{ id: "a", name: "a", world: { "stock..x": 1 }, invariants: [{ kind: "never", event: "a.b" }] }]);
    expect(path.status).toBe(400);
    expect(errorOf(path.body).message).toContain("body.cases.0.world.stock..x");
    const schema = await bad(invariant({ kind: "state-schema", path: "stock", schema: { type: "nonsense" } }));
    expect(schema.status).toBe(400);
    expect(errorOf(schema.body).message).toContain("cases.0.invariants.0.schema");
    expect((await bad([], "no-such-scene")).status).toBe(404);
  });

  it("refuses to replay a recorded script the scene does not have", async () => {
    await createShopScene(t, "fresh-shop");
    const suiteId = await createSuite(editor, [{ ...stockCase, variations: [{ name: "one", world: {} }] }], "fresh-shop");
    const res = await editor.call("POST", `/api/evals/scene-suites/${suiteId}/runs`);
    expect(res.status).toBe(409);
    expect(errorOf(res.body).message).toContain("no recorded session with a user message");
  });

  it("lets a viewer read scene suites and results but neither create, change nor run one: nothing stored, no scene run", async () => {
    const suiteId = await createSuite(editor, [unconfirmedCase]);
    const scenesBefore = ScenesAnswer.parse((await t.call("GET", "/api/scenes")).body).scenes.map((s) => s.id);
    expect((await viewer.call("POST", `/api/evals/scene-suites/${suiteId}/runs`)).status).toBe(403);
    expect((await viewer.call("POST", "/api/evals/scene-suites", { name: "mine", sceneId: "shop", cases: [unconfirmedCase] })).status).toBe(403);
    expect((await viewer.call("PUT", `/api/evals/scene-suites/${suiteId}`, { name: "changed", sceneId: "shop", cases: [] })).status).toBe(403);
    expect((await viewer.call("DELETE", `/api/evals/scene-suites/${suiteId}`)).status).toBe(403);
    // The effect: no run was stored, no scene run (copy) was made, the suite is as the editor left it.
    expect(z.object({ runs: z.array(z.unknown()) }).parse((await viewer.call("GET", `/api/evals/scene-suites/${suiteId}/runs`)).body).runs).toEqual([]);
    expect(ScenesAnswer.parse((await t.call("GET", "/api/scenes")).body).scenes.map((s) => s.id)).toEqual(scenesBefore);
    const suite = SuiteAnswer.parse((await viewer.call("GET", `/api/evals/scene-suites/${suiteId}`)).body).suite;
    expect([suite.name, suite.cases.length]).toEqual(["shop invariants", 1]);
    expect(
      SceneSuiteSchema.array()
        .parse(z.object({ suites: z.unknown() }).parse((await viewer.call("GET", "/api/evals/scene-suites?sceneId=shop")).body).suites)
        .map((s) => s.id),
    ).toContain(suiteId);
  });
});

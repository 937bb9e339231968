import { randomUUID } from "node:crypto";
import { parsePath, WorldState } from "@weft/agent-runtime";
import {
  messageOf,
  sceneTimelineLink,
  type JsonObject,
  type Logger,
  type Scene,
  type SceneCase,
  type SceneLogEntry,
  type SceneScriptMessage,
  type SceneSuite,
  type SceneSuiteInput,
  type SceneSuiteRun,
  type SceneVariationResult,
  type VersionAuthor,
} from "@weft/types";
import { notFound, ServiceError } from "../service-error.ts";
import { checkSceneInvariants, invariantProblem } from "./scene-invariants.ts";
import type { SceneSuiteRepository } from "./scene-suite-repository.ts";

/** One variation's scene run: a stored copy of the suite's scene with its own world, the script sent into it. */
export interface SceneCaseRunSpec {
  source: Scene;
  copyId: string;
  copyName: string;
  initialWorld: JsonObject;
  script: SceneScriptMessage[];
  /** The editor who ran the suite: the scene run acts for them (budgets, credentials). */
  startedBy?: VersionAuthor;
}

/** What the scenes domain does for a scene suite (wired by server.ts: `scenes/scene-case-runs.ts`). */
export interface SceneRunPort {
  scene(sceneId: string): Promise<Scene | undefined>;
  /** The user messages of the scene's recorded session, in order. */
  recordedScript(sceneId: string): Promise<SceneScriptMessage[]>;
  /** Runs the copy to the end of its script (each message once the scene has settled); its whole session log. */
  run(spec: SceneCaseRunSpec): Promise<{ entries: SceneLogEntry[]; error?: string }>;
  /** Deletes a copy a run made (its definition, state and log), as `DELETE /api/scenes/:id` does. */
  remove(copyId: string): Promise<void>;
}

export interface SceneSuiteServiceDeps {
  repo: SceneSuiteRepository;
  port: SceneRunPort;
  log: Logger;
}

const HOW = "GET /api/evals/scene-suites lists them.";
/** A suite's runs are not capped: deleting it reads them all, once, for their copies. */
const EVERY_RUN = Number.MAX_SAFE_INTEGER;

/** A variation of a case: its name and the overrides over the scene's initial world. */
function variationsOf(c: SceneCase): Array<{ name: string; world: Record<string, unknown> }> {
  if (c.variations) return c.variations.map((v) => ({ name: v.name, world: { ...c.world, ...v.world } }));
  if (c.seeds !== undefined) return Array.from({ length: c.seeds }, (_, i) => ({ name: `seed ${i + 1}`, world: { ...c.world, [c.seedPath]: i + 1 } }));
  return [{ name: "default", world: c.world }];
}

/** The scene's initial world with the overrides set at their paths. */
async function worldWith(initial: Record<string, unknown>, overrides: Record<string, unknown>): Promise<JsonObject> {
  const world = new WorldState({ initial, historyLimit: 0 });
  for (const [path, value] of Object.entries(overrides)) await world.set(path, value);
  return world.snapshot();
}

/** Scene suites: a scene's trigger script over seeds or variations of its world, invariants checked at every step. */
export class SceneSuiteService {
  private readonly active = new Set<Promise<void>>();

  constructor(private readonly deps: SceneSuiteServiceDeps) {}

  listSuites(sceneId?: string): Promise<SceneSuite[]> {
    return this.deps.repo.listSuites(sceneId);
  }

  async getSuite(id: string): Promise<SceneSuite> {
    const suite = await this.deps.repo.getSuite(id);
    if (!suite) throw notFound("scene suite", id, HOW);
    return suite;
  }

  async createSuite(input: SceneSuiteInput, createdBy: string | undefined): Promise<SceneSuite> {
    await this.check(input);
    const now = Date.now();
    const suite: SceneSuite = { id: randomUUID(), ...input, ...(createdBy !== undefined ? { createdBy } : {}), createdAt: now, updatedAt: now };
    await this.deps.repo.putSuite(suite);
    return suite;
  }

  async updateSuite(id: string, input: SceneSuiteInput): Promise<SceneSuite> {
    const current = await this.getSuite(id);
    await this.check(input);
    const suite: SceneSuite = { ...current, ...input, updatedAt: Date.now() };
    await this.deps.repo.putSuite(suite);
    return suite;
  }

  /** Deletes the suite, its runs and the scene copies they made (nothing else links to them). */
  async deleteSuite(id: string): Promise<void> {
    const copies = (await this.deps.repo.listRuns(id, EVERY_RUN)).flatMap((run) => run.results.flatMap((r) => (r.sceneId ? [r.sceneId] : [])));
    if (!(await this.deps.repo.deleteSuite(id))) throw notFound("scene suite", id, HOW);
    for (const copyId of copies)
      await this.deps.port.remove(copyId).catch((error: unknown) => this.deps.log.warn("a scene suite's copy was not deleted; delete it from the Scenes view", { copyId, error: messageOf(error) }));
  }

  /** Starts a run in the background: its record at once (status `running`), rewritten as each variation ends. */
  async startRun(suiteId: string, startedBy: VersionAuthor | undefined): Promise<SceneSuiteRun> {
    const suite = await this.getSuite(suiteId);
    if (suite.cases.length === 0) throw new ServiceError("VALIDATION_FAILED", `Scene suite "${suite.name}" has no cases to run; add one (PUT /api/evals/scene-suites/${suite.id}) first.`);
    const scene = await this.deps.port.scene(suite.sceneId);
    if (!scene) throw notFound("scene", suite.sceneId, `Scene suite "${suite.name}" tests it, but it was deleted; point the suite at another scene.`);
    const needsRecorded = suite.cases.some((c) => c.script === undefined);
    const recorded = needsRecorded ? await this.deps.port.recordedScript(scene.id) : [];
    if (needsRecorded && recorded.length === 0) {
      const names = suite.cases.filter((c) => c.script === undefined).map((c) => `"${c.id}"`);
      throw new ServiceError(
        "CONFLICT",
        `Case ${names.join(", ")} replays scene "${scene.id}"'s recorded trigger script, but the scene has no recorded session with a user message; start the scene and send a message first, or give the case a script.`,
      );
    }
    const plan = suite.cases.flatMap((c) => variationsOf(c).map((v) => ({ testCase: c, ...v })));
    const run: SceneSuiteRun = {
      id: randomUUID(),
      suiteId: suite.id,
      suiteName: suite.name,
      sceneId: scene.id,
      status: "running",
      total: plan.length,
      done: 0,
      passed: 0,
      failed: 0,
      results: [],
      ...(startedBy !== undefined ? { createdBy: startedBy.id } : {}),
      createdAt: Date.now(),
    };
    await this.deps.repo.putRun(run);
    const work = (async () => {
      for (const [n, item] of plan.entries()) {
        run.results.push(await this.runVariation(run, scene, item.testCase, item.name, item.world, item.testCase.script ?? recorded, n, startedBy));
        const last = run.results.at(-1) as SceneVariationResult;
        run.done += 1;
        if (last.pass) run.passed += 1;
        else run.failed += 1;
        await this.deps.repo.putRun(run);
      }
      run.status = "completed";
      run.finishedAt = Date.now();
      await this.deps.repo.putRun(run);
    })().catch(async (error: unknown) => {
      this.deps.log.error("a scene suite run failed", { sceneSuiteRunId: run.id, error: messageOf(error) });
      run.status = "failed";
      run.error = messageOf(error);
      run.finishedAt = Date.now();
      await this.deps.repo.putRun(run).catch(() => undefined);
    });
    this.active.add(work);
    void work.finally(() => this.active.delete(work));
    return structuredClone(run);
  }

  async getRun(id: string): Promise<SceneSuiteRun> {
    const run = await this.deps.repo.getRun(id);
    if (!run) throw notFound("scene suite run", id, "GET /api/evals/scene-suites/:id/runs lists a suite's runs.");
    return run;
  }

  async listRuns(suiteId: string, limit: number): Promise<SceneSuiteRun[]> {
    await this.getSuite(suiteId);
    return this.deps.repo.listRuns(suiteId, limit);
  }

  async recover(): Promise<void> {
    const count = await this.deps.repo.failUnfinished("The server stopped while this scene suite was running; run it again.");
    if (count > 0) this.deps.log.warn("scene suite runs interrupted by the previous shutdown", { count });
  }

  async shutdown(): Promise<void> {
    await Promise.allSettled([...this.active]);
  }

  private async runVariation(
    run: SceneSuiteRun,
    scene: Scene,
    testCase: SceneCase,
    variation: string,
    overrides: Record<string, unknown>,
    script: SceneScriptMessage[],
    n: number,
    startedBy: VersionAuthor | undefined,
  ): Promise<SceneVariationResult> {
    const started = Date.now();
    const base = { caseId: testCase.id, caseName: testCase.name, variation, world: overrides };
    // The copy's id says which suite run and which variation it is; it stays, stored and replayable, for the report's links.
    const copyId = `${scene.id}--eval-${run.id.slice(0, 8)}-${n + 1}`;
    try {
      const initialWorld = await worldWith(scene.initialWorldState, overrides);
      const outcome = await this.deps.port.run({
        source: scene,
        copyId,
        copyName: `${scene.name} · ${run.suiteName} · ${testCase.name} · ${variation}`,
        initialWorld,
        script,
        ...(startedBy !== undefined ? { startedBy } : {}),
      });
      const report = await checkSceneInvariants(testCase.invariants, { initialWorld, entries: outcome.entries }, (seq) => sceneTimelineLink(copyId, seq));
      return {
        ...base,
        pass: report.broken.length === 0 && outcome.error === undefined,
        sceneId: copyId,
        steps: report.steps,
        ...(outcome.error !== undefined ? { error: outcome.error } : {}),
        durationMs: Date.now() - started,
        broken: report.broken,
      };
    } catch (error) {
      return { ...base, pass: false, steps: 0, error: messageOf(error), durationMs: Date.now() - started, broken: [] };
    }
  }

  /** The scene exists, each override path parses and each JSON Schema compiles: otherwise a precise refusal. */
  private async check(input: SceneSuiteInput): Promise<void> {
    if (!(await this.deps.port.scene(input.sceneId))) throw notFound("scene", input.sceneId, "A scene suite tests a stored scene; GET /api/scenes lists them.");
    const issues: Array<{ path: Array<string | number>; message: string; code: "custom" }> = [];
    input.cases.forEach((c, i) => {
      const paths: Array<[Array<string | number>, string]> = [
        ...Object.keys(c.world).map((p): [Array<string | number>, string] => [["cases", i, "world", p], p]),
        ...(c.variations ?? []).flatMap((v, j) => Object.keys(v.world).map((p): [Array<string | number>, string] => [["cases", i, "variations", j, "world", p], p])),
        ...c.invariants.flatMap((inv, j): Array<[Array<string | number>, string]> => ("path" in inv ? [[["cases", i, "invariants", j, "path"], inv.path]] : [])),
        [["cases", i, "seedPath"], c.seedPath],
      ];
      for (const [at, path] of paths) {
        try {
          parsePath(path);
        } catch (error) {
          issues.push({ path: at, message: messageOf(error), code: "custom" });
        }
      }
      c.invariants.forEach((inv, j) => {
        const problem = invariantProblem(inv);
        if (problem !== undefined) issues.push({ path: ["cases", i, "invariants", j, "schema"], message: `${problem}; fix the JSON Schema`, code: "custom" });
      });
    });
    if (issues.length > 0) throw new ServiceError("VALIDATION_FAILED", issues.map((x) => `body.${x.path.join(".")}: ${x.message}`).join("; "), { issues });
  }
}

import { writeFileSync } from "node:fs";
import { z } from "zod";
import { SceneSuiteRunSchema, SceneSuiteSchema, type SceneSuiteRun } from "@weft/types";
import { CliError, EXIT_FAILED, EXIT_USAGE } from "../support/cli-error.ts";
import { sceneRunJunit } from "../support/scene-junit.ts";
import { callServer } from "../support/server-client.ts";

const POLL_MS = 200;
const SuitesAnswer = z.object({ suites: z.array(SceneSuiteSchema) });
const RunAnswer = z.object({ run: SceneSuiteRunSchema });

function errorText(body: unknown): string {
  const parsed = z.object({ error: z.object({ code: z.string(), message: z.string() }) }).safeParse(body);
  return parsed.success ? `${parsed.data.error.code}: ${parsed.data.error.message}` : JSON.stringify(body).slice(0, 300);
}

/** The scene suite with this id, or the one with this name; undefined when none (then it may be a skill's suite). */
export async function findSceneSuite(server: string, nameOrId: string): Promise<string | undefined> {
  const answer = await callServer(server, process.env, "GET", "/api/evals/scene-suites");
  if (answer.status !== 200) throw new CliError(`listing the scene suites answered ${answer.status} — ${errorText(answer.body)}`);
  const suites = SuitesAnswer.parse(answer.body).suites;
  const byId = suites.find((s) => s.id === nameOrId);
  if (byId) return byId.id;
  const byName = suites.filter((s) => s.name === nameOrId);
  if (byName.length > 1) throw new CliError(`${byName.length} scene suites are named "${nameOrId}"; give the id of one: ${byName.map((s) => s.id).join(", ")}.`, EXIT_USAGE);
  return byName[0]?.id;
}

function summary(run: SceneSuiteRun, server: string): string {
  const lines = [`${run.suiteName} (scene ${run.sceneId}): ${run.passed}/${run.results.length} passed`];
  for (const r of run.results.filter((x) => !x.pass)) {
    lines.push(`  FAIL ${r.caseName} · ${r.variation}${r.sceneId !== undefined ? ` (scene run ${r.sceneId})` : ""}`);
    if (r.error !== undefined) lines.push(`    error: ${r.error}`);
    for (const b of r.broken) lines.push(`    ${b.name}: first broken at step ${b.step}, value ${JSON.stringify(b.value)} — ${b.message}`, `      ${new URL(b.link, server).href}`);
  }
  return lines.join("\n");
}

/** Runs a scene suite on the server: progress on stderr, a summary on stdout; 1 when an invariant broke or a run failed. */
export async function runSceneSuite(server: string, id: string, options: { junit?: string; json?: boolean }): Promise<number> {
  const started = await callServer(server, process.env, "POST", `/api/evals/scene-suites/${encodeURIComponent(id)}/runs`);
  if (started.status !== 202)
    throw new CliError(
      `the scene suite run was refused (${started.status}) — ${errorText(started.body)}`,
      started.status >= 400 && started.status < 500 && started.status !== 403 ? EXIT_USAGE : EXIT_FAILED,
    );
  let run = RunAnswer.parse(started.body).run;
  process.stderr.write(`scene suite run ${run.id} of "${run.suiteName}": ${run.total} scene run(s)\n`);
  let shown = 0;
  for (;;) {
    const answer = await callServer(server, process.env, "GET", `/api/evals/scene-runs/${encodeURIComponent(run.id)}`);
    if (answer.status !== 200) throw new CliError(`reading scene suite run ${run.id} answered ${answer.status} — ${errorText(answer.body)}`);
    run = RunAnswer.parse(answer.body).run;
    if (run.done !== shown) {
      shown = run.done;
      process.stderr.write(`  ${run.done}/${run.total} done, ${run.passed} passed, ${run.failed} failed\n`);
    }
    if (run.status !== "running") break;
    await Bun.sleep(POLL_MS);
  }
  if (options.junit !== undefined) writeFileSync(options.junit, sceneRunJunit(run, server));
  process.stdout.write(`${options.json === true ? JSON.stringify(run, null, 2) : summary(run, server)}\n`);
  if (run.status === "failed") {
    process.stderr.write(`the scene suite run failed: ${run.error ?? "unknown reason"}\n`);
    return EXIT_FAILED;
  }
  return run.failed === 0 ? 0 : EXIT_FAILED;
}

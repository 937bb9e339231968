import { writeFileSync } from "node:fs";
import { parseArgs } from "node:util";
import { z } from "zod";
import { EvalRunSchema, EvalSuiteSchema, type EvalRun, type EvalSide } from "@weft/types";
import { CliError, EXIT_FAILED, EXIT_USAGE } from "../support/cli-error.ts";
import { evalRunJunit } from "../support/junit.ts";
import { callServer, defaultServer } from "../support/server-client.ts";
import { findSceneSuite, runSceneSuite } from "./eval-scene.ts";

export const EVAL_USAGE =
  "weft eval <suite id or name> [--against <version>] [--profile <id>] [--compare <version>] [--compare-profile <id>] [--concurrency N] [--junit file.xml] [--server URL] [--json]   run an eval suite or a scene suite on a running Weft: progress on stderr, a summary on stdout, exit 1 when a case fails (a scene suite: when an invariant breaks, naming its first broken step, value and timeline link); --junit writes JUnit XML for CI";

const POLL_MS = 200;
const RunAnswer = z.object({ run: EvalRunSchema });
const SuitesAnswer = z.object({ suites: z.array(EvalSuiteSchema) });

function errorText(body: unknown): string {
  const parsed = z.object({ error: z.object({ code: z.string(), message: z.string() }) }).safeParse(body);
  return parsed.success ? `${parsed.data.error.code}: ${parsed.data.error.message}` : JSON.stringify(body).slice(0, 300);
}

function version(option: string, raw: string | undefined): number | undefined {
  if (raw === undefined) return undefined;
  const n = Number(raw);
  if (!Number.isInteger(n) || n < 1)
    throw new CliError(`${option} "${raw}" is not a version number. Fix: give a saved version's number, e.g. ${option} 3 (GET /api/workflows/:id/versions lists them).`, EXIT_USAGE);
  return n;
}

function side(v: number | undefined, profileId: string | undefined): EvalSide | undefined {
  return v === undefined && profileId === undefined ? undefined : { ...(v !== undefined ? { version: v } : {}), ...(profileId !== undefined ? { profileId } : {}) };
}

/** The suite's id: the argument when a suite has that id, else the one suite with that name. */
async function suiteId(server: string, nameOrId: string): Promise<string> {
  const answer = await callServer(server, process.env, "GET", "/api/evals/suites");
  if (answer.status !== 200) throw new CliError(`listing the eval suites answered ${answer.status} — ${errorText(answer.body)}`);
  const suites = SuitesAnswer.parse(answer.body).suites;
  const byId = suites.find((s) => s.id === nameOrId);
  if (byId) return byId.id;
  const byName = suites.filter((s) => s.name === nameOrId);
  if (byName.length === 1) return byName[0].id;
  if (byName.length > 1) throw new CliError(`${byName.length} suites are named "${nameOrId}"; give the id of one: ${byName.map((s) => s.id).join(", ")}.`, EXIT_USAGE);
  throw new CliError(`no eval suite has the id or name "${nameOrId}". The suites: ${suites.map((s) => `"${s.name}" (${s.id})`).join(", ") || "none yet"}.`, EXIT_USAGE);
}

function summary(run: EvalRun): string {
  const lines: string[] = [];
  for (const s of run.sides) {
    const label = [s.side.version !== undefined ? `version ${s.side.version}` : "latest", s.side.profileId !== undefined ? `profile ${s.side.profileId}` : ""].filter(Boolean).join(", ");
    lines.push(`${run.suiteName} (${label}): ${s.passed}/${s.results.length} passed (${(s.passRate * 100).toFixed(1)}%)`);
    for (const r of s.results.filter((x) => !x.pass)) {
      lines.push(`  FAIL ${r.name}${r.runId ? ` (run ${r.runId})` : ""}${r.conversationId ? ` (conversation ${r.conversationId})` : ""}`);
      for (const a of r.assertions.filter((x) => !x.pass)) lines.push(`    ${a.kind}: ${a.message}`);
    }
  }
  return lines.join("\n");
}

export async function evalCommand(argv: string[]): Promise<number> {
  const { values, positionals } = parseArgs({
    args: argv,
    allowPositionals: true,
    options: {
      against: { type: "string" },
      profile: { type: "string" },
      compare: { type: "string" },
      "compare-profile": { type: "string" },
      concurrency: { type: "string" },
      junit: { type: "string" },
      server: { type: "string" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    process.stdout.write(`${EVAL_USAGE}\n`);
    return 0;
  }
  if (positionals.length !== 1) throw new CliError(`weft eval takes one suite (its id or name). Usage: ${EVAL_USAGE}`, EXIT_USAGE);
  const concurrency = values.concurrency === undefined ? undefined : Number(values.concurrency);
  if (concurrency !== undefined && (!Number.isInteger(concurrency) || concurrency < 1 || concurrency > 32))
    throw new CliError(`--concurrency "${values.concurrency}" must be a whole number from 1 to 32.`, EXIT_USAGE);
  const server = values.server ?? defaultServer(process.env);
  const against = side(version("--against", values.against), values.profile);
  const compare = side(version("--compare", values.compare), values["compare-profile"]);
  const sceneSuite = await findSceneSuite(server, positionals[0]);
  if (sceneSuite !== undefined) {
    if (against || compare || concurrency !== undefined)
      throw new CliError("a scene suite runs its scene's script as it is: --against, --profile, --compare and --concurrency are for skill suites.", EXIT_USAGE);
    return runSceneSuite(server, sceneSuite, { ...(values.junit !== undefined ? { junit: values.junit } : {}), ...(values.json !== undefined ? { json: values.json } : {}) });
  }
  const id = await suiteId(server, positionals[0]);
  const started = await callServer(server, process.env, "POST", `/api/evals/suites/${encodeURIComponent(id)}/runs`, {
    ...(against ? { against } : {}),
    ...(compare ? { compare } : {}),
    ...(concurrency !== undefined ? { concurrency } : {}),
  });
  if (started.status !== 202)
    throw new CliError(`the eval run was refused (${started.status}) — ${errorText(started.body)}`, started.status >= 400 && started.status < 500 && started.status !== 403 ? EXIT_USAGE : EXIT_FAILED);
  let run = RunAnswer.parse(started.body).run;
  const total = run.cases * run.sides.length;
  process.stderr.write(`eval run ${run.id} of "${run.suiteName}": ${total} case run(s)\n`);
  let shown = 0;
  for (;;) {
    const answer = await callServer(server, process.env, "GET", `/api/evals/runs/${encodeURIComponent(run.id)}`);
    if (answer.status !== 200) throw new CliError(`reading eval run ${run.id} answered ${answer.status} — ${errorText(answer.body)}`);
    run = RunAnswer.parse(answer.body).run;
    if (run.done !== shown) {
      shown = run.done;
      const passed = run.sides.reduce((n, s) => n + s.passed, 0);
      process.stderr.write(`  ${run.done}/${total} done, ${passed} passed, ${run.done - passed} failed\n`);
    }
    if (run.status !== "running") break;
    await Bun.sleep(POLL_MS);
  }
  if (values.junit !== undefined) writeFileSync(values.junit, evalRunJunit(run));
  process.stdout.write(`${values.json === true ? JSON.stringify(run, null, 2) : summary(run)}\n`);
  if (run.status === "failed") {
    process.stderr.write(`the eval run failed: ${run.error ?? "unknown reason"}\n`);
    return EXIT_FAILED;
  }
  return run.sides.every((s) => s.failed === 0) ? 0 : EXIT_FAILED;
}

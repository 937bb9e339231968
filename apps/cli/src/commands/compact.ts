import { existsSync } from "node:fs";
import { join, resolve } from "node:path";
import { parseArgs } from "node:util";
import { DATABASE_FILE } from "../../../backend/src/storage/storage.ts";
import { openAppStorage } from "../../../backend/src/app-storage.ts";
import { MIGRATIONS } from "../../../backend/src/schema.ts";
import { compact, describeReport } from "../../../backend/src/ops/retention/compact.ts";
import { keepsEverything, loadRetentionPolicy, RetentionPolicySchema, saveRetentionPolicy, type RetentionPolicy } from "../../../backend/src/ops/retention/retention-settings.ts";
import { CliError, EXIT_USAGE } from "../support/cli-error.ts";

export const COMPACT_USAGE =
  "weft compact [--runs-days N] [--runs-per-workflow N] [--scene-log-days N] [--versions-per-document N] [--save] [--payloads] [--dry-run] [--json]   remove old runs, scene logs and document versions (never one a kept run ran) by the retention settings (stored ones, or these flags; --save stores them), then reclaim the space; --payloads also removes stored payloads nothing references (stop every Weft process first). WEFT_DATA_DIR / WEFT_DATABASE_URL select the database";

function limit(name: string, value: string | undefined, integer: boolean): number | undefined {
  if (value === undefined) return undefined;
  const n = Number(value);
  if (!Number.isFinite(n) || n < 0 || (integer && !Number.isInteger(n))) throw new CliError(`--${name} must be a ${integer ? "whole " : ""}number ≥ 0, got ${JSON.stringify(value)}.`, EXIT_USAGE);
  return n;
}

/** The stored settings with the flags given on top; a flag of 0 days is refused by the schema (it would remove everything finished). */
function merged(stored: RetentionPolicy, flags: RetentionPolicy): RetentionPolicy {
  const policy = RetentionPolicySchema.safeParse({ ...stored, ...flags });
  if (!policy.success) {
    const issue = policy.error.issues[0];
    throw new CliError(`invalid retention setting ${issue?.path.join(".")}: ${issue?.message}.`, EXIT_USAGE);
  }
  return policy.data;
}

export async function compactCommand(args: string[], env: Record<string, string | undefined> = process.env): Promise<number> {
  const { values } = parseArgs({
    args,
    options: {
      "runs-days": { type: "string" },
      "runs-per-workflow": { type: "string" },
      "scene-log-days": { type: "string" },
      "versions-per-document": { type: "string" },
      save: { type: "boolean" },
      "dry-run": { type: "boolean" },
      payloads: { type: "boolean" },
      json: { type: "boolean" },
      help: { type: "boolean", short: "h" },
    },
  });
  if (values.help) {
    process.stdout.write(`${COMPACT_USAGE}\n`);
    return 0;
  }
  const flags: RetentionPolicy = {};
  const runsDays = limit("runs-days", values["runs-days"], false);
  const perWorkflow = limit("runs-per-workflow", values["runs-per-workflow"], true);
  const sceneDays = limit("scene-log-days", values["scene-log-days"], false);
  if (runsDays !== undefined) flags.runsMaxAgeDays = runsDays;
  if (perWorkflow !== undefined) flags.runsPerWorkflow = perWorkflow;
  if (sceneDays !== undefined) flags.sceneLogMaxAgeDays = sceneDays;
  const versions = limit("versions-per-document", values["versions-per-document"], true);
  if (versions !== undefined) flags.versionsPerDocument = versions;

  const dataDir = resolve(env.WEFT_DATA_DIR || "data");
  const databaseUrl = env.WEFT_DATABASE_URL || undefined;
  if (!databaseUrl && !existsSync(join(dataDir, DATABASE_FILE))) {
    throw new CliError(`there is no Weft database at ${join(dataDir, DATABASE_FILE)}: set WEFT_DATA_DIR to the server's data folder (or WEFT_DATABASE_URL for PostgreSQL).`, EXIT_USAGE);
  }
  const storage = await openAppStorage({ dataDir, ...(databaseUrl ? { databaseUrl } : {}), migrations: MIGRATIONS });
  try {
    const policy = merged(await loadRetentionPolicy(storage.settings), flags);
    if (values.save) await saveRetentionPolicy(storage.settings, policy);
    const report = await compact(storage.sql, policy, { dryRun: values["dry-run"] ?? false, payloads: values.payloads ?? false });
    if (values.json) {
      process.stdout.write(`${JSON.stringify({ policy, ...report })}\n`);
    } else {
      if (values.save) process.stdout.write(`Saved the retention settings: ${JSON.stringify(policy)}.\n`);
      if (keepsEverything(policy)) process.stdout.write("No retention limit is set (flags or saved settings): nothing is removed, the space is only reclaimed.\n");
      process.stdout.write(`${describeReport(report)}\n`);
    }
    return 0;
  } finally {
    await storage.close();
  }
}

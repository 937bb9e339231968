import type { Logger } from "@weft/types";
import type { RunRepository } from "../events/run-repository.ts";
import type { TableEngine } from "../storage/table.ts";
import { usageApi } from "./usage-api.ts";
import { UsageRecorder } from "./usage-recorder.ts";
import { UsageRepository } from "./usage-repository.ts";

export { USAGE_MIGRATIONS } from "./usage-migrations.ts";
export { USAGE_ROUTES } from "./usage-api.ts";
export { UsageRepository } from "./usage-repository.ts";
export { UsageRecorder } from "./usage-recorder.ts";
export type { UsageRecord, UsageRow, UsageQuery, UsageGroup } from "./usage-schemas.ts";

/** The usage domain on the storage: the repository, the recorder the LLM service reports to, and `GET /api/usage`. */
export function createUsage(deps: { engine: TableEngine; runs: Pick<RunRepository, "get">; log: Logger }) {
  const repository = new UsageRepository(deps.engine);
  const recorder = new UsageRecorder(repository, deps.runs, deps.log);
  return { repository, recorder, api: usageApi(repository) };
}

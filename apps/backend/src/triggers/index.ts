import type { Logger } from "@weft/types";
import type { EventHub } from "../events/event-hub.ts";
import type { RunService } from "../runs/run-service.ts";
import type { RunsStorage } from "../runs/runs-storage.ts";
import type { SecretBox } from "../secrets/secret-box.ts";
import type { StorageEngine } from "../storage/storage.ts";
import { TriggerTable } from "./trigger-repository.ts";
import { TriggerService } from "./trigger-service.ts";
import { triggersApi } from "./triggers-api.ts";
import { hooksApi } from "./hooks-api.ts";
import { Scheduler } from "./scheduler.ts";

export { TRIGGER_MIGRATIONS } from "./trigger-migrations.ts";

export interface TriggersDeps {
  engine: StorageEngine;
  storage: RunsStorage;
  runs: RunService;
  hub: EventHub;
  box: SecretBox;
  maxBodyBytes: number;
  log: Logger;
  /** How often the scheduler compares active workflows with their armed schedules (default 10 s; saves re-arm at once). */
  scheduleSyncMs?: number;
}

/**
 * The tests' way to kill this process right after a schedule's claim commits (exactly-once recovery); unset, nothing
 * happens. SIGKILL: no shutdown code runs, as when the machine dies.
 */
function crashHook(): { afterClaim?: () => void } {
  return process.env.WEFT_TEST_EXIT_AFTER_SCHEDULE_CLAIM === "1" ? { afterClaim: () => process.kill(process.pid, "SIGKILL") } : {};
}

/**
 * Triggers: the service, the session routes (`/api/triggers`, the active switch, secrets), the public hooks, and
 * the scheduler (one loop per API process; `start` it once the server listens, `stop` it before the runs).
 */
export function createTriggers(deps: TriggersDeps) {
  const table = new TriggerTable(deps.engine);
  const service = new TriggerService({
    workflows: deps.storage.workflows,
    runsRepo: deps.storage.runs,
    table,
    runs: deps.runs,
    box: deps.box,
    log: deps.log,
    transaction: (work) => deps.engine.transaction(work),
  });
  return {
    service,
    api: triggersApi(service, deps.maxBodyBytes),
    scheduler: new Scheduler({
      table,
      workflows: deps.storage.workflows,
      triggers: service,
      log: deps.log,
      mode: deps.runs.mode,
      ...(deps.scheduleSyncMs !== undefined ? { syncMs: deps.scheduleSyncMs } : {}),
      ...crashHook(),
    }),
    hooks: hooksApi({ triggers: service, table, storage: deps.storage, hub: deps.hub, maxBodyBytes: deps.maxBodyBytes, log: deps.log }),
  };
}

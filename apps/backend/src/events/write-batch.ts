import type { Database } from "bun:sqlite";
import type { Observation, SecretRedactor, Workflow } from "@weft/types";
import type { StorageEngine } from "../storage/storage.ts";
import { present } from "../storage/row-values.ts";
import { atomically } from "../storage/table.ts";
import { RunTable, runRow, RUNS_COLUMNS, type RunRecord, type RunRepository, type RunUpdate } from "./run-repository.ts";
import { ObservationTable, type ObservationRepository, type OrderedObservation } from "./observation-repository.ts";
import { EventTable, type EventRepository, type StoredEvent } from "./event-repository.ts";

/** The storage events/ (and every domain above it that reads runs or events) needs: the run journal's tables. */
export interface JournalStorage extends StorageEngine {
  readonly runs: RunRepository;
  readonly observations: ObservationRepository;
  readonly events: EventRepository;
  /** Stores events, observations and run status changes in one transaction. */
  writeBatch(batch: WriteBatch): Promise<void>;
}

/** The journal's repositories on the engine's connection. */
export function journalRepositories(engine: StorageEngine): Omit<JournalStorage, keyof StorageEngine> {
  const [runs, events, observations] = [new RunTable(engine), new EventTable(engine), new ObservationTable(engine)];
  return { runs, events, observations, writeBatch: batchWriter(engine, runs, events, observations) };
}

/** What one flush of the run writer stores, all or nothing. */
export interface WriteBatch {
  /** Runs started outside the API (an agent's deliberations and actions), stored with their first events. */
  newRuns: { record: RunRecord; workflow: Workflow | undefined }[];
  events: StoredEvent[];
  observations: OrderedObservation[];
  /** A finished run's final observations, replacing what was stored for it while it ran. */
  finalObservations: { runId: string; observations: Observation[] }[];
  runUpdates: RunUpdate[];
}

/** The run writer's flush: SQLite's hand-written (below), PostgreSQL's through the repositories, in one transaction. */
function batchWriter(engine: StorageEngine, runs: RunRepository, events: EventRepository, observations: ObservationRepository): (batch: WriteBatch) => Promise<void> {
  const { sql, redactor } = engine;
  let writeAll: ((batch: WriteBatch) => void) | undefined;
  return async (batch) => {
    if (sql.engine === "sqlite") {
      // Prepared on first use: the tables exist once the migrations ran.
      const write = (writeAll ??= sqliteBatchWriter(sql.db, redactor));
      return void (await sql.gate(() => write(batch)));
    }
    // The journal's flush calls it inside its own transaction, whose failure rolls all of it back: no savepoint needed.
    await atomically(engine, async () => {
      for (const run of batch.newRuns) await runs.create(run.record, run.workflow);
      await events.append(batch.events);
      await observations.upsert(batch.observations);
      // Every run that ended since the last flush in two statements; a run's updates (started, ended) in one.
      await observations.replaceForRuns(batch.finalObservations);
      for (const update of mergedUpdates(batch.runUpdates)) await runs.update(update);
    });
  };
}

/** One update per run, in the order runs first appear: a later update's values over an earlier one's (what applying them in turn stores). */
export function mergedUpdates(updates: readonly RunUpdate[]): RunUpdate[] {
  const byRun = new Map<string, RunUpdate>();
  for (const update of updates) byRun.set(update.id, { ...byRun.get(update.id), ...present(update), id: update.id, status: update.status });
  return [...byRun.values()];
}

/**
 * The run writer's flush on SQLite, hand-written: the one hot path where Kysely cost more than 10%
 * (`bun run bench:journal`: cpu_us_per_run 1220 against 731 before, see README.md). Prepared
 * statements, run synchronously in one transaction (`gate.run` keeps other callers out meanwhile).
 * The same rows as RunTable, EventTable and ObservationTable write (their tables are declared there).
 */
function sqliteBatchWriter(db: Database, redactor: SecretRedactor): (batch: WriteBatch) => void {
  const redact = (value: unknown) => redactor.json(JSON.stringify(value));
  const insertRun = db.query(`INSERT INTO runs (${RUNS_COLUMNS.join(", ")}) VALUES (${RUNS_COLUMNS.map(() => "?").join(", ")})`);
  const insertEvent = db.query("INSERT INTO events (stream_id, seq, type, data) VALUES (?, ?, ?, ?)");
  const upsertObservation = db.query(
    "INSERT INTO observations (run_id, invocation_id, ord, data) VALUES (?, ?, ?, ?) ON CONFLICT (run_id, invocation_id) DO UPDATE SET ord = excluded.ord, data = excluded.data",
  );
  const deleteObservations = db.query("DELETE FROM observations WHERE run_id = ?");
  // NULL keeps the stored value.
  const updateRun = db.query(
    `UPDATE runs SET status = ?2, started_at = coalesce(?3, started_at), finished_at = coalesce(?4, finished_at),
       duration_ms = coalesce(?5, duration_ms), outputs = coalesce(?6, outputs), error = coalesce(?7, error) WHERE id = ?1`,
  );
  const observe = (runId: string, invocationId: string, ord: number, observation: unknown) => upsertObservation.run(runId, invocationId, ord, redact(observation));
  return db.transaction((batch: WriteBatch) => {
    for (const { record, workflow } of batch.newRuns) insertRun.run(...Object.values(runRow(record, workflow, redact)));
    for (const e of batch.events) insertEvent.run(e.streamId, e.seq, e.type, e.json);
    for (const { ord, observation: o } of batch.observations) observe(o.runId, o.invocationId, ord, o);
    for (const { runId, observations } of batch.finalObservations) {
      deleteObservations.run(runId);
      observations.forEach((o, ord) => observe(runId, o.invocationId, ord, { ...o, runId }));
    }
    for (const u of batch.runUpdates) {
      updateRun.run(u.id, u.status, u.startedAt ?? null, u.finishedAt ?? null, u.durationMs ?? null, u.outputs ? redact(u.outputs) : null, u.error ? redact(u.error) : null);
    }
  });
}

import { SceneCaseSchema, SceneSuiteRunSchema, type SceneSuite, type SceneSuiteRun } from "@weft/types";
import type { Selectable } from "kysely";
import { z } from "zod";
import type { Int64Column } from "../storage/ddl.ts";
import { num } from "../storage/row-values.ts";
import { Table, type TableEngine } from "../storage/table.ts";

interface SceneSuiteTables {
  scene_suites: { id: string; scene_id: string; name: string; cases_json: string; created_by: string | null; created_at: Int64Column; updated_at: Int64Column };
  scene_suite_runs: { id: string; suite_id: string; status: string; run_json: string; created_at: Int64Column };
}

const StoredCases = z.array(SceneCaseSchema);

function suiteOf(row: Selectable<SceneSuiteTables["scene_suites"]>): SceneSuite {
  return {
    id: row.id,
    name: row.name,
    sceneId: row.scene_id,
    cases: StoredCases.parse(JSON.parse(row.cases_json)),
    ...(row.created_by !== null ? { createdBy: row.created_by } : {}),
    createdAt: num(row.created_at),
    updatedAt: num(row.updated_at),
  };
}

/** Scene suites and their runs, on both engines. */
export class SceneSuiteRepository extends Table<SceneSuiteTables, TableEngine> {
  async listSuites(sceneId?: string): Promise<SceneSuite[]> {
    let q = this.db.selectFrom("scene_suites").selectAll();
    if (sceneId !== undefined) q = q.where("scene_id", "=", sceneId);
    return (await q.orderBy("created_at").orderBy("id").execute()).map(suiteOf);
  }

  async getSuite(id: string): Promise<SceneSuite | undefined> {
    const row = await this.db.selectFrom("scene_suites").selectAll().where("id", "=", id).executeTakeFirst();
    return row ? suiteOf(row) : undefined;
  }

  /** Inserts or replaces the suite (`createdBy` and `createdAt` are kept from the first save). */
  async putSuite(suite: SceneSuite): Promise<void> {
    await this.upsertRows(
      "scene_suites",
      ["id"],
      [
        {
          id: suite.id,
          scene_id: suite.sceneId,
          name: suite.name,
          cases_json: JSON.stringify(suite.cases),
          created_by: suite.createdBy ?? null,
          created_at: suite.createdAt,
          updated_at: suite.updatedAt,
        },
      ],
      ["created_by", "created_at"],
    );
  }

  /** Deletes the suite and its runs; true when there was one. */
  async deleteSuite(id: string): Promise<boolean> {
    return this.engine.transaction(async () => {
      await this.db.deleteFrom("scene_suite_runs").where("suite_id", "=", id).execute();
      const result = await this.db.deleteFrom("scene_suites").where("id", "=", id).executeTakeFirst();
      return Number(result.numDeletedRows) > 0;
    });
  }

  /** Stores the run as it is now (values in it have every known secret replaced). */
  async putRun(run: SceneSuiteRun): Promise<void> {
    await this.upsertRows("scene_suite_runs", ["id"], [{ id: run.id, suite_id: run.suiteId, status: run.status, run_json: this.redact(run), created_at: run.createdAt }], ["created_at"]);
  }

  async getRun(id: string): Promise<SceneSuiteRun | undefined> {
    const row = await this.db.selectFrom("scene_suite_runs").select("run_json").where("id", "=", id).executeTakeFirst();
    return row ? SceneSuiteRunSchema.parse(JSON.parse(row.run_json)) : undefined;
  }

  /** The suite's runs, newest first. */
  async listRuns(suiteId: string, limit: number): Promise<SceneSuiteRun[]> {
    const rows = await this.db.selectFrom("scene_suite_runs").select("run_json").where("suite_id", "=", suiteId).orderBy("created_at", "desc").orderBy("id", "desc").limit(limit).execute();
    return rows.map((row) => SceneSuiteRunSchema.parse(JSON.parse(row.run_json)));
  }

  /** Runs left `running` by a process that stopped: marked failed at start. */
  async failUnfinished(reason: string): Promise<number> {
    const rows = await this.db.selectFrom("scene_suite_runs").select("run_json").where("status", "=", "running").execute();
    for (const row of rows) {
      const run = SceneSuiteRunSchema.parse(JSON.parse(row.run_json));
      await this.putRun({ ...run, status: "failed", error: reason, finishedAt: Date.now() });
    }
    return rows.length;
  }
}

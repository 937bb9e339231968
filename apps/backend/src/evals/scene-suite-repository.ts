import { SceneCaseSchema, SceneSuiteRunSchema, type SceneSuite, type SceneSuiteRun } from "@weft/types";
import { z } from "zod";
import type { TableEngine } from "../storage/table.ts";
import { SuiteTable } from "./suite-table.ts";

/** Scene suites (scene_suites, by scene) and their runs, on both engines. */
export class SceneSuiteRepository extends SuiteTable<SceneSuite, SceneSuiteRun> {
  constructor(engine: TableEngine) {
    super(engine, {
      suites: "scene_suites",
      runs: "scene_suite_runs",
      cases: z.array(SceneCaseSchema),
      run: SceneSuiteRunSchema,
      targetOf: (row) => ({ sceneId: row.scene_id }),
      targetColumns: (suite) => ({ scene_id: suite.sceneId }),
    });
  }

  listSuites(sceneId?: string): Promise<SceneSuite[]> {
    return this.listWhere(sceneId !== undefined ? { scene_id: sceneId } : {});
  }
}

import type { Database } from "bun:sqlite";
import type { SQL } from "bun";
import type { SceneRuntimeState } from "@weft/types";
import { decodeStoredState, stateRowsSql, type StoredStateRow } from "../scene-state-store-parts.ts";

/** A scene's saved state read from a SQLite database file directly (tests and benches that look at what a killed server left). */
export function readSqliteSceneState(db: Database, sceneId: string): SceneRuntimeState | undefined {
  return decodeStoredState(sceneId, db.query<StoredStateRow, [string]>(stateRowsSql("?1")).all(sceneId));
}

/** A scene's saved state read from a PostgreSQL database directly. */
export async function readPostgresSceneState(sql: Pick<SQL, "unsafe">, sceneId: string): Promise<SceneRuntimeState | undefined> {
  return decodeStoredState(sceneId, (await sql.unsafe(stateRowsSql("$1"), [sceneId])) as StoredStateRow[]);
}

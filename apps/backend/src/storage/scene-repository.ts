import type { Database } from "bun:sqlite";
import { SceneSchema, type Scene } from "@weft/types";
import { SqliteDocumentTable, type DocumentRepository } from "./document-table.ts";

export type SceneRepository = DocumentRepository<Scene>;

export function sqliteSceneRepository(db: Database): SceneRepository {
  return new SqliteDocumentTable<Scene>(db, "scenes", SceneSchema);
}

import { SceneSchema, type Scene } from "@weft/types";
import { DocumentTable, type DocumentRepository } from "../storage/document-table.ts";
import type { SqlHandle } from "../storage/sql-handle.ts";

export type SceneRepository = DocumentRepository<Scene>;

export function createSceneRepository(handle: SqlHandle): SceneRepository {
  return new DocumentTable<Scene>(handle, "scenes", SceneSchema);
}

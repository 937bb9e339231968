import { SceneSchema, type Scene } from "@weft/types";
import { DocumentTable, type DocumentRepository } from "../storage/document-table.ts";
import type { StorageEngine } from "../storage/storage.ts";

export type SceneRepository = DocumentRepository<Scene>;

export function createSceneRepository(engine: StorageEngine): SceneRepository {
  return new DocumentTable<Scene>(engine, "scenes", SceneSchema);
}

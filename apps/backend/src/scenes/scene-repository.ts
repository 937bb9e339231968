import { SceneSchema, type Scene } from "@weft/types";
import { DocumentTable, type DocumentRepository } from "../storage/document-table.ts";
import type { StorageEngine } from "../storage/storage.ts";

export function createSceneRepository(engine: StorageEngine): DocumentRepository<Scene> {
  return new DocumentTable<Scene>(engine, "scenes", SceneSchema);
}

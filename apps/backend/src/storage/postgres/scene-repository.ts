import { SceneSchema, type Scene } from "@weft/types";
import type { SceneRepository } from "../scene-repository.ts";
import type { PostgresConnection } from "./connection.ts";
import { PostgresDocumentTable } from "./document-table.ts";

export function postgresSceneRepository(pg: PostgresConnection): SceneRepository {
  return new PostgresDocumentTable<Scene>(pg, "scenes", SceneSchema);
}

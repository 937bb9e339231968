import { Elysia } from "elysia";
import { z } from "zod";
import { NodeSpecSchema, type NodeCatalog } from "@weft/types";
import { answer } from "./errors.ts";

export const NodeCatalogAnswer = z.object({ nodes: z.array(NodeSpecSchema) });

/** `GET /api/nodes`. (`GET /api/health` is in ops/: it reports the database and the queue.) */
export function healthApi(deps: { catalog: NodeCatalog }) {
  return (
    new Elysia()
      // Specs only: implementations (and any server detail) stay on the server.
      .get("/api/nodes", () => answer(NodeCatalogAnswer, { nodes: deps.catalog.list() }))
  );
}

import { Elysia } from "elysia";
import type { NodeCatalog } from "@weft/types";
import { jsonResponse } from "./errors.ts";

/** `GET /api/nodes`. (`GET /api/health` is in ops/: it reports the database and the queue.) */
export function healthApi(deps: { catalog: NodeCatalog }) {
  return (
    new Elysia()
      // Specs only: implementations (and any server detail) stay on the server.
      .get("/api/nodes", () => jsonResponse({ nodes: deps.catalog.list() }))
  );
}

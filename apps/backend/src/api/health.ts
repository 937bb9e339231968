import { Elysia } from "elysia";
import type { ApiDeps } from "./deps.ts";
import { jsonResponse } from "./errors.ts";

export function healthApi(deps: Pick<ApiDeps, "version" | "catalog">) {
  return (
    new Elysia()
      .get("/api/health", () => jsonResponse({ ok: true, version: deps.version }))
      // Specs only: implementations (and any server detail) stay on the server.
      .get("/api/nodes", () => jsonResponse({ nodes: deps.catalog.list() }))
  );
}

import type { PermissionPolicy } from "@weft/types";
import { refuseClaimedIdsIn } from "../agents/agent-governance.ts";
import { actorOf } from "../auth/principal.ts";
import { shippedWorkflows } from "../seed/shipped-workflows.ts";
import { refuseBuiltInWrites } from "../workflows/index.ts";
import { createBuilder, type BuilderDeps } from "./index.ts";

/**
 * The Builder in an API process, acting as the request's user. Its apply writes agents, scenes and workflows too:
 * the agent-id guard (the owner's `permissions` rules) and the built-in workflows' hold there as well.
 */
export function composeBuilder(deps: Omit<BuilderDeps, "guardApply" | "actorOf"> & { permissions: () => PermissionPolicy }) {
  const { permissions, ...builderDeps } = deps;
  const { storage } = deps;
  return createBuilder({
    ...builderDeps,
    actorOf,
    guardApply: async (entries, request) => {
      await refuseBuiltInWrites(async () => (await shippedWorkflows(storage)).builtIn, entries);
      await refuseClaimedIdsIn(storage, permissions(), entries, request);
    },
  });
}

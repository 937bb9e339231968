import type { Logger, NodeCatalog, ToolHostService } from "@weft/types";
import type { WorkflowValidator } from "../workflows/workflow-validator.ts";
import type { BuilderStorage } from "./builder-storage.ts";
import type { OverlayEntry } from "./domain/change-set.ts";
import type { SessionRecord } from "./domain/records.ts";
import { AssetAccess } from "./overlay/asset-access.ts";
import { EffectiveView } from "./overlay/effective-view.ts";
import type { BuilderStore } from "./storage/builder-store.ts";

/** The tool host's `agentId` for the Builder's file access: permission rules and the audit log name it. */
export const BUILDER_TOOL_AGENT = "builder-ai";

/** What the Builder's services share: its own store, the server's store, node types and the engine's checks. */
export interface BuilderContext {
  store: BuilderStore;
  storage: BuilderStorage;
  catalog: NodeCatalog;
  validator: WorkflowValidator;
  toolHost: ToolHostService | undefined;
  log: Logger;
}

export function assetsFor(ctx: BuilderContext, session: Pick<SessionRecord, "id">): AssetAccess {
  return new AssetAccess(ctx.toolHost, { agentId: BUILDER_TOOL_AGENT, sessionId: session.id });
}

/** The session's effective view: its live working copy, or the given entries (a change set's snapshot), over the store. */
export async function viewOf(ctx: BuilderContext, session: Pick<SessionRecord, "id">, entries?: readonly OverlayEntry[]): Promise<EffectiveView> {
  return new EffectiveView(entries ?? (await ctx.store.overlay(session.id)), ctx.storage, assetsFor(ctx, session));
}

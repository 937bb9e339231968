import type { AgentProfile, BuilderObjectType, Scene, Workflow } from "@weft/types";
import type { BuilderStorage } from "../builder-storage.ts";
import type { DocumentRepository } from "../../storage/document-table.ts";
import type { OverlayEntry } from "../domain/change-set.ts";
import type { DocumentType } from "../domain/target.ts";
import { sha256Text, type AssetAccess, type AssetState } from "./asset-access.ts";

export interface DocumentKinds {
  workflow: Workflow;
  agent: AgentProfile;
  scene: Scene;
}

/** Where a read was answered from: the session's working copy, or the stored object. */
export type ReadSource = "working-copy" | "stored";

export interface EffectiveDocument<T> {
  /** Undefined when the object does not exist in the effective view (never stored, or deleted in the working copy). */
  value: T | undefined;
  source: ReadSource;
  /** The stored revision now (null: not stored). */
  storedRevision: number | null;
}

export type Baseline = Pick<BuilderStorage, "workflows" | "agents" | "scenes">;

export function overlayKey(type: BuilderObjectType, key: string): string {
  return `${type}\u0000${key}`;
}

/**
 * The effective view of a session (seed 001 §4.5): working-copy entries take precedence, the stored
 * baseline answers the rest. It never writes; the entries are the live overlay or a change set's snapshot.
 */
export class EffectiveView {
  private readonly byKey: Map<string, OverlayEntry>;

  constructor(
    readonly entries: readonly OverlayEntry[],
    private readonly baseline: Baseline,
    readonly assets: AssetAccess,
  ) {
    this.byKey = new Map(entries.map((e) => [overlayKey(e.type, e.key), e]));
  }

  entry(type: BuilderObjectType, key: string): OverlayEntry | undefined {
    return this.byKey.get(overlayKey(type, key));
  }

  repository<T extends DocumentType>(type: T): DocumentRepository<DocumentKinds[T]> {
    const repos: { [K in DocumentType]: DocumentRepository<DocumentKinds[K]> } = { workflow: this.baseline.workflows, agent: this.baseline.agents, scene: this.baseline.scenes };
    return repos[type];
  }

  async document<T extends DocumentType>(type: T, id: string): Promise<EffectiveDocument<DocumentKinds[T]>> {
    const stored = await this.repository(type).get(id);
    const storedRevision = stored ? stored.document.revision : null;
    const entry = this.entry(type, id);
    if (entry) return { value: (entry.value ?? undefined) as DocumentKinds[T] | undefined, source: "working-copy", storedRevision };
    return { value: stored?.document, source: "stored", storedRevision };
  }

  workflow(id: string): Promise<EffectiveDocument<Workflow>> {
    return this.document("workflow", id);
  }

  /** Ids in the effective view: stored ones, plus those the working copy adds, minus those it deletes. */
  async ids(type: DocumentType): Promise<string[]> {
    const ids = new Set(await this.repository(type).ids());
    for (const e of this.entries) {
      if (e.type !== type) continue;
      if (e.value === null) ids.delete(e.key);
      else ids.add(e.key);
    }
    return [...ids].sort();
  }

  /** Every effective document of a kind (for reference scans). */
  async all<T extends DocumentType>(type: T): Promise<DocumentKinds[T][]> {
    const stored = new Map((await this.repository(type).list()).items.map((r) => [r.document.id, r.document]));
    for (const e of this.entries) {
      if (e.type !== type) continue;
      if (e.value === null) stored.delete(e.key);
      else stored.set(e.key, e.value as DocumentKinds[T]);
    }
    return [...stored.values()];
  }

  /** An asset's effective text: the working copy's, or the file's as the tool host reads it. */
  async asset(path: string): Promise<{ state: AssetState; source: ReadSource }> {
    const stored = await this.assets.state(path);
    const entry = this.entry("asset", stored.path) ?? this.entry("asset", path);
    if (!entry || entry.type !== "asset") return { state: stored, source: "stored" };
    if (entry.value === null) return { state: { kind: "missing", path: entry.key }, source: "working-copy" };
    return { state: { kind: "file", path: entry.key, sha256: sha256Text(entry.value), content: entry.value }, source: "working-copy" };
  }
}

import { LRUCache } from "lru-cache";
import { LruOutputCache } from "@weft/agent-runtime";

/** Workflows whose caches are kept: more than one person edits and re-runs at a time; the rest start cold. */
export const CACHED_WORKFLOWS = 64;
/** Entries per workflow's cache: a few hundred nodes, each kept in many edited versions (an entry holds only references). */
export const CACHE_ENTRIES_PER_WORKFLOW = 20_000;

/**
 * One output cache per workflow, shared by that workflow's runs, so re-running after an edit or
 * from a node reuses the upstream outputs of earlier runs. The least recently run workflows' caches
 * are dropped first.
 */
export class WorkflowCaches {
  private readonly caches: LRUCache<string, LruOutputCache>;

  constructor(
    maxWorkflows = CACHED_WORKFLOWS,
    private readonly entriesPerWorkflow = CACHE_ENTRIES_PER_WORKFLOW,
  ) {
    this.caches = new LRUCache({ max: maxWorkflows });
  }

  for(workflowId: string): LruOutputCache {
    let cache = this.caches.get(workflowId);
    if (!cache) {
      cache = new LruOutputCache(this.entriesPerWorkflow);
      this.caches.set(workflowId, cache);
    }
    return cache;
  }

  drop(workflowId: string): void {
    this.caches.delete(workflowId);
  }
}

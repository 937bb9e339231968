import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import type { z } from "zod";
import { AgentProfileSchema, SceneSchema, WorkflowSchema, type AgentProfile, type Logger, messageOf, type Scene, type Workflow } from "@weft/types";
import type { DocumentRepository } from "../storage/document-table.ts";
import type { MetaTable } from "./meta-repository.ts";

const LOADED_KEY = "examples_loaded_at";

/** The storage the example loader writes to. */
export interface SeedStorage {
  readonly workflows: DocumentRepository<Workflow>;
  readonly agents: DocumentRepository<AgentProfile>;
  readonly scenes: DocumentRepository<Scene>;
  readonly meta: MetaTable;
}

export interface ExampleLoadReport {
  loaded: { workflows: number; agents: number; scenes: number };
  /** Files that could not be loaded, with why (they are skipped, the rest still loads). */
  skipped: { file: string; reason: string }[];
}

async function loadFolder<T extends { id: string; name: string; revision: number }>(folder: string, schema: z.ZodType<T>, repo: DocumentRepository<T>, report: ExampleLoadReport): Promise<number> {
  if (!existsSync(folder)) return 0;
  let count = 0;
  for (const name of readdirSync(folder)
    .filter((f) => f.endsWith(".json"))
    .sort()) {
    const file = join(folder, name);
    let raw: unknown;
    try {
      raw = JSON.parse(readFileSync(file, "utf8"));
    } catch (error) {
      report.skipped.push({ file, reason: `not JSON: ${messageOf(error)}` });
      continue;
    }
    const parsed = schema.safeParse(raw);
    if (!parsed.success) {
      const issue = parsed.error.issues[0];
      report.skipped.push({ file, reason: `${issue?.path.join(".") || "document"}: ${issue?.message ?? "invalid"}` });
      continue;
    }
    const result = await repo.create(parsed.data);
    if (result.kind === "exists") report.skipped.push({ file, reason: `the id "${parsed.data.id}" is already taken` });
    else count++;
  }
  return count;
}

/**
 * Loads the example workflows (`<dir>/*.json`), agents (`<dir>/agents/*.json`) and scenes
 * (`<dir>/scenes/*.json`) once per installation: a later start never loads them again, so the
 * user's edits and deletions stay as they are.
 */
export async function loadExamplesOnce(storage: SeedStorage, dir: string, log: Logger): Promise<ExampleLoadReport | undefined> {
  if ((await storage.meta.get(LOADED_KEY)) !== undefined) return undefined;
  const report: ExampleLoadReport = { loaded: { workflows: 0, agents: 0, scenes: 0 }, skipped: [] };
  report.loaded.workflows = await loadFolder(dir, WorkflowSchema, storage.workflows, report);
  report.loaded.agents = await loadFolder(join(dir, "agents"), AgentProfileSchema, storage.agents, report);
  report.loaded.scenes = await loadFolder(join(dir, "scenes"), SceneSchema, storage.scenes, report);
  await storage.meta.set(LOADED_KEY, String(Date.now()));
  for (const s of report.skipped) log.warn("example not loaded", s);
  log.info("examples loaded", report.loaded);
  return report;
}

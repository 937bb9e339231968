import { existsSync, readdirSync, readFileSync } from "node:fs";
import { join } from "node:path";
import { z } from "zod";
import type { SeedStorage } from "./example-loader.ts";

/**
 * The shipped workflows the system itself runs: every agent's default deliberation. An edit to one
 * changes every agent that uses it, so the API refuses to overwrite or delete them (a user duplicates
 * one to change it).
 */
export const BUILT_IN_WORKFLOW_IDS: readonly string[] = ["agent-deliberation"];

/** The meta key naming this installation's shipped workflows: which are built in, which are examples. */
const SHIPPED_KEY = "shipped_workflows";
const ShippedSchema = z.object({ builtIn: z.array(z.string()), examples: z.array(z.string()) });

export interface ShippedWorkflows {
  /** Read-only for every role: duplicated to be changed. */
  builtIn: ReadonlySet<string>;
  /** Loaded from the examples folder (editable; the Home view shows them as examples). */
  examples: ReadonlySet<string>;
}

/** The ids of the workflow files in the examples folder (a file without a string id is left out). */
function idsInFolder(dir: string): string[] {
  if (!existsSync(dir)) return [];
  return readdirSync(dir)
    .filter((f) => f.endsWith(".json"))
    .flatMap((f) => {
      try {
        const id: unknown = (JSON.parse(readFileSync(join(dir, f), "utf8")) as { id?: unknown }).id;
        return typeof id === "string" ? [id] : [];
      } catch {
        return [];
      }
    });
}

/**
 * Marks the shipped workflows stored now, once per installation: on the start that loads the examples,
 * or on the first start of an installation that loaded them before this mark existed. A workflow made
 * later under a shipped id is the user's own.
 */
export async function markShippedWorkflows(storage: Pick<SeedStorage, "workflows" | "meta">, dir: string): Promise<void> {
  if ((await storage.meta.get(SHIPPED_KEY)) !== undefined) return;
  const stored = new Set(await storage.workflows.ids());
  const shipped = idsInFolder(dir).filter((id) => stored.has(id));
  const builtIn = BUILT_IN_WORKFLOW_IDS.filter((id) => shipped.includes(id));
  await storage.meta.set(SHIPPED_KEY, JSON.stringify({ builtIn, examples: shipped.filter((id) => !builtIn.includes(id)) }));
}

/** This installation's shipped workflows (read each time: another API process may have marked them). */
export async function shippedWorkflows(storage: Pick<SeedStorage, "workflows" | "meta">): Promise<ShippedWorkflows> {
  const raw = await storage.meta.get(SHIPPED_KEY);
  const parsed = raw === undefined ? undefined : ShippedSchema.safeParse(JSON.parse(raw));
  const value = parsed?.success ? parsed.data : { builtIn: [], examples: [] };
  return { builtIn: new Set(value.builtIn), examples: new Set(value.examples) };
}

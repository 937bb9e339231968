import { readdir, readFile } from "node:fs/promises";
import { join } from "node:path";
import { WorkflowSchema, type Workflow, type WorkflowSource } from "@weft/types";

interface Entry {
  file: string;
  doc: unknown;
}

/**
 * Workflows saved as `*.json` files in one folder, found by the `id` inside each file (for the CLI
 * and tests). Other JSON files there (agent profiles, scenes) are ignored. The folder is read once,
 * on first use; `refresh()` reads it again.
 */
interface Index {
  byId: Map<string, Entry[]>;
  /** `*.json` files that are not JSON at all: a workflow asked for may be one of them. */
  unreadable: string[];
}

export class DirectoryWorkflowSource implements WorkflowSource {
  private index: Promise<Index> | undefined;

  constructor(readonly directory: string) {}

  refresh(): void {
    this.index = undefined;
  }

  private async load(): Promise<Index> {
    const byId = new Map<string, Entry[]>();
    const unreadable: string[] = [];
    const names = (await readdir(this.directory)).filter((name) => name.endsWith(".json")).sort();
    for (const name of names) {
      const file = join(this.directory, name);
      let doc: unknown;
      try {
        doc = JSON.parse(await readFile(file, "utf8"));
      } catch {
        unreadable.push(name);
        continue;
      }
      if (doc === null || typeof doc !== "object" || !Array.isArray((doc as { nodes?: unknown }).nodes)) continue;
      const id = (doc as { id?: unknown }).id;
      if (typeof id !== "string") continue;
      byId.set(id, [...(byId.get(id) ?? []), { file, doc }]);
    }
    return { byId, unreadable };
  }

  /** The workflow with this id, or undefined; throws (naming the file) when that file is not a valid workflow. */
  async getWorkflow(id: string): Promise<Workflow | undefined> {
    this.index ??= this.load();
    const { byId, unreadable } = await this.index;
    const entries = byId.get(id);
    if (!entries) {
      if (unreadable.length === 0) return undefined;
      throw new Error(`no workflow in ${this.directory} has the id "${id}"; these files are not valid JSON and could not be read: ${unreadable.join(", ")}`);
    }
    if (entries.length > 1) throw new Error(`the id "${id}" is used by more than one file: ${entries.map((e) => e.file).join(", ")}`);
    const parsed = WorkflowSchema.safeParse(entries[0].doc);
    if (!parsed.success) {
      const first = parsed.error.issues[0];
      throw new Error(`${entries[0].file} is not a valid workflow: ${first.path.join(".") || "document"}: ${first.message}`);
    }
    return parsed.data;
  }

  /** Ids of every workflow in the folder. */
  async ids(): Promise<string[]> {
    this.index ??= this.load();
    return [...(await this.index).byId.keys()].sort();
  }
}

import type { Workflow } from "@weft/types";

/** The part of a node type after the namespace, made safe for an id: `core:text-template` → `text_template`. */
export function nodeIdBase(type: string): string {
  const name = type.includes(":") ? type.slice(type.indexOf(":") + 1) : type;
  return name.replace(/[^A-Za-z0-9_]/g, "_") || "node";
}

/** Hands out readable ids (`text_template_3`) that are not taken in `taken`, remembering those it gave. */
export class IdAllocator {
  private readonly taken: Set<string>;

  constructor(taken: Iterable<string>) {
    this.taken = new Set(taken);
  }

  static forWorkflow(doc: Pick<Workflow, "nodes" | "edges" | "annotations">): IdAllocator {
    return new IdAllocator([...doc.nodes.map((n) => n.id), ...doc.edges.map((e) => e.id), ...doc.annotations.map((a) => a.id)]);
  }

  next(base: string): string {
    let n = 1;
    while (this.taken.has(`${base}_${n}`)) n++;
    const id = `${base}_${n}`;
    this.taken.add(id);
    return id;
  }

  /** `id` itself when free, else the next free `<id without its _N suffix>_N` (pasting `llm_1` twice gives `llm_2`). */
  keepOrRenumber(id: string): string {
    if (!this.taken.has(id)) {
      this.taken.add(id);
      return id;
    }
    return this.next(id.replace(/_\d+$/, ""));
  }

  /** `base` itself when free, else `base_2`, `base_3`, … */
  claim(base: string): string {
    if (!this.taken.has(base)) {
      this.taken.add(base);
      return base;
    }
    let n = 2;
    while (this.taken.has(`${base}_${n}`)) n++;
    const id = `${base}_${n}`;
    this.taken.add(id);
    return id;
  }
}

/** An edge id that says what it connects; unique because one input port takes one edge from one output. */
export function edgeId(source: string, sourceHandle: string, target: string, targetHandle: string): string {
  return `${source}.${sourceHandle}->${target}.${targetHandle}`;
}

/** A workflow id for a new document: `name-in-kebab-case` plus a short random suffix. */
const slugOf = (name: string) =>
  name
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-|-$/g, "")
    .slice(0, 40) || "workflow";

export function newWorkflowId(name: string): string {
  return `${slugOf(name)}-${Math.random().toString(36).slice(2, 8)}`;
}

/** Whether `id` is one newWorkflowId made from this name. */
export function idNamesWorkflow(id: string, name: string): boolean {
  return id.startsWith(`${slugOf(name)}-`) && !id.slice(slugOf(name).length + 1).includes("-");
}

/**
 * A run's id as shown in a banner or a tab: its last 8 characters. Run ids are UUIDv7s, whose first characters are
 * the time they were made (runs made within a minute share them); the end is random.
 */
export function shortRunId(runId: string): string {
  return runId.slice(-8);
}

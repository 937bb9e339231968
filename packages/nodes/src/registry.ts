import { closest, distance } from "fastest-levenshtein";
import { NodeSpecSchema, type NodeCatalog, type NodeDefinition, type NodeSpec } from "@weft/types";

export class UnknownNodeTypeError extends Error {
  readonly code = "UNKNOWN_NODE_TYPE";
  constructor(
    readonly type: string,
    readonly suggestions: string[],
  ) {
    super(`Unknown node type "${type}".` + (suggestions.length ? ` Did you mean ${suggestions.map((s) => `"${s}"`).join(" or ")}?` : "") + " Run `weft nodes` to list the known types.");
    this.name = "UnknownNodeTypeError";
  }
}

export class DuplicateNodeTypeError extends Error {
  readonly code = "DUPLICATE_NODE_TYPE";
  constructor(readonly type: string) {
    super(`Node type "${type}" is already registered: give the new node another name (or another namespace, e.g. "my:${type.slice(type.indexOf(":") + 1)}").`);
    this.name = "DuplicateNodeTypeError";
  }
}

/** The node types a process knows: register, look up, list specs. */
export class NodeRegistry implements NodeCatalog {
  private readonly defs = new Map<string, NodeDefinition>();

  register(def: NodeDefinition): this {
    const spec = NodeSpecSchema.parse(def.spec);
    if (this.defs.has(spec.type)) throw new DuplicateNodeTypeError(spec.type);
    this.defs.set(spec.type, { spec, execute: def.execute });
    return this;
  }

  registerAll(defs: Iterable<NodeDefinition>): this {
    for (const def of defs) this.register(def);
    return this;
  }

  has(type: string): boolean {
    return this.defs.has(type);
  }

  get(type: string): NodeDefinition | undefined {
    return this.defs.get(type);
  }

  /** Like `get`, but an unknown type is an error naming the nearest known types. */
  require(type: string): NodeDefinition {
    const def = this.defs.get(type);
    if (!def) throw new UnknownNodeTypeError(type, this.suggest(type));
    return def;
  }

  list(): NodeSpec[] {
    return [...this.defs.values()].map((d) => d.spec).sort((a, b) => a.category.localeCompare(b.category) || a.type.localeCompare(b.type));
  }

  /** Up to three known types nearest to `type` (by edit distance, also matching on the name alone). */
  suggest(type: string): string[] {
    const known = [...this.defs.keys()];
    if (known.length === 0) return [];
    const name = type.includes(":") ? type.slice(type.indexOf(":") + 1) : type;
    const scored = known
      .map((k) => ({ k, d: Math.min(distance(type, k), distance(name, k.slice(k.indexOf(":") + 1))) }))
      .filter((s) => s.d <= Math.max(2, Math.floor(name.length / 2)))
      .sort((a, b) => a.d - b.d || a.k.localeCompare(b.k))
      .slice(0, 3)
      .map((s) => s.k);
    return scored.length > 0 ? scored : [closest(type, known)];
  }
}

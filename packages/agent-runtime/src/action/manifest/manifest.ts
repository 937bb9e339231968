import type { NodeSpec, Workflow } from "@weft/types";
import { nameDistance } from "../suggest.ts";
import { skillEntryFromWorkflow, toolEntryFromNodeSpec, type ManifestEntry } from "./entry.ts";
import { assignToolNames } from "./safe-name.ts";

/** How a tag written by the model maps to a manifest entry. */
export type ToolResolution = { found: true; entry: ManifestEntry; /** set when the match needed a repair (letter case) */ repair?: string } | { found: false; suggestions: ManifestEntry[] };

/**
 * The tools and skills one agent may call, with unique LLM-safe names. Lookup is by safe name or by
 * id; a case-insensitive match is accepted as a repair (names are unique case-insensitively).
 */
export class Manifest {
  readonly entries: readonly ManifestEntry[];
  private readonly byName = new Map<string, ManifestEntry>();
  private readonly byLowerName = new Map<string, ManifestEntry>();
  private readonly byId = new Map<string, ManifestEntry[]>();
  private readonly byLowerId = new Map<string, ManifestEntry[]>();

  private constructor(entries: ManifestEntry[]) {
    this.entries = Object.freeze(entries);
    for (const e of entries) {
      this.byName.set(e.name, e);
      this.byLowerName.set(e.name.toLowerCase(), e);
      push(this.byId, e.id, e);
      push(this.byLowerId, e.id.toLowerCase(), e);
    }
  }

  /**
   * A manifest of `entries`: duplicates (same kind and id) are dropped, names are made unique.
   * Colliding names keep the smallest id on the plain name; the others get a stable hash suffix.
   */
  static create(entries: Iterable<ManifestEntry>): Manifest {
    const seen = new Set<string>();
    const unique: ManifestEntry[] = [];
    for (const e of entries) {
      const key = `${e.kind}\u0000${e.id}`;
      if (seen.has(key)) continue;
      seen.add(key);
      unique.push(e);
    }
    const names = assignToolNames(unique);
    return new Manifest(unique.map((e, i) => (e.name === names[i] ? e : { ...e, name: names[i]! })));
  }

  static from(tools: Manifest | readonly ManifestEntry[]): Manifest {
    return tools instanceof Manifest ? tools : Manifest.create(tools);
  }

  /** The entry called `name` (safe name) exactly, or undefined. */
  get(name: string): ManifestEntry | undefined {
    return this.byName.get(name);
  }

  /** The entry of a node type or skill id; `kind` disambiguates an id used by both. */
  getById(id: string, kind?: ManifestEntry["kind"]): ManifestEntry | undefined {
    const list = this.byId.get(id);
    return kind ? list?.find((e) => e.kind === kind) : list?.length === 1 ? list[0] : undefined;
  }

  get tools(): ManifestEntry[] {
    return this.entries.filter((e) => e.kind === "tool");
  }

  get skills(): ManifestEntry[] {
    return this.entries.filter((e) => e.kind === "skill");
  }

  resolve(tag: string): ToolResolution {
    const exact = this.byName.get(tag) ?? single(this.byId.get(tag));
    if (exact) return { found: true, entry: exact };
    const lower = tag.toLowerCase();
    const loose = this.byLowerName.get(lower) ?? single(this.byLowerId.get(lower));
    if (loose) {
      return { found: true, entry: loose, repair: `The tool tag <${tag}> was matched to \`${loose.name}\` ignoring letter case; write <${loose.name}> exactly.` };
    }
    return { found: false, suggestions: this.suggest(tag) };
  }

  /** Entries whose name, id or id without namespace is nearest to `tag`. */
  suggest(tag: string, max = 3): ManifestEntry[] {
    const scored: Array<{ e: ManifestEntry; d: number }> = [];
    for (const e of this.entries) {
      const local = e.id.includes(":") ? e.id.slice(e.id.indexOf(":") + 1) : e.id;
      const ds = [nameDistance(tag, e.name), nameDistance(tag, e.id), nameDistance(tag, local)].filter((d): d is number => d !== undefined);
      if (ds.length > 0) scored.push({ e, d: Math.min(...ds) });
    }
    scored.sort((a, b) => a.d - b.d || (a.e.name < b.e.name ? -1 : 1));
    return scored.slice(0, max).map((s) => s.e);
  }
}

/** The tools (node types) and skills (workflows) of an agent. */
export interface ManifestSource {
  nodes?: Iterable<NodeSpec>;
  skills?: Iterable<Pick<Workflow, "id" | "name" | "description" | "nodes">>;
}

export function buildManifest(source: ManifestSource): Manifest {
  const entries: ManifestEntry[] = [];
  for (const spec of source.nodes ?? []) entries.push(toolEntryFromNodeSpec(spec));
  for (const wf of source.skills ?? []) entries.push(skillEntryFromWorkflow(wf));
  return Manifest.create(entries);
}

function push<K, V>(map: Map<K, V[]>, key: K, value: V): void {
  const list = map.get(key);
  if (list) list.push(value);
  else map.set(key, [value]);
}

function single<T>(list: T[] | undefined): T | undefined {
  return list && list.length === 1 ? list[0] : undefined;
}

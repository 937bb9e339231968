import { randomUUID } from "node:crypto";
import { z } from "zod";
import { SceneRuntimeStateSchema, type MailboxState, type SceneRuntimeState, type WorldChange } from "@weft/types";
import { checkStored, decodeStoredJson, StoredRecordInvalidError } from "../storage/document-table.ts";

/** The state row's `data` in the "parts" layout: the state without its mailboxes and world changes. */
export type StateHeader = Omit<SceneRuntimeState, "mailboxes" | "world"> & { world: Omit<SceneRuntimeState["world"], "history"> };

/** One write of a scene's state, as JSON texts (already redacted) for the engine to store. */
export interface StateWrite {
  /** Names this write: stored in the state row's `write_mark`. */
  mark: string;
  header: string;
  /** Mailbox rows to insert or replace, by instance id. */
  mailboxes: Array<[instanceId: string, text: string]>;
  /** Mailbox rows to delete (agents no longer in the state); a whole write deletes them all first instead. */
  droppedMailboxes: string[];
  /** World change rows to insert or replace, by seq. */
  changes: Array<[seq: number, text: string]>;
  /** World change rows below this seq are deleted (the state no longer keeps them). */
  keepChangesFrom: number;
}

/** What one store instance last wrote for a scene: objects of the runtime's snapshots, compared by identity. */
interface Written {
  mark: string;
  /** A copy of the snapshot's record: a caller saving the same record again, modified, is still seen. */
  mailboxes: ReadonlyMap<string, MailboxState>;
  /** The newest world change written; the rows hold the changes from `keepFrom` up to it. */
  lastChange: WorldChange | undefined;
}

/**
 * Decides what a scene's save must write, comparing each part of the snapshot with the object this store last wrote
 * (`serializeScene` keeps unchanged ones). That memory is trusted only while the state row still holds its last
 * write's `mark` (a partial write updates the row only where it holds `previousMark`); otherwise the whole state is
 * written (`whole`). See README.md.
 */
export class SceneStateParts {
  private readonly writer = randomUUID();
  private counter = 0;
  private readonly written = new Map<string, Written>();

  constructor(private readonly encode: (value: unknown) => string) {}

  /** The changes since the last write remembered for the scene, or undefined when only a whole write will do. */
  changes(state: SceneRuntimeState): { previousMark: string; write: StateWrite } | undefined {
    const last = this.written.get(state.sceneId);
    return last && this.since(state, last);
  }

  /** The whole state (the changes since nothing was written): the engine deletes the scene's part rows first. */
  whole(state: SceneRuntimeState): StateWrite {
    // With no change written every one is new, so `since` always answers.
    return this.since(state, { mark: "", mailboxes: new Map(), lastChange: undefined })!.write;
  }

  private since(state: SceneRuntimeState, last: Written): { previousMark: string; write: StateWrite } | undefined {
    const fresh = newChanges(state.world.history, last.lastChange);
    if (!fresh) return undefined;
    const mailboxes: StateWrite["mailboxes"] = [];
    for (const [id, mailbox] of Object.entries(state.mailboxes)) if (last.mailboxes.get(id) !== mailbox) mailboxes.push([id, this.encode(mailbox)]);
    const droppedMailboxes = [...last.mailboxes.keys()].filter((id) => !Object.hasOwn(state.mailboxes, id));
    const changes = fresh.map((c): [number, string] => [c.seq, this.encode(c)]);
    // Rows of world changes older than the oldest the state keeps are deleted.
    const keepChangesFrom = state.world.history[0]?.seq ?? state.world.seq + 1;
    return { previousMark: last.mark, write: { mark: `${this.writer}:${++this.counter}`, header: this.encode(headerOf(state)), mailboxes, droppedMailboxes, changes, keepChangesFrom } };
  }

  /**
   * Called once the write's statements ran (in its transaction): the memory follows it. A stopped scene
   * is not remembered (its next save, if any, writes it whole).
   */
  wrote(state: SceneRuntimeState, write: StateWrite): void {
    if (state.status === "stopped") return void this.written.delete(state.sceneId);
    this.written.set(state.sceneId, { mark: write.mark, mailboxes: new Map(Object.entries(state.mailboxes)), lastChange: state.world.history.at(-1) });
  }

  /** Forgets a scene (cleared, deleted, or a write of it failed). */
  forget(sceneId: string): void {
    this.written.delete(sceneId);
  }
}

/**
 * The world changes made since `last` (all of them when none was written), or undefined when the
 * history is not a continuation of what was written (another runtime's, e.g. after a restore).
 */
function newChanges(history: readonly WorldChange[], last: WorldChange | undefined): readonly WorldChange[] | undefined {
  if (!last) return history;
  for (let i = history.length - 1; i >= 0; i--) {
    const change = history[i];
    if (change.seq === last.seq) return change === last ? history.slice(i + 1) : undefined;
    if (change.seq < last.seq) return undefined;
  }
  // More changes than the history keeps came since the last write: every kept one is new.
  return history.length > 0 && history[0].seq > last.seq ? history : undefined;
}

function headerOf(state: SceneRuntimeState): StateHeader {
  const { mailboxes: _mailboxes, world, ...rest } = state;
  return { ...rest, world: { document: world.document, seq: world.seq } };
}

/**
 * A state's rows, read by one statement (one snapshot of the database on either engine): `part` "h"
 * is the state row (`key` its layout), "m" a mailbox (`key` its instance id), "c" a world change.
 */
export interface StoredStateRow {
  part: string;
  key: string;
  seq: number | string;
  data: string;
}

/** The one statement reading a state's rows (`?1`/`$1` is the scene id, written by each engine). */
export const stateRowsSql = (param: string): string =>
  `SELECT 'h' AS part, layout AS key, 0 AS seq, data FROM scene_states WHERE scene_id = ${param}
   UNION ALL SELECT 'm' AS part, key, 0 AS seq, data FROM scene_state_parts WHERE scene_id = ${param} AND kind = 'mailbox'
   UNION ALL SELECT 'c' AS part, '' AS key, seq, data FROM scene_world_changes WHERE scene_id = ${param}`;

const AnyJson = z.unknown();
const JsonObject = z.record(z.string(), z.unknown());

/**
 * A state from its rows (either layout), checked whole, or undefined when it has no state row. A row
 * that does not fit fails with `StoredRecordInvalidError` naming the scene; nothing is changed.
 */
export function decodeStoredState(sceneId: string, rows: readonly StoredStateRow[]): SceneRuntimeState | undefined {
  const head = rows.find((r) => r.part === "h");
  if (!head) return undefined;
  const what = "state of scene";
  // The state row's layout: "whole", the state as one JSON text (rows written before scenes-002), or "parts", the
  // header in `data` and the mailboxes and world changes in their own rows.
  switch (head.key) {
    case "whole":
      return decodeStoredJson(what, sceneId, head.data, SceneRuntimeStateSchema);
    case "parts": {
      const header = decodeStoredJson(what, sceneId, head.data, JsonObject);
      const world = JsonObject.safeParse(header.world);
      const mailboxes: Record<string, unknown> = {};
      const changes: Array<{ seq: number; change: unknown }> = [];
      for (const r of rows) {
        if (r.part === "m") mailboxes[r.key] = decodeStoredJson(`mailbox "${r.key}" of scene`, sceneId, r.data, AnyJson);
        else if (r.part === "c") changes.push({ seq: Number(r.seq), change: decodeStoredJson("world change of scene", sceneId, r.data, AnyJson) });
      }
      const history = changes.sort((a, b) => a.seq - b.seq).map((c) => c.change);
      return checkStored(what, sceneId, { ...header, world: { ...(world.success ? world.data : {}), history }, mailboxes }, SceneRuntimeStateSchema);
    }
    default:
      throw new StoredRecordInvalidError(what, sceneId, `has the unknown layout "${head.key}"`);
  }
}

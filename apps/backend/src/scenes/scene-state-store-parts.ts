import { z } from "zod";
import { SceneRuntimeStateSchema, type MailboxState, type SceneRuntimeState, type WorldChange } from "@weft/types";
import { checkStored, decodeStoredJson, StoredRecordInvalidError } from "../storage/document-table.ts";

/** The state row's `data` in the "parts" layout: the state without its mailboxes and world changes. */
export type StateHeader = Omit<SceneRuntimeState, "mailboxes" | "world"> & { world: Omit<SceneRuntimeState["world"], "history"> };

/** What a store last wrote of a scene: objects of the runtime's snapshots, compared by identity. */
export interface Written {
  /** Stored in the state row's `write_mark`. */
  mark: string;
  /** A copy of the snapshot's record: a caller saving the same record again, modified, is still seen. */
  mailboxes: ReadonlyMap<string, MailboxState>;
  /** The newest world change written; the rows hold the changes from the oldest the state keeps up to it. */
  lastChange: WorldChange | undefined;
}

/**
 * The world changes made since `last` (all of them when none was written), or undefined when the
 * history is not a continuation of what was written (another runtime's, e.g. after a restore).
 */
export function newChanges(history: readonly WorldChange[], last: WorldChange | undefined): readonly WorldChange[] | undefined {
  if (!last) return history;
  for (let i = history.length - 1; i >= 0; i--) {
    const change = history[i];
    if (change.seq === last.seq) return change === last ? history.slice(i + 1) : undefined;
    if (change.seq < last.seq) return undefined;
  }
  // More changes than the history keeps came since the last write: every kept one is new.
  return history.length > 0 && history[0].seq > last.seq ? history : undefined;
}

export function headerOf(state: SceneRuntimeState): StateHeader {
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

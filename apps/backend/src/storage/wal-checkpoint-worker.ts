/**
 * The thread `WalCheckpointer` starts: its own connection to the database file, on which it copies the
 * WAL back into the file when asked (`PRAGMA wal_checkpoint(PASSIVE)`: never waits for a lock), with the
 * copy's two fsyncs. When everything was copied it also writes the first transaction of the WAL's next
 * round (when it checkpointed, in `meta`): that writer starts the WAL over and syncs its new header, so
 * that fsync happens here too, not in the server's next commit.
 */
import { Database } from "bun:sqlite";
import type { CheckpointReply, CheckpointRequest } from "./wal-checkpointer.ts";
import { runAtLowPriority } from "../background-thread.ts";

declare const self: Worker;

// On a busy machine the copy can wait.
runAtLowPriority();

let db: Database | undefined;

function connection(file: string): Database {
  if (db) return db;
  db = new Database(file, { create: false });
  db.exec("PRAGMA wal_autocheckpoint = 0");
  db.exec("PRAGMA busy_timeout = 5000");
  return db;
}

function answer(request: CheckpointRequest): CheckpointReply {
  switch (request.kind) {
    case "checkpoint": {
      const conn = connection(request.file);
      const row = conn.query<{ log: number; checkpointed: number }, []>("PRAGMA wal_checkpoint(PASSIVE)").get();
      if (row && row.log > 0 && row.checkpointed === row.log) {
        conn.run("INSERT INTO meta (key, value) VALUES ('wal_checkpointed_at', ?) ON CONFLICT (key) DO UPDATE SET value = excluded.value", [new Date().toISOString()]);
      }
      return { id: request.id, ok: true };
    }
    case "close":
      // Closed first, so the server's own connection is the last one and its close checkpoints and removes the WAL.
      db?.close();
      db = undefined;
      return { id: request.id, ok: true };
    default: {
      const never: never = request;
      return never;
    }
  }
}

self.onmessage = (event: MessageEvent<CheckpointRequest>) => {
  const request = event.data;
  let reply: CheckpointReply;
  try {
    reply = answer(request);
  } catch (error) {
    reply = { id: request.id, ok: false, message: error instanceof Error ? error.message : String(error) };
  }
  postMessage(reply);
};

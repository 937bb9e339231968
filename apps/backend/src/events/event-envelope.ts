import type { RunEvent } from "@weft/types";
import type { StoredEvent } from "../storage/event-repository.ts";

/**
 * An event's text as stored, without what its row's columns already say: its type, stream and seq,
 * and a node's invocation id when it is `<stream>:<node>` (as it is for every node of a plain run).
 * A busy scene stores ~20 events per agent step; those fields were ~120 bytes of each. The marker
 * key comes first (`{"$e":1` or, with the invocation id left out, `{"$e":2,"nodeId":…`), so a reader
 * puts the envelope back by splicing text, without parsing (`withEnvelope`). Rows written without
 * it (before, or by a journal without payload references) are read as they are.
 */
export function envelopeFree(event: RunEvent): string {
  const { type: _type, streamId, seq: _seq, ...rest } = event;
  const fields = rest as Record<string, unknown>;
  if (typeof fields.nodeId === "string" && fields.invocationId === `${streamId}:${fields.nodeId}`) {
    const { nodeId, invocationId: _invocationId, ...others } = fields;
    return joinFields(`{"$e":2,"nodeId":${JSON.stringify(nodeId)}`, others);
  }
  return joinFields(`{"$e":1`, fields);
}

function joinFields(head: string, fields: Record<string, unknown>): string {
  const body = JSON.stringify(fields);
  return body === "{}" ? `${head}}` : `${head},${body.slice(1)}`;
}

const NODE_ID = /^\{"\$e":2,"nodeId":("(?:[^"\\]|\\.)*")/;

/** The stored event's whole text: the envelope spliced back in front. */
export function withEnvelope(event: StoredEvent): string {
  const { json } = event;
  const head = `{"type":${JSON.stringify(event.type)},"streamId":${JSON.stringify(event.streamId)},"seq":${event.seq}`;
  if (json.startsWith(`{"$e":1`)) return head + json.slice(7);
  if (json.startsWith(`{"$e":2`)) {
    const match = NODE_ID.exec(json);
    if (!match) return json;
    const nodeId = match[1] as string;
    const invocationId = JSON.stringify(`${event.streamId}:${JSON.parse(nodeId) as string}`);
    return `${head},"nodeId":${nodeId},"invocationId":${invocationId}${json.slice(match[0].length)}`;
  }
  return json;
}

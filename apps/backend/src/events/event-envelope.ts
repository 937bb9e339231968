import type { RunEvent } from "@weft/types";

/**
 * An event's text as stored, without what its row's columns already say: its type, stream and seq,
 * a node's invocation id when it is `<stream>:<node>` (as it is for every node of a plain run) and a
 * run event's `runId` when it is the stream's; and without the values most node events have (`"attempt":1`
 * of a first start, `"cached":false` of a computed node). A busy scene stores ~25 events per agent step,
 * most of them a run's and its nodes': those fields were ~150 bytes of each. The marker key comes first,
 * `{"$e":<n>`, where n's low two bits say which envelope is left out (1: type, stream and seq; 2: those
 * and the invocation id, the node id following the marker) and its higher bits which other fields; a
 * reader puts them back by splicing text, without parsing (`withEnvelope`). Rows written without it
 * (before, or by a journal without payload references) are read as they are.
 */
const NODE_FORM = 2;
const PLAIN_FORM = 1;
const RUN_ID = 4;
const FIRST_ATTEMPT = 8;
const NOT_CACHED = 16;
const KNOWN_BITS = 3 | RUN_ID | FIRST_ATTEMPT | NOT_CACHED;

export function envelopeFree(event: RunEvent): string {
  const source = event as unknown as Record<string, unknown>;
  const { streamId } = event;
  const nodeForm = typeof source.nodeId === "string" && source.invocationId === `${streamId}:${source.nodeId}`;
  let marker = nodeForm ? NODE_FORM : PLAIN_FORM;
  const fields: Record<string, unknown> = {};
  for (const key of Object.keys(source)) {
    const value = source[key];
    switch (key) {
      case "type":
      case "streamId":
      case "seq":
        continue;
      case "nodeId":
      case "invocationId":
        if (nodeForm) continue;
        break;
      case "runId":
        if (value === streamId) {
          marker |= RUN_ID;
          continue;
        }
        break;
      case "attempt":
        if (value === 1) {
          marker |= FIRST_ATTEMPT;
          continue;
        }
        break;
      case "cached":
        if (value === false) {
          marker |= NOT_CACHED;
          continue;
        }
        break;
    }
    fields[key] = value;
  }
  const head = nodeForm ? `{"$e":${marker},"nodeId":${JSON.stringify(source.nodeId)}` : `{"$e":${marker}`;
  const body = JSON.stringify(fields);
  return body === "{}" ? `${head}}` : `${head},${body.slice(1)}`;
}

const MARKER = /^\{"\$e":(\d+)/;
const NODE_ID = /^,"nodeId":("(?:[^"\\]|\\.)*")/;

/** A stored event's whole text (its row: `StoredEvent`): what was left out spliced back in (the envelope in front, default values at the end). */
export function withEnvelope(event: { streamId: string; seq: number; type: string; json: string }): string {
  const { json } = event;
  const marker = MARKER.exec(json);
  if (!marker) return json;
  const bits = Number(marker[1]);
  if ((bits & ~KNOWN_BITS) !== 0) return json;
  let head = `{"type":${JSON.stringify(event.type)},"streamId":${JSON.stringify(event.streamId)},"seq":${event.seq}`;
  let rest = json.slice(marker[0].length);
  switch (bits & 3) {
    case PLAIN_FORM:
      break;
    case NODE_FORM: {
      const node = NODE_ID.exec(rest);
      if (!node) return json;
      const nodeId = node[1] as string;
      head += `,"nodeId":${nodeId},"invocationId":${JSON.stringify(`${event.streamId}:${JSON.parse(nodeId) as string}`)}`;
      rest = rest.slice(node[0].length);
      break;
    }
    default:
      return json;
  }
  if (bits & RUN_ID) head += `,"runId":${JSON.stringify(event.streamId)}`;
  const tail = (bits & FIRST_ATTEMPT ? `,"attempt":1` : "") + (bits & NOT_CACHED ? `,"cached":false` : "");
  // `rest` is the other fields (each after a comma) and the closing brace.
  return tail === "" ? head + rest : `${head}${rest.slice(0, -1)}${tail}}`;
}

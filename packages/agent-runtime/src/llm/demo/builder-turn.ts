import { BUILDER_REPAIR_PREFIX } from "@weft/types";
import { messageText, type DemoMessage, type DemoRequest } from "./demo-request.ts";

/**
 * What the demo LLM knows of a Builder turn: the tools the server offers (recognised by name),
 * the user's request and the tool calls made since it, with their results — all read back out
 * of the request, so the same conversation always gets the same next step.
 */

/** The Builder tools the demo uses, by their dotted names (the wire form has `_` for `.`). */
export const BUILDER_TOOLS = {
  context: "builder.context.get",
  workflowRead: "builder.workflow.read",
  nodeRead: "builder.node.read",
  catalogList: "builder.catalog.list",
  stage: "builder.change.stage",
  validate: "builder.change.validate",
  discard: "builder.change.discard",
} as const;
export type BuilderToolKey = keyof typeof BUILDER_TOOLS;

export interface OfferedTool {
  /** The name as offered, to call it by. */
  name: string;
  parameters: Record<string, unknown> | undefined;
}

export type OfferedBuilderTools = Partial<Record<BuilderToolKey, OfferedTool>>;

export interface TurnCall {
  /** The tool's key, or undefined for a tool the demo does not know. */
  key: BuilderToolKey | undefined;
  args: Record<string, unknown>;
  /** The parsed result; undefined until the tool message arrives. */
  result: unknown;
}

export interface BuilderTurn {
  /** The user's request of this turn. */
  request: string;
  /** The latest user message is the server's repair request, not the user's. */
  repair: boolean;
  calls: TurnCall[];
}

function normalise(name: string): string {
  return name.trim().toLowerCase().replaceAll(".", "_");
}

const KEY_BY_WIRE = new Map(Object.entries(BUILDER_TOOLS).map(([key, name]) => [normalise(name), key as BuilderToolKey]));

/** The Builder tools among the offered ones; a request is a Builder request when it offers the stage tool. */
export function offeredBuilderTools(request: DemoRequest): OfferedBuilderTools | undefined {
  if (request.tool_choice === "none") return undefined;
  const out: OfferedBuilderTools = {};
  for (const tool of request.tools ?? []) {
    const key = KEY_BY_WIRE.get(normalise(tool.function.name));
    if (key) out[key] = { name: tool.function.name, parameters: tool.function.parameters };
  }
  return out.stage ? out : undefined;
}

/** The calls since the latest user message, and that message (empty when it is the server's repair request). */
export function readBuilderTurn(messages: readonly DemoMessage[]): BuilderTurn {
  let last = -1;
  for (let i = messages.length - 1; i >= 0 && last < 0; i--) if (messages[i].role === "user") last = i;
  const lastText = last >= 0 ? messageText(messages[last]).trim() : "";
  const repair = lastText.startsWith(BUILDER_REPAIR_PREFIX);
  const request = repair ? "" : lastText;

  const calls: TurnCall[] = [];
  const byId = new Map<string, TurnCall>();
  for (const m of messages.slice(last + 1)) {
    if (m.role === "assistant") {
      for (const c of m.tool_calls ?? []) {
        const call: TurnCall = { key: KEY_BY_WIRE.get(normalise(c.function.name)), args: parseObject(c.function.arguments), result: undefined };
        calls.push(call);
        byId.set(c.id, call);
      }
    } else if (m.role === "tool" && m.tool_call_id) {
      const call = byId.get(m.tool_call_id);
      if (call) call.result = parseJson(messageText(m));
    }
  }
  return { request, repair, calls };
}

/** The turn's call of `key` with exactly these (flat) arguments; undefined: not called yet. */
export function findCall(turn: BuilderTurn, key: BuilderToolKey, args: Record<string, unknown> = {}): TurnCall | undefined {
  const same = (a: Record<string, unknown>) => Object.keys(a).length === Object.keys(args).length && Object.entries(args).every(([k, v]) => a[k] === v);
  return turn.calls.find((c) => c.key === key && same(c.args));
}

function parseJson(text: string): unknown {
  try {
    return JSON.parse(text);
  } catch {
    return text;
  }
}

function parseObject(text: string): Record<string, unknown> {
  const value = parseJson(text);
  return value !== null && typeof value === "object" && !Array.isArray(value) ? (value as Record<string, unknown>) : {};
}

/** The turn's latest call of `key`, whatever its arguments. */
export function lastCall(turn: BuilderTurn, key: BuilderToolKey): TurnCall | undefined {
  return turn.calls.findLast((c) => c.key === key);
}

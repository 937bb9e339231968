import { randomUUID } from "node:crypto";
import { z } from "zod";
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory } from "@a2a-js/sdk/client";
import { Role, TaskState, type Message, type Part, type Task } from "@a2a-js/sdk";
import { messageOf, type A2aCallOk, type A2aTaskState } from "@weft/types";
import { safeHttpRequest } from "../../net/http-client.ts";
import { NetFailure } from "../../net/net-failure.ts";
import { defineTool, type ToolEnv } from "../tool.ts";
import { ToolFailure } from "../tool-failure.ts";
import { applyCredential, type AppliedCredential } from "./http-credential.ts";

export const A2aCallArgsSchema = z
  .object({
    cardUrl: z.string().min(1).max(8192).describe("The remote agent's card: https://host/.well-known/agent-card.json, or a Weft agent's /a2a/<agentId>/.well-known/agent-card.json"),
    message: z.string().max(100_000).optional().describe("The text sent to the agent"),
    data: z.unknown().optional().describe("Structured data sent with the text, as an A2A data part"),
    contextId: z.string().min(1).max(256).optional().describe("The contextId of an earlier answer, to continue that conversation"),
    credential: z.string().min(1).optional().describe("The name of a stored credential holding the remote's token (Settings → Credentials); sent only to the hosts it is bound to"),
    timeoutMs: z.number().int().min(1).optional().describe("How long to wait for the agent's answer (default 300000)"),
  })
  .strict();
type A2aCallArgs = z.output<typeof A2aCallArgsSchema>;

/** A2A 1.0's task states in the names A2A 0.3's JSON and most tools use. */
function stateName(state: TaskState | undefined): A2aTaskState {
  switch (state) {
    case TaskState.TASK_STATE_SUBMITTED:
      return "submitted";
    case TaskState.TASK_STATE_WORKING:
      return "working";
    case TaskState.TASK_STATE_INPUT_REQUIRED:
      return "input-required";
    case TaskState.TASK_STATE_COMPLETED:
      return "completed";
    case TaskState.TASK_STATE_CANCELED:
      return "canceled";
    case TaskState.TASK_STATE_FAILED:
      return "failed";
    case TaskState.TASK_STATE_REJECTED:
      return "rejected";
    case TaskState.TASK_STATE_AUTH_REQUIRED:
      return "auth-required";
    default:
      return "unknown";
  }
}

const textOfParts = (parts: readonly Part[]) =>
  parts
    .map((part) => (part.content?.$case === "text" ? part.content.value : part.content?.$case === "data" ? JSON.stringify(part.content.value) : ""))
    .filter((text) => text !== "")
    .join("\n");

function cardUrlOf(raw: string): URL {
  let url: URL;
  try {
    url = new URL(raw);
  } catch {
    throw new ToolFailure("E_SCHEMA_VALIDATION", `${JSON.stringify(raw)} is not a URL; give the agent card's full URL, e.g. https://agents.example.com/.well-known/agent-card.json.`);
  }
  if (url.protocol !== "http:" && url.protocol !== "https:") throw new ToolFailure("E_SCHEMA_VALIDATION", `An agent card is fetched over http:// or https://, not ${url.protocol}.`);
  if (url.username || url.password) throw new ToolFailure("E_SCHEMA_VALIDATION", "The URL carries a user name or password; store the token as a credential and name it in `credential` instead.");
  url.hash = "";
  return url;
}

/**
 * The SDK's `fetch`, made of `safeHttpRequest`: every URL (the card, the endpoint the card names, redirects) is
 * checked against the address scope the owner's rules give it (private and loopback addresses refused unless a rule
 * allows them, as for http.request), an endpoint on another origin than the card must be allowed by the rules, and
 * the credential goes only to the card's origin where it is bound. No retry: a repeated send would run the agent twice.
 */
function guardedFetch(card: URL, args: A2aCallArgs, env: ToolEnv, credential: AppliedCredential | undefined, timeoutMs: number) {
  const limits = env.limits;
  return async (input: string | URL | Request, init?: RequestInit): Promise<Response> => {
    // A URL the SDK hands over is not parsed again.
    const url = input instanceof URL ? input : new URL(input instanceof Request ? input.url : input);
    if (url.origin !== card.origin && !env.urlRules.permits(url.href))
      throw new NetFailure("E_PERMISSION_DENIED", `The agent card at ${card.href} names ${url.origin} as its endpoint, which the permission rules do not allow; add an allow rule for it.`, {
        url: url.href,
      });
    const headers: Record<string, string> = { "user-agent": "Weft" };
    new Headers(init?.headers).forEach((value, name) => (headers[name] = value));
    const body = typeof init?.body === "string" ? Buffer.from(init.body, "utf8") : undefined;
    const response = await safeHttpRequest({
      method: init?.method ?? "GET",
      url,
      headers,
      ...(body ? { body } : {}),
      timeoutMs,
      retries: 0,
      maxRedirects: body ? 0 : 5,
      maxResponseBytes: limits.httpResponseBytes,
      maxRetryDelayMs: limits.maxHttpRetryDelayMs,
      gate: (hop) => {
        if (hop.href !== url.href && !env.urlRules.permits(hop.href))
          throw new NetFailure("E_PERMISSION_DENIED", `${url.href} redirected to ${hop.href}, which the permission rules do not allow.`, { redirect: hop.href });
        return env.urlRules.scopeOf(hop.href);
      },
      ...(credential ? { headersFor: credential.headersFor } : {}),
      ...(env.signal ? { signal: env.signal } : {}),
    });
    if (response.truncated) throw new NetFailure("E_NETWORK", `The answer of ${url.origin} is larger than ${limits.httpResponseBytes} bytes; it was not read.`);
    return new Response(response.status === 204 || response.status === 304 ? null : new Uint8Array(response.body), {
      status: response.status,
      statusText: response.statusText,
      headers: response.headers,
    });
  };
}

async function execute(args: A2aCallArgs, card: URL, env: ToolEnv): Promise<A2aCallOk> {
  const started = performance.now();
  const parts: Part[] = [];
  if (args.message !== undefined && args.message !== "") parts.push({ content: { $case: "text", value: args.message }, metadata: undefined, filename: "", mediaType: "text/plain" });
  if (args.data !== undefined && args.data !== null) parts.push({ content: { $case: "data", value: args.data }, metadata: undefined, filename: "", mediaType: "application/json" });
  if (parts.length === 0) throw new ToolFailure("E_SCHEMA_VALIDATION", "Nothing to send: give the message text, data, or both.");
  const credential = args.credential ? await applyCredential(args.credential, card, env.credentials, env.userId !== undefined ? { userId: env.userId } : {}) : undefined;
  const timeoutMs = Math.min(args.timeoutMs ?? 300_000, Math.max(env.limits.maxHttpTimeoutMs, 300_000));
  const fetchImpl = Object.assign(guardedFetch(card, args, env, credential, timeoutMs), { preconnect: fetch.preconnect });
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, {
      transports: [new JsonRpcTransportFactory({ fetchImpl, legacyCompat: { enabled: true } })],
      cardResolver: new DefaultAgentCardResolver({ fetchImpl, legacyCompat: { enabled: true } }),
    }),
  );
  try {
    const client = await factory.createFromUrl(card.href, "");
    const agent = (await client.getAgentCard()).name;
    const message: Message = { messageId: randomUUID(), contextId: args.contextId ?? "", taskId: "", role: Role.ROLE_USER, parts, metadata: undefined, extensions: [], referenceTaskIds: [] };
    const result = await client.sendMessage(
      { tenant: "", message, configuration: undefined, metadata: undefined },
      { signal: AbortSignal.any([AbortSignal.timeout(timeoutMs), ...(env.signal ? [env.signal] : [])]) },
    );
    const durationMs = Math.round(performance.now() - started);
    if ("parts" in result) return { ok: true, text: textOfParts(result.parts), taskId: "", contextId: result.contextId, state: "completed", agent, durationMs };
    const task: Task = result;
    const answer = textOfParts(task.status?.message?.parts ?? []);
    return {
      ok: true,
      text: answer !== "" ? answer : textOfParts(task.artifacts.flatMap((a) => a.parts)),
      taskId: task.id,
      contextId: task.contextId,
      state: stateName(task.status?.state),
      agent,
      durationMs,
    };
  } catch (error) {
    if (error instanceof ToolFailure) throw error;
    if (error instanceof NetFailure) throw new ToolFailure(error.code, error.message, error.details);
    const cause = error instanceof Error && error.cause instanceof NetFailure ? error.cause : undefined;
    if (cause) throw new ToolFailure(cause.code, cause.message, cause.details);
    if (env.signal?.aborted) throw new ToolFailure("E_ABORTED", `The call to ${card.origin} was cancelled.`);
    throw new ToolFailure("E_A2A_ERROR", `The A2A agent at ${card.href} did not answer as A2A: ${messageOf(error)}`, { cardUrl: card.href });
  }
}

/**
 * Sends a message to a remote A2A agent with the official `@a2a-js/sdk` client and waits for its answer. The
 * permission target is the card's URL; its HTTP goes through `safeHttpRequest` (see `guardedFetch`).
 */
export const a2aCall = defineTool({
  name: "a2a.call",
  targetKind: "url",
  args: A2aCallArgsSchema,
  plan(args, env) {
    const card = cardUrlOf(args.cardUrl);
    return { target: card.href, execute: () => execute(args, card, env) };
  },
});

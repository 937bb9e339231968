import { randomUUID } from "node:crypto";
import { ClientFactory, ClientFactoryOptions, DefaultAgentCardResolver, JsonRpcTransportFactory, type Client } from "@a2a-js/sdk/client";
import { Role, type Message } from "@a2a-js/sdk";

/** The official JS SDK's client for an agent of the Weft at `url`, every request (the card's too) carrying `headers` (the token). */
export async function sdkClient(url: string, agentId: string, headers: Record<string, string>): Promise<Client> {
  const fetchImpl = Object.assign(
    (input: RequestInfo | URL, init?: RequestInit) => {
      const merged = new Headers(init?.headers);
      for (const [name, value] of Object.entries(headers)) merged.set(name, value);
      return fetch(input, { ...init, headers: merged });
    },
    { preconnect: fetch.preconnect },
  );
  const factory = new ClientFactory(
    ClientFactoryOptions.createFrom(ClientFactoryOptions.default, { transports: [new JsonRpcTransportFactory({ fetchImpl })], cardResolver: new DefaultAgentCardResolver({ fetchImpl }) }),
  );
  return factory.createFromUrl(`${url}/a2a/${agentId}/.well-known/agent-card.json`, "");
}

/** A user's text message, new context unless `contextId` continues one. */
export const userMessage = (text: string, contextId?: string): Message => ({
  messageId: randomUUID(),
  contextId: contextId ?? "",
  taskId: "",
  role: Role.ROLE_USER,
  parts: [{ content: { $case: "text", value: text }, metadata: undefined, filename: "", mediaType: "text/plain" }],
  metadata: undefined,
  extensions: [],
  referenceTaskIds: [],
});

/** A message's text parts, joined. */
export const textOf = (message: Message | undefined) => (message?.parts ?? []).map((p) => (p.content?.$case === "text" ? p.content.value : "")).join("");

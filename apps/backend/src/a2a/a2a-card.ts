import { AgentCard, type AgentSkill, type SecurityRequirement, type SecurityScheme } from "@a2a-js/sdk";
import type { AgentProfile } from "@weft/types";

/** The name the cards give the personal-token scheme (`securitySchemes`, `securityRequirements`). */
const SCHEME = "weftPersonalToken";
const INPUT_MODES = ["text/plain", "application/json"];
const OUTPUT_MODES = ["text/plain"];

const security = (): { securitySchemes: Record<string, SecurityScheme>; securityRequirements: SecurityRequirement[] } => ({
  securitySchemes: {
    [SCHEME]: {
      scheme: {
        $case: "httpAuthSecurityScheme",
        value: {
          scheme: "Bearer",
          bearerFormat: "Weft personal API token",
          description: "A personal API token of an editor or owner (user menu → Personal API tokens), as Authorization: Bearer <token>. The editor's sign-in cookie is not accepted.",
        },
      },
    },
  },
  securityRequirements: [{ schemes: { [SCHEME]: { list: [] } } }],
});

/** Where an agent's A2A endpoint and card are, under the server's origin. */
export const agentEndpoint = (origin: string, agentId: string) => `${origin}/a2a/${encodeURIComponent(agentId)}`;
export const agentCardUrl = (origin: string, agentId: string) => `${agentEndpoint(origin, agentId)}/.well-known/agent-card.json`;

/** The agent's persona (its first paragraph, shortened) as its description. */
const describe = (agent: AgentProfile) =>
  agent.persona
    .trim()
    .split(/\n\s*\n/)[0]
    ?.slice(0, 500) || `The Weft agent ${agent.name}.`;

const skillOf = (agent: AgentProfile, origin: string, withCardUrl: boolean): AgentSkill => ({
  id: agent.id,
  name: agent.name,
  description: `${describe(agent)}${withCardUrl ? ` (A2A card: ${agentCardUrl(origin, agent.id)})` : ""}`,
  tags: ["weft-agent"],
  examples: [],
  inputModes: INPUT_MODES,
  outputModes: OUTPUT_MODES,
  securityRequirements: [],
});

/**
 * One agent's card: its JSON-RPC endpoint, spoken in A2A 1.0 and 0.3 (the same URL; the method names tell them
 * apart), streaming, the personal-token scheme, and the agent as its one skill.
 */
export function agentCard(agent: AgentProfile, origin: string, version: string): AgentCard {
  const url = agentEndpoint(origin, agent.id);
  return {
    name: agent.name,
    description: describe(agent),
    supportedInterfaces: [
      { url, protocolBinding: "JSONRPC", protocolVersion: "1.0", tenant: "" },
      { url, protocolBinding: "JSONRPC", protocolVersion: "0.3", tenant: "" },
    ],
    provider: { organization: "Weft", url: origin },
    version,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    ...security(),
    defaultInputModes: INPUT_MODES,
    defaultOutputModes: OUTPUT_MODES,
    skills: [skillOf(agent, origin, false)],
    signatures: [],
  };
}

/**
 * The installation's card (`/.well-known/agent-card.json`): a directory, not an agent. Its skills are the agents,
 * each naming its own card's URL; it has no interface of its own, so a client picks an agent's card from it.
 */
export function installationCard(agents: readonly AgentProfile[], origin: string, version: string): AgentCard {
  return {
    name: "Weft",
    description: `The agents of this Weft installation. Each is an A2A agent with its own card at ${origin}/a2a/<agentId>/.well-known/agent-card.json; the skills below list them.`,
    supportedInterfaces: [],
    provider: { organization: "Weft", url: origin },
    version,
    capabilities: { streaming: true, pushNotifications: false, extensions: [], extendedAgentCard: false },
    ...security(),
    defaultInputModes: INPUT_MODES,
    defaultOutputModes: OUTPUT_MODES,
    skills: agents.map((agent) => skillOf(agent, origin, true)),
    signatures: [],
  };
}

/** A card as the A2A 1.0 JSON the SDKs read (protobuf JSON: `httpAuthSecurityScheme`, lower-camel fields). */
export const cardJson = (card: AgentCard): unknown => AgentCard.toJSON(card);

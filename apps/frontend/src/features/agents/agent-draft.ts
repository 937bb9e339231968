import type { AgentProfile, AgentProfileInput } from "@weft/types";
import { describeApiError, type ApiError } from "../../shared/api/errors.ts";
import { placeRuleIssues, ruleDraftsOf, rulesOf, serverIssuesOf, type RuleDraft, type RuleErrors } from "../settings/index.ts";
import { messageOf } from "@weft/types";

/** An agent profile as its form edits it: text where the user types, the rules as the rules table edits them. */
export interface AgentDraft {
  id: string;
  name: string;
  persona: string;
  deliberationWorkflowId: string;
  protocol: AgentProfile["protocol"];
  tools: string[];
  /** Offer the built-in `ask_approval` tool (profile `askApproval`). */
  askApproval: boolean;
  skills: string[];
  /** Empty: the default LLM profile. */
  llmProfileId: string;
  maxSteps: number;
  /** Event topics, separated by commas or line breaks. */
  subscribedEvents: string;
  /** A JSON object. */
  initialPrivateState: string;
  permissions: RuleDraft[];
  /** The stored revision the draft started from; 0 for a profile never saved. */
  revision: number;
}

/** Form fields a problem can be shown at. */
export const AGENT_FIELDS = [
  "id",
  "name",
  "persona",
  "deliberationWorkflowId",
  "protocol",
  "tools",
  "skills",
  "llmProfileId",
  "maxSteps",
  "subscribedEvents",
  "initialPrivateState",
  "permissions",
] as const;
export type AgentField = (typeof AGENT_FIELDS)[number];

/** What is wrong with a draft, placed where the user can fix it. */
export interface AgentErrors {
  fields: Partial<Record<AgentField, string>>;
  /** The tools and skills named in a problem, by their index in the list. */
  items: { tools: Record<number, string>; skills: Record<number, string> };
  permissions: RuleErrors;
  /** Problems no field owns (e.g. the agent cannot run at all). */
  general: string[];
}

export const noAgentErrors = (): AgentErrors => ({ fields: {}, items: { tools: {}, skills: {} }, permissions: {}, general: [] });
export const hasAgentErrors = (e: AgentErrors): boolean =>
  Object.keys(e.fields).length + Object.keys(e.items.tools).length + Object.keys(e.items.skills).length + Object.keys(e.permissions).length + e.general.length > 0;

export function draftOfAgent(agent: AgentProfile): AgentDraft {
  return {
    id: agent.id,
    name: agent.name,
    persona: agent.persona,
    deliberationWorkflowId: agent.deliberationWorkflowId,
    protocol: agent.protocol,
    tools: [...agent.tools],
    askApproval: agent.askApproval === true,
    skills: [...agent.skills],
    llmProfileId: agent.llmProfileId ?? "",
    maxSteps: agent.maxSteps,
    subscribedEvents: agent.subscribedEvents.join(", "),
    initialPrivateState: Object.keys(agent.initialPrivateState).length ? JSON.stringify(agent.initialPrivateState, null, 2) : "",
    permissions: ruleDraftsOf(agent.permissions ?? []),
    revision: agent.revision,
  };
}

/** A new agent: the usual deliberation workflow, the `<ACTION>` protocol, nothing else chosen yet. */
export function blankAgentDraft(deliberationWorkflowId: string): AgentDraft {
  return {
    id: "",
    name: "",
    persona: "",
    deliberationWorkflowId,
    protocol: "action-xml",
    tools: [],
    askApproval: false,
    skills: [],
    llmProfileId: "",
    maxSteps: 8,
    subscribedEvents: "",
    initialPrivateState: "",
    permissions: [],
    revision: 0,
  };
}

/** The id a new agent gets from its name when none is typed: `My Helper` → `my-helper`. */
export const agentIdFromName = (name: string): string =>
  name
    .trim()
    .toLowerCase()
    .replace(/[^a-z0-9]+/g, "-")
    .replace(/^-+|-+$/g, "");

export type ProfileResult = { ok: true; profile: AgentProfileInput & { id: string } } | { ok: false; errors: AgentErrors };

/** The profile to send, or the problems the form can tell without asking the server (no name, bad JSON, …). */
export function profileOfDraft(draft: AgentDraft): ProfileResult {
  const errors = noAgentErrors();
  const id = draft.id.trim() || agentIdFromName(draft.name);
  if (!draft.name.trim()) errors.fields.name = "Give the agent a name.";
  else if (!id) errors.fields.id = "Give the agent an id (letters, digits, dashes).";
  if (!draft.deliberationWorkflowId) errors.fields.deliberationWorkflowId = "Choose the workflow the agent deliberates with.";
  if (!Number.isInteger(draft.maxSteps) || draft.maxSteps < 1 || draft.maxSteps > 200) errors.fields.maxSteps = "A whole number from 1 to 200.";
  let initialPrivateState: Record<string, unknown> = {};
  if (draft.initialPrivateState.trim()) {
    try {
      const parsed: unknown = JSON.parse(draft.initialPrivateState);
      if (typeof parsed !== "object" || parsed === null || Array.isArray(parsed)) errors.fields.initialPrivateState = 'A JSON object, e.g. {"mood": "calm"}.';
      else initialPrivateState = parsed as Record<string, unknown>;
    } catch (error) {
      errors.fields.initialPrivateState = `Not valid JSON: ${messageOf(error)}`;
    }
  }
  if (hasAgentErrors(errors)) return { ok: false, errors };
  const permissions = rulesOf(draft.permissions);
  return {
    ok: true,
    profile: {
      id,
      name: draft.name.trim(),
      persona: draft.persona,
      deliberationWorkflowId: draft.deliberationWorkflowId,
      protocol: draft.protocol,
      tools: draft.tools,
      // Only when on: a profile that never enabled it is saved as before.
      ...(draft.askApproval ? { askApproval: true } : {}),
      skills: draft.skills,
      ...(draft.llmProfileId ? { llmProfileId: draft.llmProfileId } : {}),
      maxSteps: draft.maxSteps,
      subscribedEvents: draft.subscribedEvents
        .split(/[,\n]/)
        .map((t) => t.trim())
        .filter(Boolean),
      initialPrivateState,
      ...(permissions.length ? { permissions } : {}),
      revision: draft.revision,
    },
  };
}

/** What the form holds, comparable with what was loaded: the draft is dirty when this changed. */
export const draftFingerprint = (draft: AgentDraft): string => JSON.stringify({ ...draft, permissions: rulesOf(draft.permissions) });

const FIELD_SET: ReadonlySet<string> = new Set(AGENT_FIELDS);

/**
 * Places a refusal of the server at the fields it names: `details.issues` paths are relative to the
 * profile (`["tools", 2]`, `["permissions", 0, "tool"]`, `["deliberationWorkflowId"]`); what no field
 * owns is `general`.
 */
export function agentErrorsOf(error: ApiError): AgentErrors {
  const errors = noAgentErrors();
  const issues = serverIssuesOf(error);
  const { rules, rest } = placeRuleIssues(issues, "permissions");
  errors.permissions = rules;
  for (const issue of rest) {
    const [head, index] = issue.path;
    const field = typeof head === "string" && FIELD_SET.has(head) ? (head as AgentField) : null;
    if (!field) {
      errors.general.push(issue.path.length ? `${issue.path.join(".")}: ${issue.message}` : issue.message);
      continue;
    }
    if ((field === "tools" || field === "skills") && typeof index === "number") errors.items[field][index] ??= issue.message;
    const had = errors.fields[field];
    errors.fields[field] = had ? `${had} · ${issue.message}` : issue.message;
  }
  if (error.code === "ALREADY_EXISTS") errors.fields.id = error.message;
  else if (issues.length === 0) errors.general.push(describeApiError(error));
  return errors;
}

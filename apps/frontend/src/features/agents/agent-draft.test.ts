import { describe, expect, it } from "vitest";
import { AgentProfileSchema } from "@weft/types";
import { agentErrorsOf, blankAgentDraft, draftFingerprint, draftOfAgent, profileOfDraft } from "./agent-draft.ts";
import { blankRule } from "../settings/permission-draft.ts";

const calculator = AgentProfileSchema.parse({
  id: "calculator",
  name: "Calculator",
  persona: "Never does arithmetic in its head.",
  deliberationWorkflowId: "agent-deliberation",
  protocol: "openai-tools",
  tools: ["core:math"],
  skills: ["summarize-skill"],
  maxSteps: 6,
  subscribedEvents: ["world.note-posted"],
  initialPrivateState: { mood: "calm" },
  permissions: [{ action: "deny", tool: "fs.write" }],
  revision: 3,
});

describe("the agent profile form's draft", () => {
  it("round-trips a profile, the events and private state as text, the rules as the rules table edits them", () => {
    const draft = draftOfAgent(calculator);
    expect(draft.subscribedEvents).toBe("world.note-posted");
    expect(draft.permissions.map((r) => [r.action, r.tool])).toEqual([["deny", "fs.write"]]);
    const result = profileOfDraft(draft);
    expect(result.ok && AgentProfileSchema.parse(result.profile)).toEqual(calculator);
  });

  it("keeps ask_approval off unless the toggle is on: a profile without it is saved without it, one with it round-trips", () => {
    const off = profileOfDraft(draftOfAgent(calculator));
    expect(off.ok && "askApproval" in off.profile).toBe(false);
    expect(blankAgentDraft("agent-deliberation").askApproval).toBe(false);
    const on = profileOfDraft({ ...draftOfAgent(calculator), askApproval: true });
    expect(on.ok && AgentProfileSchema.parse(on.profile)).toEqual({ ...calculator, askApproval: true });
    expect(draftOfAgent({ ...calculator, askApproval: true }).askApproval).toBe(true);
  });

  it("gives a new agent an id from its name and refuses what the form can tell is wrong", () => {
    const draft = { ...blankAgentDraft("agent-deliberation"), name: "  My Helper " };
    expect(profileOfDraft(draft)).toMatchObject({ ok: true, profile: { id: "my-helper", name: "My Helper", revision: 0 } });
    const bad = profileOfDraft({ ...blankAgentDraft(""), maxSteps: 0, initialPrivateState: "[1]" });
    expect(bad.ok ? null : bad.errors.fields).toEqual({
      name: "Give the agent a name.",
      deliberationWorkflowId: "Choose the workflow the agent deliberates with.",
      maxSteps: "A whole number from 1 to 200.",
      initialPrivateState: 'A JSON object, e.g. {"mood": "calm"}.',
    });
  });

  it("is dirty when a field or a rule changed, not when only the rules' list keys did", () => {
    const draft = draftOfAgent(calculator);
    const before = draftFingerprint(draft);
    expect(draftFingerprint(draftOfAgent(calculator))).toBe(before);
    draft.permissions.push(blankRule("allow"));
    expect(draftFingerprint(draft)).not.toBe(before);
  });

  it("places the server's problems at the fields, tools and rules they name", () => {
    const errors = agentErrorsOf({
      code: "VALIDATION_FAILED",
      status: 400,
      message: "body.agent.tools.1: …",
      details: {
        issues: [
          { path: ["tools", 1], message: 'unknown node type "core:mathh" (did you mean "core:math"?)' },
          { path: ["deliberationWorkflowId"], message: 'no workflow has the id "gone"' },
          { path: ["permissions", 0, "tool"], message: '"fs.wirte" matches none of the tools' },
          { path: [], message: "the deliberation workflow lacks the messages input" },
        ],
      },
    });
    expect(errors.items.tools).toEqual({ 1: 'unknown node type "core:mathh" (did you mean "core:math"?)' });
    expect(errors.fields).toEqual({ tools: 'unknown node type "core:mathh" (did you mean "core:math"?)', deliberationWorkflowId: 'no workflow has the id "gone"' });
    expect(errors.permissions).toEqual({ 0: { tool: '"fs.wirte" matches none of the tools' } });
    expect(errors.general).toEqual(["the deliberation workflow lacks the messages input"]);
    expect(agentErrorsOf({ code: "ALREADY_EXISTS", status: 409, message: 'An agent profile with the id "calculator" exists; pick another id.' }).fields).toEqual({
      id: 'An agent profile with the id "calculator" exists; pick another id.',
    });
    expect(agentErrorsOf({ code: "NETWORK_ERROR", status: 0, message: "Could not reach the server." }).general).toEqual(["Could not reach the server. Is the Weft server running?"]);
  });
});

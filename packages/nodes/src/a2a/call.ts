import { A2aCallOkSchema, A2A_TASK_STATES, type ToolResult } from "@weft/types";
import { defineNode } from "../define-node.ts";
import { OK_PORT, RESULT_PORT, callToolHost, toolOutputs } from "../fs/tool-call.ts";

/**
 * Calls a remote A2A agent through the tool host's `a2a.call` tool (permissions, private-address refusal, named
 * credentials, audit), with the official A2A SDK's client, and gives its answer.
 */
export const a2aCallNode = defineNode(
  {
    type: "a2a:call",
    title: "A2A agent call",
    description:
      "Sends a message to a remote agent over the A2A protocol (Agent2Agent) and gives its answer, the task id and the task's state. The agent is named by its card's URL (another Weft's agents: /a2a/<agentId>/.well-known/agent-card.json). Its token comes from a named credential (Settings → Credentials), never from the workflow. Loopback, private and metadata addresses are refused unless an owner's permission rule allows the URL.",
    category: "a2a",
    inputs: [
      { id: "message", type: "string", label: "Message", description: "The text sent to the agent." },
      { id: "data", type: "json", label: "Data", description: "Structured data sent with the text (an A2A data part)." },
      { id: "cardUrl", type: "string", required: true, label: "Agent card URL", description: "The remote agent's card, e.g. https://agents.example.com/.well-known/agent-card.json." },
      { id: "credential", type: "string", label: "Credential", description: "The name of a stored credential holding the remote's token (sent as its header, only to the hosts it is bound to)." },
      { id: "contextId", type: "string", label: "Context id", description: "An earlier answer's context id, to continue that conversation." },
      { id: "timeoutMs", type: "integer", min: 1, label: "Timeout (ms)", description: "How long to wait for the answer (default 300000)." },
    ],
    outputs: [
      RESULT_PORT,
      OK_PORT,
      { id: "text", type: "string", label: "Answer", description: "The agent's answer text." },
      { id: "taskId", type: "string", label: "Task id", description: "The remote task's id." },
      { id: "state", type: "string", label: "State", description: `The task's state: ${A2A_TASK_STATES.join(", ")}.` },
      { id: "contextId", type: "string", label: "Context id", description: "The remote conversation; send it back to continue it." },
    ],
  },
  async function (inputs, ctx) {
    const result: ToolResult = await callToolHost(ctx, "a2a:call", "a2a.call", { ...inputs });
    return toolOutputs(result, A2aCallOkSchema, (ok) => ({ text: ok.text, taskId: ok.taskId, state: ok.state, contextId: ok.contextId }));
  },
);

import { NodeFailure, WORKFLOW_INPUT_TYPE, valueMatchesPortType } from "@weft/types";
import { defineNode } from "../define-node.ts";
import { describeValue } from "../support/describe-value.ts";
import { coerceText, interfaceConfigFields, readInterfaceConfig } from "./interface-config.ts";

export const workflowInput = defineNode(
  {
    type: WORKFLOW_INPUT_TYPE,
    title: "Workflow input",
    description: "Declares one named input of the workflow's interface (making the workflow callable as a skill) and outputs the value the run was given for it, or the configured default.",
    category: "interface",
    inputs: [
      {
        id: "value",
        type: "any",
        label: "Value",
        description: "Filled by the engine with the run's input of this name; leave it unconnected.",
      },
    ],
    outputs: [{ id: "value", type: "any", label: "Value", description: "The run's value for this input (converted to the declared type), or the default; null when neither is given." }],
    config: interfaceConfigFields("input"),
    flags: { idempotent: true },
  },
  (inputs, ctx) => {
    const config = readInterfaceConfig(WORKFLOW_INPUT_TYPE, ctx.config);
    const given = inputs.value ?? config.default;
    if (given === undefined || given === null) {
      if (config.required) {
        throw new NodeFailure("MISSING_INPUT", `Workflow input "${config.name}" is required: give the run a value for "${config.name}", or set a default on its input node.`, { input: config.name });
      }
      return { value: null };
    }
    const value = coerceText(given, config.portType);
    if (!valueMatchesPortType(value, config.portType)) {
      throw new NodeFailure("INVALID_INPUT", `Workflow input "${config.name}" expects a value of type ${config.portType}, got ${describeValue(given)}.`, {
        input: config.name,
        expected: config.portType,
      });
    }
    return { value };
  },
);

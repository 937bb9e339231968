import { NodeFailure, WORKFLOW_OUTPUT_TYPE, valueMatchesPortType } from "@weft/types";
import { defineNode } from "../define-node.ts";
import { describeValue } from "../support/describe-value.ts";
import { interfaceConfigFields, readInterfaceConfig } from "./interface-config.ts";

export const workflowOutput = defineNode(
  {
    type: WORKFLOW_OUTPUT_TYPE,
    title: "Workflow output",
    description:
      "Declares one named output of the workflow's interface: the value connected here is returned by the run (and by the skill, when another workflow or an agent calls this one) under the configured name.",
    category: "interface",
    inputs: [{ id: "value", type: "any", required: true, label: "Value", description: "The value to return under this output's name." }],
    outputs: [{ id: "value", type: "any", label: "Value", description: "The same value, for inspection or further wiring." }],
    config: interfaceConfigFields("output"),
    flags: { idempotent: true },
  },
  (inputs, ctx) => {
    const config = readInterfaceConfig(WORKFLOW_OUTPUT_TYPE, ctx.config);
    if (!valueMatchesPortType(inputs.value, config.portType)) {
      throw new NodeFailure(
        "INVALID_OUTPUT",
        `Workflow output "${config.name}" is declared as ${config.portType} but received ${describeValue(inputs.value)}: connect a ${config.portType} value or change the output's type.`,
        { output: config.name, expected: config.portType },
      );
    }
    return { value: inputs.value };
  },
);

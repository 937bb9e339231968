import { describe, expect, it } from "vitest";
import { TaskState } from "@a2a-js/sdk";
import { stateOf } from "./a2a-executor.ts";

describe("the A2A state of a finished agent loop", () => {
  it("asks for input while a person must answer (a question, a permission, an approval), and fails only on a failure", () => {
    expect(stateOf("completed")).toBe(TaskState.TASK_STATE_COMPLETED);
    expect(stateOf("waiting_user")).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(stateOf("waiting_permission")).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(stateOf("waiting_approval")).toBe(TaskState.TASK_STATE_INPUT_REQUIRED);
    expect(stateOf("cancelled")).toBe(TaskState.TASK_STATE_CANCELED);
    expect(stateOf("failed")).toBe(TaskState.TASK_STATE_FAILED);
  });
});

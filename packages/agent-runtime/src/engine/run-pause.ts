import { engineError, suspensionOf, type NodeError, type RunWait } from "@weft/types";

/**
 * The nodes of one graph run that paused it (`suspendRun`, e.g. `core:approval`). A paused node is neither settled
 * nor released, so nothing after it runs; the run ends `waiting` once nothing else can run, and a later execution
 * of the run hands the node its decision as recorded outputs. Only a top-level node of a run its caller can resume
 * may pause: a resumed execution replays top-level nodes only.
 */
export class RunPause {
  /** In the order the nodes paused. */
  readonly waits: RunWait[] = [];

  constructor(
    /** `GraphRunOptions.mayPause`: the caller keeps the run and can resume it. */
    private readonly mayPause: boolean,
    /** The graph's id prefix: "" at top level. */
    private readonly prefix: string,
  ) {}

  /** The request of a node's result when it asks to pause the run, else undefined (its ordinary outputs). */
  static requestOf(value: unknown): Record<string, unknown> | undefined {
    return suspensionOf(value);
  }

  /** Records the pause of `nodeId`; answers the node's error instead when this run cannot be paused. */
  pause(nodeId: string, nodeType: string, request: Record<string, unknown>): NodeError | undefined {
    if (!this.mayPause) {
      const where =
        this.prefix !== "" ? "inside a skill or a map item; move it into the calling workflow" : "in a run nobody can resume (an agent's tool call or a local run); run the workflow on the server";
      return engineError("INVALID_CONFIG", `"${nodeType}" pauses its run until someone decides, which it cannot do ${where}.`);
    }
    this.waits.push({ nodeId, request });
    return undefined;
  }

  /** Some node paused the run: with nothing running or ready, what has not settled waits behind it. */
  get paused(): boolean {
    return this.waits.length > 0;
  }
}

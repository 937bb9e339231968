import type { JsonObject, PrivateStateService } from "@weft/types";
import { JsonState, type JsonStateChange } from "./json-state.ts";

/**
 * One agent instance's own JSON state: the same paths and serialised writes as the world state,
 * seen by that agent only. `onChange` lets the scene log record each change.
 */
export class PrivateState implements PrivateStateService {
  private readonly state: JsonState;

  constructor(
    readonly instanceId: string,
    initial: unknown = {},
    onChange?: (change: JsonStateChange) => void,
  ) {
    this.state = new JsonState(initial, (c) => onChange?.(c));
  }

  get(path: string): unknown {
    return this.state.get(path);
  }

  set(path: string, value: unknown): Promise<void> {
    return this.state.set(path, value, this.instanceId);
  }

  delete(path: string): Promise<boolean> {
    return this.state.delete(path, this.instanceId);
  }

  update(path: string, fn: (current: unknown) => unknown): Promise<unknown> {
    return this.state.update(path, fn, this.instanceId);
  }

  snapshot(): JsonObject {
    return this.state.snapshot();
  }

  /** Replaces the document with saved data, reporting no change. */
  load(document: JsonObject): void {
    this.state.load(document);
  }
}

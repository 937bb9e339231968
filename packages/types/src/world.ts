/** Scene services as nodes see them (implemented in agent-runtime/scene). */
export interface WorldStateService {
  get(path: string): unknown;
  set(path: string, value: unknown, agentId?: string): Promise<void>;
  update(path: string, fn: (current: unknown) => unknown, agentId?: string): Promise<unknown>;
  snapshot(): unknown;
}

export interface EventBusService {
  publish(topic: string, payload: unknown, source?: string): Promise<void>;
}

export interface PrivateStateService {
  get(path: string): unknown;
  set(path: string, value: unknown): Promise<void>;
  snapshot(): unknown;
}

import type { AgentTrigger, PermissionAnswer, SceneReplayProgress, SceneReplayResult, SceneStateView } from "@weft/types";
import type { TimelinePage } from "./scene-timeline-page.ts";

/**
 * What the scene routes and the server ask of whoever hosts scenes: `SceneService` runs them in this
 * process (the embedded mode); `QueuedSceneHost` (`../queue/queued-scene-host.ts`) has them run on
 * `weft worker` processes and asks the worker holding a scene (the queue mode). Both refuse with the
 * same `ServiceError`s.
 */
export interface SceneHost {
  /** Starts a new session of the scene from its definition (the previous session's state and log are replaced). */
  start(sceneId: string, startedBy?: string): Promise<SceneStateView>;
  pause(sceneId: string): Promise<SceneStateView>;
  resume(sceneId: string): Promise<SceneStateView>;
  /** Stops for good: running deliberations are aborted; the state stays viewable and replayable. */
  stop(sceneId: string): Promise<SceneStateView>;
  /** A user message to one agent instance or to `all`. */
  sendMessage(sceneId: string, to: string, text: string): Promise<{ triggers: AgentTrigger[] }>;
  /** Answers the question an agent asked the user (ask_user). */
  answerQuestion(sceneId: string, instanceId: string, text: string): Promise<{ triggers: AgentTrigger[] }>;
  answerPermission(sceneId: string, instanceId: string, requestId: string, answer: PermissionAnswer): Promise<void>;
  /** The live state where the scene is loaded, else the saved one. */
  state(sceneId: string): Promise<SceneStateView>;
  timeline(sceneId: string, query: { fromSeq: number; limit: number; since?: string; maxBytes?: number }): Promise<TimelinePage>;
  /** Checks that there is a session to replay (refusing when not) and gives the replay to run. */
  prepareReplay(sceneId: string): Promise<(onProgress?: (progress: SceneReplayProgress) => void) => Promise<SceneReplayResult>>;
  /** A deleted scene: stops it wherever it runs and removes its saved state, log and session. */
  forget(sceneId: string): Promise<void>;
  /** Continues one scene saved as running or paused (a fork just written), here or on a worker. */
  continueSaved(sceneId: string): Promise<void>;
  /** At start: continues the scenes saved as running or paused (here, or by handing them to workers). Returns their ids. */
  recover(): Promise<string[]>;
  /** At stop: saves what runs here so it continues on the next start (a queue-mode API runs none). */
  shutdown(): Promise<void>;
}

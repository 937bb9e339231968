import {
  APPLY_CONFIRM_SOURCE,
  BuilderApplyResponseSchema,
  BuilderChangeSetResponseSchema,
  BuilderInterruptResponseSchema,
  BuilderSessionDetailSchema,
  BuilderSessionListSchema,
  BuilderSessionStateSchema,
  BuilderSettingsSchema,
  BuilderTurnResponseSchema,
  ChangePreviewSchema,
  targetObject,
  type BuilderMode,
  type BuilderTarget,
  type ObjectLocator,
  type RevisionBase,
} from "@weft/types";
import { ApiClient } from "../../shared/api/client.ts";
import { ok } from "../../shared/api/errors.ts";
import { AgentNamesSchema, SceneNamesSchema } from "./builder-schemas.ts";

const enc = encodeURIComponent;

/** The Builder AI (docs/api.md "Builder AI"): sessions, their conversation, change sets, preview and manual apply. */
export class BuilderApi extends ApiClient {
  settings() {
    return this.request("GET", "/api/builder/settings", BuilderSettingsSchema);
  }

  setProfile(llmProfileId: string | null) {
    return this.request("PUT", "/api/builder/settings", BuilderSettingsSchema, { llmProfileId });
  }

  async agents() {
    const r = await this.request("GET", "/api/agents", AgentNamesSchema);
    return r.ok ? ok(r.value.agents) : r;
  }

  async scenes() {
    const r = await this.request("GET", "/api/scenes", SceneNamesSchema);
    return r.ok ? ok(r.value.scenes) : r;
  }

  createSession(target: BuilderTarget, mode: BuilderMode) {
    return this.request("POST", "/api/builder/sessions", BuilderSessionStateSchema, { target, mode });
  }

  /** Active and ended sessions, newest first; with a target, those on its stored object. */
  async sessions(target?: BuilderTarget, limit = 20) {
    // The list filters by the stored object: a node session counts as its workflow.
    const object = target ? targetObject(target) : undefined;
    const query = object ? `targetType=${object.type}&targetId=${enc(object.id)}&limit=${limit}` : `limit=${limit}`;
    const r = await this.request("GET", `/api/builder/sessions?${query}`, BuilderSessionListSchema);
    return r.ok ? ok(r.value.sessions) : r;
  }

  /** A session with its latest change set and the latest `messages` conversation entries. */
  session(id: string, messages = 200) {
    return this.request("GET", `/api/builder/sessions/${enc(id)}?messages=${messages}`, BuilderSessionDetailSchema);
  }

  /** Answered when the model's turn is over (tool calls, repair rounds); poll `session` meanwhile to follow it. */
  send(id: string, content: string) {
    return this.request("POST", `/api/builder/sessions/${enc(id)}/messages`, BuilderTurnResponseSchema, { content });
  }

  interrupt(id: string) {
    return this.request("POST", `/api/builder/sessions/${enc(id)}/interrupt`, BuilderInterruptResponseSchema);
  }

  cancel(id: string) {
    return this.request("POST", `/api/builder/sessions/${enc(id)}/cancel`, BuilderSessionStateSchema);
  }

  setScope(id: string, extra: ObjectLocator[]) {
    return this.request("PUT", `/api/builder/sessions/${enc(id)}/scope`, BuilderSessionStateSchema, { extra });
  }

  preview(id: string, changeSetId: string) {
    return this.request("GET", `/api/builder/sessions/${enc(id)}/change-sets/${enc(changeSetId)}/preview`, ChangePreviewSchema);
  }

  async validate(id: string, changeSetId: string) {
    const r = await this.request("POST", `/api/builder/sessions/${enc(id)}/change-sets/${enc(changeSetId)}/validate`, BuilderChangeSetResponseSchema);
    return r.ok ? ok(r.value.changeSet) : r;
  }

  async discard(id: string, changeSetId: string) {
    const r = await this.request("POST", `/api/builder/sessions/${enc(id)}/change-sets/${enc(changeSetId)}/discard`, BuilderChangeSetResponseSchema);
    return r.ok ? ok(r.value.changeSet) : r;
  }

  /** Applies what the user reviewed; a stale base answers `requiresConfirmation` until sent again with `confirmStale`. */
  apply(id: string, changeSetId: string, revisionBase: RevisionBase, confirmStale = false) {
    return this.request("POST", `/api/builder/sessions/${enc(id)}/apply`, BuilderApplyResponseSchema, { changeSetId, confirmSource: APPLY_CONFIRM_SOURCE, revisionBase, confirmStale });
  }
}

export const builderApi = new BuilderApi();

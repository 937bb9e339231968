import { inject, type InjectionKey } from "vue";

/**
 * "Ask Builder AI" about a workflow or one of its nodes, as the editor offers it. The Builder imports
 * the editor (its diff canvas draws the editor's nodes), so the editor does not import the Builder: the
 * shell (`App.vue`) provides the Builder's entry under this key.
 */
export interface AskBuilder {
  askAboutWorkflow(workflowId: string): Promise<void>;
  askAboutNode(workflowId: string, nodeId: string): Promise<void>;
  /** Whether a tab's workflow can be handed to the Builder at all (stored, not a run snapshot). */
  canAsk(tabId: string | undefined): boolean;
}

export const askBuilderKey: InjectionKey<AskBuilder> = Symbol("ask-builder");

/** The Builder's entry provided by the shell; called in a component's setup. */
export function useAskBuilder(): AskBuilder {
  const entry = inject(askBuilderKey);
  if (!entry) throw new Error("No Builder entry provided: App.vue must provide(askBuilderKey, useBuilderEntry()) above the editor.");
  return entry;
}

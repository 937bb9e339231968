import type { AskBuilder } from "../features/editor/index.ts";
import { useWorkflowsStore } from "../shared/workflow/workflows-store.ts";

/**
 * The features opening a workflow does not show — the Builder, Agents, Scenes, the Versions tab, Settings — loaded on
 * first use, index.ts and all: imported statically, the stores and schemas they offer the other views (agents, scenes,
 * LLM profiles, graph diffs) would be built at every start, in the first download.
 */
export const builderFeature = () => import("../features/builder/index.ts");
export const agentsFeature = () => import("../features/agents/index.ts");
export const scenesFeature = () => import("../features/scenes/index.ts");
export const versionsFeature = () => import("../features/versions/index.ts");
export const settingsFeature = () => import("../features/settings/index.ts");

/** The editor's "Ask Builder AI": the Builder loads when it is asked; whether it can be asked is known without it. */
export function lazyBuilderEntry(): AskBuilder {
  const workflows = useWorkflowsStore();
  const entry = async () => (await builderFeature()).useBuilderEntry();
  return {
    askAboutWorkflow: async (workflowId) => (await entry()).askAboutWorkflow(workflowId),
    askAboutNode: async (workflowId, nodeId) => (await entry()).askAboutNode(workflowId, nodeId),
    canAsk: (tabId) => {
      const t = tabId ? workflows.tab(tabId) : null;
      return !!t && !t.readonly && t.saved !== null;
    },
  };
}

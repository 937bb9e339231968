import { useBuilderStore } from "./builder-store.ts";
import { useUiStore } from "../../shared/ui/ui-store.ts";
import { useWorkflowsStore } from "../../shared/workflow/workflows-store.ts";

/**
 * Entering the Builder AI from the editor (a workflow or one of its nodes) or the Agents view (an
 * agent profile). The Builder works on stored objects: an unsaved one must be saved first, unsaved
 * edits are saved or left out by choice.
 */
export function useBuilderEntry() {
  const builder = useBuilderStore();
  const workflows = useWorkflowsStore();
  const ui = useUiStore();

  /** Asks whether the Builder should see the stored version or the edits, saved first; null: neither (cancelled). */
  async function askStoredOrSave(name: string): Promise<"stored" | "save" | null> {
    const choice = await ui.confirm({
      title: "Unsaved changes",
      message: `"${name}" has changes that are not saved. The Builder AI works on the stored version.`,
      choices: [
        { id: "stored", label: "Use the stored version" },
        { id: "save", label: "Save and continue", kind: "primary" },
      ],
    });
    return choice === "stored" || choice === "save" ? choice : null;
  }

  /** Whether the workflow's stored version is what the user wants the Builder to see (asking if it has unsaved edits). */
  async function storedVersionReady(workflowId: string): Promise<boolean> {
    const t = workflows.tab(workflowId);
    if (!t) return true;
    if (t.readonly) return false;
    if (t.saved === null) {
      ui.toast("warning", `Save "${t.doc.name}" first: the Builder AI works on stored workflows.`);
      return false;
    }
    if (!workflows.isDirty(t)) return true;
    const choice = await askStoredOrSave(t.doc.name);
    if (choice === null) return false;
    return choice === "stored" || (await workflows.save(workflowId));
  }

  async function askAboutWorkflow(workflowId: string) {
    if (await storedVersionReady(workflowId)) await builder.enter({ type: "workflow", workflowId });
  }

  async function askAboutNode(workflowId: string, nodeId: string) {
    if (await storedVersionReady(workflowId)) await builder.enter({ type: "node", workflowId, nodeId });
  }

  /**
   * Enters on an agent profile; `unsaved` is there when its form has edits the Builder would not see
   * (`save` stores them, false when that failed).
   */
  async function askAboutAgent(agentId: string, name: string, unsaved?: { save: () => Promise<boolean> }) {
    if (unsaved) {
      const choice = await askStoredOrSave(name);
      if (choice === null || (choice === "save" && !(await unsaved.save()))) return;
    }
    await builder.enter({ type: "agent", agentId });
  }

  return { askAboutWorkflow, askAboutNode, askAboutAgent };
}

import { useUiStore } from "../../shared/ui/ui-store.ts";
import { useWorkflowsStore } from "../../shared/workflow/workflows-store.ts";
import { newWorkflowId } from "../../shared/graph/ids.ts";
import { api } from "../../shared/api/client.ts";
import { agentsApi, useAgentsStore } from "../agents/index.ts";
import { sceneApi, useScenesStore } from "../scenes/index.ts";
import { copyId } from "./home-api.ts";
import type { Template } from "./templates.ts";

const copyName = (name: string) => `${name} (copy)`;

/** Using a template: a copy is made on the server (a new id, "… (copy)") and shown where it is edited; the original stays as it is. */
export function useTemplates() {
  const ui = useUiStore();
  const workflows = useWorkflowsStore();
  const agents = useAgentsStore();
  const scenes = useScenesStore();
  /** Shows what went wrong; the template was not used. */
  function refused(show: () => unknown): false {
    show();
    return false;
  }

  async function copyAgent(id: string): Promise<boolean> {
    const list = await agentsApi.list();
    if (!list.ok) return refused(() => ui.apiError("Could not read the agents", list.error));
    const original = list.value.find((a) => a.id === id);
    if (!original) return refused(() => ui.toast("error", `The agent "${id}" this template copies was deleted.`));
    const { updatedAt: _updatedAt, ...profile } = original;
    const created = await agentsApi.create({ ...profile, id: copyId(id, new Set(list.value.map((a) => a.id))), name: copyName(original.name), revision: 0 });
    if (!created.ok) return refused(() => ui.apiError("Could not copy the agent", created.error));
    await agents.loadList();
    await agents.select(created.value.id);
    ui.view = "agents";
    return true;
  }

  async function copyScene(id: string): Promise<boolean> {
    const list = await sceneApi.listScenes();
    if (!list.ok) return refused(() => ui.apiError("Could not read the scenes", list.error));
    const original = list.value.find((s) => s.id === id);
    if (!original) return refused(() => ui.toast("error", `The scene "${id}" this template copies was deleted.`));
    const created = await sceneApi.createScene({ ...original, id: copyId(id, new Set(list.value.map((s) => s.id))), name: copyName(original.name), revision: 0 });
    if (!created.ok) return refused(() => ui.apiError("Could not copy the scene", created.error));
    await scenes.loadList();
    await scenes.select(created.value.id);
    ui.view = "scenes";
    return true;
  }

  async function copyDocument(template: Template & { source: { kind: "document" } }): Promise<boolean> {
    const doc = template.source.document;
    const created = await api.createWorkflow({ ...doc, id: newWorkflowId(doc.name) });
    if (!created.ok) return refused(() => ui.apiError(`Could not create "${doc.name}"`, created.error));
    void workflows.refreshList();
    ui.view = "editor";
    return !!(await workflows.open(created.value.id));
  }

  async function use(template: Template): Promise<boolean> {
    const source = template.source;
    switch (source.kind) {
      case "workflow": {
        const copy = await workflows.openCopy(source.id);
        if (copy) ui.view = "editor";
        return !!copy;
      }
      case "agent":
        return copyAgent(source.id);
      case "scene":
        return copyScene(source.id);
      case "document":
        return copyDocument({ ...template, source });
      default: {
        const never: never = source;
        return never;
      }
    }
  }

  return { use };
}

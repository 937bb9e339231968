import { computed } from "vue";
import { SKILL_NODE_TYPE, type NodeSpec } from "@weft/types";
import { skillSpecs, SKILLS_CATEGORY } from "../../../shared/graph/skill-entries.ts";
import { useNodesStore, type CategoryGroup } from "../../../shared/workflow/nodes-store.ts";
import { useWorkflowsStore } from "../../../shared/workflow/workflows-store.ts";

/** What the palette and quick-add offer: the node catalogue plus every saved skill by name. */
export function useAddableSpecs() {
  const nodes = useNodesStore();
  const workflows = useWorkflowsStore();
  const skills = computed(() => skillSpecs(nodes.lookup(SKILL_NODE_TYPE), workflows.summaries, workflows.active?.doc.id));
  const specs = computed<NodeSpec[]>(() => [...nodes.specs, ...skills.value]);
  const categories = computed<CategoryGroup[]>(() => (skills.value.length ? [...nodes.categories, { category: SKILLS_CATEGORY, specs: skills.value }] : nodes.categories));
  return { specs, categories };
}

export type ShortcutAction =
  | "save"
  | "run"
  | "runFromSelected"
  | "cancelRun"
  | "undo"
  | "redo"
  | "copy"
  | "cut"
  | "paste"
  | "duplicate"
  | "delete"
  | "selectAll"
  | "quickAdd"
  | "help"
  | "fitView"
  | "zoomIn"
  | "zoomOut"
  | "autoLayout"
  | "frame"
  | "comment"
  | "collapse"
  | "createSkill"
  | "newWorkflow"
  | "toggleTheme"
  | "escape";

export interface KeyCombo {
  /** `KeyboardEvent.key`, lower case for letters. */
  key: string;
  /** Ctrl, or Cmd on a Mac. */
  mod?: boolean;
  shift?: boolean;
  alt?: boolean;
}

export interface Shortcut {
  action: ShortcutAction;
  combos: KeyCombo[];
  description: string;
  group: "File" | "Edit" | "Canvas" | "Run" | "Help";
  /** Copy, cut and paste arrive as clipboard events (so the system clipboard works); listed for help only. */
  clipboardEvent?: boolean;
}

export const SHORTCUTS: readonly Shortcut[] = [
  { action: "save", combos: [{ key: "s", mod: true }], description: "Save the workflow", group: "File" },
  { action: "newWorkflow", combos: [{ key: "n", alt: true }], description: "New workflow in a new tab", group: "File" },
  { action: "undo", combos: [{ key: "z", mod: true }], description: "Undo", group: "Edit" },
  {
    action: "redo",
    combos: [
      { key: "z", mod: true, shift: true },
      { key: "y", mod: true },
    ],
    description: "Redo",
    group: "Edit",
  },
  { action: "copy", combos: [{ key: "c", mod: true }], description: "Copy the selection (also as JSON to the system clipboard)", group: "Edit", clipboardEvent: true },
  { action: "cut", combos: [{ key: "x", mod: true }], description: "Cut the selection", group: "Edit", clipboardEvent: true },
  { action: "paste", combos: [{ key: "v", mod: true }], description: "Paste nodes (from this or another tab, or JSON)", group: "Edit", clipboardEvent: true },
  { action: "duplicate", combos: [{ key: "d", mod: true }], description: "Duplicate the selection", group: "Edit" },
  { action: "delete", combos: [{ key: "Delete" }, { key: "Backspace" }], description: "Delete the selection", group: "Edit" },
  { action: "selectAll", combos: [{ key: "a", mod: true }], description: "Select everything", group: "Edit" },
  { action: "collapse", combos: [{ key: "c", alt: true }], description: "Collapse or expand the selected nodes", group: "Edit" },
  { action: "frame", combos: [{ key: "g", mod: true }], description: "Put a frame around the selection", group: "Edit" },
  { action: "comment", combos: [{ key: "m" }], description: "Add a comment", group: "Edit" },
  { action: "createSkill", combos: [{ key: "g", mod: true, shift: true }], description: "Create a skill from the selection", group: "Edit" },
  { action: "quickAdd", combos: [{ key: "/" }, { key: " " }], description: "Quick-add a node (also: double-click the canvas)", group: "Canvas" },
  { action: "fitView", combos: [{ key: "f" }], description: "Fit the whole graph in view", group: "Canvas" },
  { action: "zoomIn", combos: [{ key: "=" }, { key: "+" }], description: "Zoom in", group: "Canvas" },
  { action: "zoomOut", combos: [{ key: "-" }], description: "Zoom out", group: "Canvas" },
  { action: "autoLayout", combos: [{ key: "l" }], description: "Auto-layout (the selection, or everything)", group: "Canvas" },
  { action: "escape", combos: [{ key: "Escape" }], description: "Close the popup, clear the selection", group: "Canvas" },
  { action: "run", combos: [{ key: "Enter", mod: true }], description: "Run the workflow (unsaved edits included)", group: "Run" },
  { action: "runFromSelected", combos: [{ key: "Enter", mod: true, shift: true }], description: "Re-run from the selected node (upstream from cache)", group: "Run" },
  { action: "cancelRun", combos: [{ key: ".", mod: true }], description: "Cancel the running workflow", group: "Run" },
  { action: "help", combos: [{ key: "?" }], description: "Show these shortcuts", group: "Help" },
  { action: "toggleTheme", combos: [{ key: "t", alt: true }], description: "Switch between light and dark theme", group: "Help" },
];

export interface KeyLike {
  key: string;
  ctrlKey: boolean;
  metaKey: boolean;
  shiftKey: boolean;
  altKey: boolean;
}

function matches(combo: KeyCombo, e: KeyLike): boolean {
  const key = e.key.length === 1 ? e.key.toLowerCase() : e.key;
  if (key !== combo.key) return false;
  if (!!combo.mod !== (e.ctrlKey || e.metaKey)) return false;
  if (!!combo.alt !== e.altKey) return false;
  // Shift is part of the key for printable symbols ("?" is Shift+/), so it only counts when declared or for letters and named keys.
  const shiftMatters = combo.shift !== undefined || /^[a-z]$/.test(key) || key.length > 1;
  return !shiftMatters || !!combo.shift === e.shiftKey;
}

/** The action a key press triggers (clipboard actions excluded: they come as clipboard events). */
export function matchShortcut(e: KeyLike): ShortcutAction | null {
  for (const s of SHORTCUTS) {
    if (s.clipboardEvent) continue;
    if (s.combos.some((c) => matches(c, e))) return s.action;
  }
  return null;
}

/** How a combo is written in the help panel, e.g. `Ctrl+Shift+Enter`. */
export function comboLabel(combo: KeyCombo, mac = false): string {
  const parts: string[] = [];
  if (combo.mod) parts.push(mac ? "⌘" : "Ctrl");
  if (combo.alt) parts.push(mac ? "⌥" : "Alt");
  if (combo.shift) parts.push("Shift");
  const names: Record<string, string> = { " ": "Space", Escape: "Esc", Delete: "Del", Backspace: "⌫", Enter: "Enter" };
  parts.push(names[combo.key] ?? combo.key.toUpperCase());
  return parts.join("+");
}

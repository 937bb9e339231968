import { defineStore } from "pinia";
import { computed, markRaw, ref, shallowRef } from "vue";
import { z } from "zod";
import type { ApiError } from "../api/errors.ts";
import { describeApiError } from "../api/errors.ts";
import type { PortSpec } from "@weft/types";
import type { Position } from "../graph/commands.ts";
import type { Size } from "../graph/node-size.ts";
import { readLocal } from "../lib/local-store.ts";
import { routeFromHash, type AppView } from "./route.ts";

export type Theme = "light" | "dark";
/** Where the chosen theme is kept between visits (`useThemeMemory` writes it). */
export const THEME_KEY = "weft.theme";
export type ToastKind = "error" | "warning" | "info" | "success";

export interface Toast {
  id: number;
  kind: ToastKind;
  message: string;
  detail?: string;
  /** A fix the toast offers (e.g. insert a converter, show the node). */
  action?: ToastAction;
  /** Lines shown as they are under the message, monospaced (an error's quoted text and its caret). */
  context?: string;
}

export interface ToastAction {
  label: string;
  run: () => void;
}

/** What the active canvas lets the rest of the app do to it (registered by FlowCanvas while mounted). */
export interface CanvasBridge {
  fitView(): void;
  zoomIn(): void;
  zoomOut(): void;
  /** The flow position under the centre of the visible canvas. */
  viewCenter(): Position;
  /** The part of the flow the canvas shows (flow coordinates). */
  visibleRect(): Position & Size;
  /** Pans (never zooms) just enough for this flow box to be on screen. */
  reveal(box: Position & Size): void;
  /** Flow position of a point on screen. */
  toFlow(screen: Position): Position;
  /** Screen position of a flow point. */
  toScreen(flow: Position): Position;
  /** The measured size of a node, when it is rendered; for a node a large graph keeps off the canvas, the size it will get. */
  sizeOf(id: string): Size | undefined;
  /** Selects exactly these Vue Flow element ids. */
  select(flowIds: string[]): void;
  selectAll(): void;
  clearSelection(): void;
  /** Moves the keyboard focus to a node (once it is drawn). */
  focusNode(id: string): void;
  /** Brings a node into view, selects it and focuses it ("jump to node"). */
  showNode(id: string): void;
}

export interface QuickAddState {
  screen: Position;
  flow: Position;
  /**
   * The node the added one gets wired to: set when a connection was dropped on empty canvas (`ports`
   * is the dragged port) or quick-add was opened on a selected node (`ports` are its outputs, or its
   * inputs for a node without outputs). `fromSide` is the side of those ports: "source" for outputs.
   */
  pending?: { nodeId: string; fromSide: "source" | "target"; ports: readonly PortSpec[]; dragged: boolean };
}

export interface ConfirmRequest {
  title: string;
  message: string;
  /** Things the question concerns, listed under the message (e.g. the workflows a deleted skill breaks). */
  list?: string[];
  choices: { id: string; label: string; kind?: "primary" | "danger" }[];
  resolve: (choice: string | null) => void;
}

export interface PromptRequest {
  title: string;
  message: string;
  value: string;
  /** Returns why the text cannot be used, or null. */
  check?: (value: string) => string | null;
  resolve: (value: string | null) => void;
}

export interface ContextMenuState {
  screen: Position;
  flow: Position;
  /** The node right-clicked, or null for the empty canvas. */
  nodeId: string | null;
}

type SidebarTab = "nodes" | "workflows" | "runs" | "triggers" | "history" | "versions" | "evals";

/** Theme, panels, dialogs, toasts and the selection of the active canvas. */
export const useUiStore = defineStore("ui", () => {
  const theme = ref<Theme>(readLocal(THEME_KEY, z.enum(["light", "dark"])) ?? (globalThis.matchMedia?.("(prefers-color-scheme: dark)").matches ? "dark" : "light"));
  const toggleTheme = () => (theme.value = theme.value === "dark" ? "light" : "dark");

  const toasts = ref<Toast[]>([]);
  let nextToast = 1;
  function toast(kind: ToastKind, message: string, detail?: string, timeoutMs = kind === "error" ? 9000 : 4000, action?: ToastAction, context?: string) {
    const id = nextToast++;
    toasts.value = [...toasts.value.slice(-4), { id, kind, message, detail, ...(action ? { action } : {}), ...(context ? { context } : {}) }];
    if (timeoutMs > 0) setTimeout(() => dismiss(id), timeoutMs);
    return id;
  }
  const dismiss = (id: number) => (toasts.value = toasts.value.filter((t) => t.id !== id));
  /** Shows a backend failure in plain words, prefixed with what the user was doing. */
  const apiError = (doing: string, error: ApiError) => toast("error", `${doing}: ${describeApiError(error)}`, error.code);

  /** The top-level view; useHashRoute keeps it and the location hash in step. */
  const view = ref<AppView>(routeFromHash(globalThis.location?.hash ?? "").view);

  const sidebarTab = ref<SidebarTab>("nodes");
  const helpOpen = ref(false);
  const settingsOpen = ref(false);
  const runDialogOpen = ref(false);
  const interfaceEditorOpen = ref(false);
  const quickAdd = shallowRef<QuickAddState | null>(null);
  /** The node whose "Connect…" list is open. */
  const connectFor = ref<string | null>(null);
  const confirmRequest = shallowRef<ConfirmRequest | null>(null);
  const promptRequest = shallowRef<PromptRequest | null>(null);

  function prompt(request: Omit<PromptRequest, "resolve">): Promise<string | null> {
    return new Promise((resolve) => {
      promptRequest.value = {
        ...request,
        resolve: (value) => {
          promptRequest.value = null;
          resolve(value);
        },
      };
    });
  }

  function confirm(request: Omit<ConfirmRequest, "resolve">): Promise<string | null> {
    return new Promise((resolve) => {
      confirmRequest.value = {
        ...request,
        resolve: (choice) => {
          confirmRequest.value = null;
          resolve(choice);
        },
      };
    });
  }

  /** Long text opened in the viewer (node outputs, streamed text). */
  const textViewer = shallowRef<{ title: string; text: string } | null>(null);

  const canvas = shallowRef<CanvasBridge | null>(null);
  const attachCanvas = (bridge: CanvasBridge | null) => (canvas.value = bridge ? markRaw(bridge) : null);

  /** Vue Flow ids of the selected elements on the active canvas. */
  const selection = shallowRef<string[]>([]);
  const selectedEdges = shallowRef<string[]>([]);
  const singleSelected = computed(() => (selection.value.length === 1 ? selection.value[0] : null));

  const contextMenu = shallowRef<ContextMenuState | null>(null);

  /** A comment just added: it takes the keyboard focus when it appears. */
  const focusAnnotation = shallowRef<string | null>(null);

  /** Where the mouse last was over the canvas (paste and comments go there). */
  const pointer = shallowRef<Position | null>(null);

  return {
    theme,
    toggleTheme,
    toasts,
    toast,
    dismiss,
    apiError,
    view,
    sidebarTab,
    helpOpen,
    settingsOpen,
    runDialogOpen,
    interfaceEditorOpen,
    quickAdd,
    confirmRequest,
    confirm,
    promptRequest,
    prompt,
    textViewer,
    canvas,
    attachCanvas,
    selection,
    selectedEdges,
    singleSelected,
    pointer,
    focusAnnotation,
    contextMenu,
    connectFor,
  };
});

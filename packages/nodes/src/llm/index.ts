import type { NodeDefinition } from "@weft/types";
import { llmChat } from "./chat.ts";
import { llmContextWindow } from "./context-window.ts";
import { llmToolResult } from "./tool-result.ts";

export { llmChat, llmContextWindow, llmToolResult };

/** The `llm:` node types. */
export const llmNodes: NodeDefinition[] = [llmChat, llmContextWindow, llmToolResult];

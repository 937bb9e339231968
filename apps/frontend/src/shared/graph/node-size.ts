export interface Size {
  width: number;
  height: number;
}

/** The size assumed for a node the canvas has not measured yet. */
export const DEFAULT_NODE_SIZE: Size = { width: 220, height: 120 };

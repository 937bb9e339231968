import type { PortSpec } from "@weft/types";
import { portColorVar } from "../../../shared/graph/ports.ts";

/** One dot's box and the distance between dots' starts (8px dots, 2px apart). */
const DOT = 8;
const STEP = 10;

export interface PortDots {
  /** Inline style of the one element: a dot per input from the left, per output from the right, painted as backgrounds. */
  style: Record<string, string>;
  /** The ports by name and type, one per line (the dots' tooltip). */
  title: string;
}

/**
 * A palette entry's ports as ONE element: the catalogue lists every node type, and a span per port
 * made about half of the first screen's elements (each created, styled and laid out before the
 * workflow shows).
 */
type Port = Pick<PortSpec, "id" | "type">;

export function portDots(spec: { inputs: readonly Port[]; outputs: readonly Port[] }): PortDots {
  const dot = (color: string, side: "left" | "right", i: number) => `radial-gradient(circle closest-side, ${color} 90%, transparent) ${side} ${i * STEP}px center / ${DOT}px ${DOT}px no-repeat`;
  const layers = [...spec.inputs.map((p, i) => dot(portColorVar(p.type), "left", i)), ...spec.outputs.map((p, i) => dot(portColorVar(p.type), "right", spec.outputs.length - 1 - i))];
  return {
    style: { paddingLeft: `${spec.inputs.length * STEP}px`, paddingRight: `${spec.outputs.length * STEP}px`, ...(layers.length ? { background: layers.join(", ") } : {}) },
    title: [...spec.inputs.map((p) => `in ${p.id}: ${p.type}`), ...spec.outputs.map((p) => `out ${p.id}: ${p.type}`)].join("\n"),
  };
}

import { NodeSpecSchema, type NodeContext, type NodeDefinition, type NodeExecute, type NodeSpec, type NodeSpecInput, type NodeValues } from "@weft/types";
import { checkConfig, checkInputs } from "./support/io-check.ts";

/** The node's context with `config` replaced by the checked one; the rest is inherited unchanged. */
function withConfig(ctx: NodeContext, config: Record<string, unknown>): NodeContext {
  // Usually the runtime's config is already complete: no derived context (one per call would be costly).
  if (config === ctx.config) return ctx;
  // Inherit rather than copy, so fields a runtime adds to its context (or methods on its prototype) stay visible.
  return Object.create(ctx, { config: { value: config, enumerable: true } }) as NodeContext;
}

/**
 * Declares a node: the spec is validated and defaulted once, at module load, and every call of
 * `execute` first gets its inputs and config checked against that spec (`checkInputs`,
 * `checkConfig`), so the code inside a node can rely on port types, defaults and config kinds.
 * Whatever `execute` returns (outputs, a promise, an async generator of chunks) is returned as is;
 * a bad input or setting, or any synchronous throw, becomes a rejected promise with the NodeFailure
 * (`INVALID_INPUT` / `INVALID_CONFIG`), so a caller sees every failure the same way.
 */
export function defineNode(spec: NodeSpecInput, execute: NodeExecute): NodeDefinition {
  const parsed: NodeSpec = NodeSpecSchema.parse(spec);
  return {
    spec: parsed,
    execute: (inputs: NodeValues, ctx: NodeContext) => {
      try {
        return execute(checkInputs(parsed, inputs), withConfig(ctx, checkConfig(parsed, ctx.config ?? {})));
      } catch (error) {
        return Promise.reject(error);
      }
    },
  };
}

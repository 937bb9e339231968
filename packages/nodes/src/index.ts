export { defineNode } from "./define-node.ts";
export { NodeRegistry, UnknownNodeTypeError } from "./registry.ts";

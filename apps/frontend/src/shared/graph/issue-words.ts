import type { PortType, ValidationIssue, Workflow, WorkflowNode } from "@weft/types";
import { findPort, nodePorts, type SpecLookup } from "./ports.ts";
import { withArticle as article } from "./connection.ts";
import type { Link } from "./converter.ts";

/** A validation issue as the editor says it: nodes by their titles, no ids or API paths, and where to look. */
export interface IssueInWords {
  text: string;
  hint: string;
  /** The node to jump to. */
  nodeId?: string;
  /** For a type mismatch on an edge: the edge and its two port types, to offer a converter. */
  mismatch?: { edgeId: string; link: Link; from: PortType; to: PortType };
}

/** API paths in parentheses (the API's own advice) mean nothing in the editor. */
const API_ADVICE = /\s*\((?:GET|POST|PUT|PATCH|DELETE) \/api\/[^)]*\)/g;

export function issueInWords(issue: ValidationIssue, doc: Workflow, titleOf: (node: WorkflowNode) => string, specs: SpecLookup): IssueInWords {
  const byId = new Map(doc.nodes.map((n) => [n.id, n]));
  const named = (id: string) => {
    const node = byId.get(id);
    return `“${node ? titleOf(node) : id}”`;
  };
  // Whatever a code does not say better below: node ids in quotes become titles, API talk goes.
  const plain = (text: string) =>
    text
      .replace(API_ADVICE, "")
      .replace(/"([^"]+)"/g, (quoted, id: string) => (byId.has(id) ? named(id) : quoted))
      .replace(/\b(?:inputs|config)\.(\w+)/g, "“$1”");
  const nodeId = issue.nodeId ?? issue.nodeIds?.[0];
  const quotedPort = /input "([^"]+)"/.exec(issue.message)?.[1];
  switch (issue.code) {
    case "MISSING_REQUIRED_INPUT":
      if (issue.nodeId && quotedPort) {
        const node = byId.get(issue.nodeId);
        const port = node && findPort(nodePorts(node, specs(node.type)).inputs, quotedPort);
        return { nodeId, text: `${named(issue.nodeId)} needs a value for “${port?.label ?? quotedPort}”`, hint: "Type it in the node's field, or connect an output to it." };
      }
      break;
    case "CYCLE":
      if (issue.nodeIds?.length)
        return { nodeId, text: `These nodes form a loop: ${[...issue.nodeIds, issue.nodeIds[0]].map(named).join(" → ")}`, hint: "Remove one of the connections along the loop." };
      break;
    case "SKILL_NOT_FOUND":
      if (issue.nodeId) return { nodeId, text: `${named(issue.nodeId)} calls a skill that no longer exists`, hint: "Choose another skill on the node, or delete the node." };
      break;
    case "UNKNOWN_NODE_TYPE":
      if (issue.nodeId) return { nodeId, text: `${named(issue.nodeId)} is a kind of node this server does not have`, hint: plain(issue.hint) };
      break;
    case "PORT_TYPE_MISMATCH": {
      const edge = issue.edgeId ? doc.edges.find((e) => e.id === issue.edgeId) : undefined;
      const source = edge && byId.get(edge.source);
      const target = edge && byId.get(edge.target);
      const out = source && findPort(nodePorts(source, specs(source.type)).outputs, edge.sourceHandle);
      const input = target && findPort(nodePorts(target, specs(target.type)).inputs, edge.targetHandle);
      if (edge && out && input) {
        return {
          nodeId: edge.target,
          text: `${named(edge.source)} gives ${article(out.type)} but ${named(edge.target)} takes ${article(input.type)} in “${input.label ?? input.id}”`,
          hint: "Connect an output of the right type, or put a converter in between.",
          mismatch: { edgeId: edge.id, link: { source: edge.source, sourceHandle: edge.sourceHandle, target: edge.target, targetHandle: edge.targetHandle }, from: out.type, to: input.type },
        };
      }
      break;
    }
  }
  return { nodeId, text: plain(issue.message), hint: plain(issue.hint) };
}

import { describe, expect, it } from "vitest";
import type { Workflow } from "@weft/types";
import { checkDuplicateIds, checkInputs, checkNodes, linkEdges, startBuild, type GraphBuild } from "./compile-graph.ts";
import { createTestCatalog, workflow } from "./testing/test-nodes.ts";

const { catalog } = createTestCatalog();

/** The phases up to and including checkInputs, as compileGraph runs them. */
function throughInputs(doc: Workflow): GraphBuild {
  const build = startBuild(doc, catalog);
  checkNodes(build);
  checkDuplicateIds(build);
  linkEdges(build);
  checkInputs(build);
  return build;
}

describe("compileGraph phases", () => {
  describe("checkNodes: multi-input literals", () => {
    /** join (parts: multi string) with a literal. */
    it("turns a single literal for a multi input into a list of one, leaving the node's own inputs as they were", () => {
      const doc = workflow("w", [{ id: "j", type: "test:join", inputs: { parts: "a" } }]);
      const build = startBuild(doc, catalog);
      checkNodes(build);
      expect(build.issues).toEqual([]);
      expect(build.literals[0]).toEqual({ parts: ["a"] });
      expect(doc.nodes[0].inputs).toEqual({ parts: "a" });
    });

    it("keeps a list literal for a multi input as it is and checks each item's type", () => {
      const ok = startBuild(workflow("w", [{ id: "j", type: "test:join", inputs: { parts: ["a", "b"] } }]), catalog);
      checkNodes(ok);
      expect(ok.issues).toEqual([]);
      expect(ok.literals[0]).toEqual({ parts: ["a", "b"] });

      const bad = startBuild(workflow("w", [{ id: "j", type: "test:join", inputs: { parts: ["a", 2] } }]), catalog);
      checkNodes(bad);
      expect(bad.issues.map((i) => [i.code, i.nodeId])).toEqual([["PORT_TYPE_MISMATCH", "j"]]);
      expect(bad.issues[0].message).toContain("(or a list of them)");
    });
  });

  describe("checkInputs: duplicate single inputs", () => {
    /** Constants named `sources`, each wired into `target`.`port` (a node of `type`). */
    function fanIn(type: string, target: string, port: string, sources: string[]): GraphBuild {
      const nodes = [...sources.map((id) => ({ id, type: "test:const", config: { value: id } })), { id: target, type }];
      return throughInputs(
        workflow(
          "w",
          nodes,
          sources.map((id): [string, string, string, string] => [id, "value", target, port]),
        ),
      );
    }

    /** a, b, c → upper.text (single) */
    it("reports two edges into one single input once, and marks only the first edge as first", () => {
      const build = fanIn("test:upper", "u", "text", ["a", "b", "c"]);
      expect(build.issues.map((i) => [i.code, i.nodeId])).toEqual([["DUPLICATE_INPUT", "u"]]);
      expect(Array.from(build.inFirst)).toEqual([1, 0, 0]);
    });

    /** a, b → join.parts (multi) */
    it("accepts several edges into a multi input", () => {
      const build = fanIn("test:join", "j", "parts", ["a", "b"]);
      expect(build.issues).toEqual([]);
      expect(Array.from(build.inFirst)).toEqual([1, 0]);
    });
  });

  describe("checkInputs: required inputs", () => {
    it("reports a required input with no edge, no literal and no default", () => {
      const build = throughInputs(workflow("w", [{ id: "u", type: "test:upper" }]));
      expect(build.issues.map((i) => [i.code, i.nodeId])).toEqual([["MISSING_REQUIRED_INPUT", "u"]]);
      expect(build.issues[0].message).toBe('required input "text" of "u" (test:upper) has no edge and no value');
    });

    /** a → add.a (required); add.b has a default */
    it("accepts a required input filled by an edge or by a literal", () => {
      const byEdge = throughInputs(
        workflow(
          "w",
          [
            { id: "a", type: "test:const", config: { value: 1 } },
            { id: "s", type: "test:add" },
          ],
          [["a", "value", "s", "a"]],
        ),
      );
      expect(byEdge.issues).toEqual([]);
      const byLiteral = throughInputs(workflow("w", [{ id: "u", type: "test:upper", inputs: { text: "hi" } }]));
      expect(byLiteral.issues).toEqual([]);
    });

    it("does not report required inputs of a node whose type is unknown (checkNodes already did)", () => {
      const build = throughInputs(workflow("w", [{ id: "x", type: "test:nope" }]));
      expect(build.issues.map((i) => i.code)).toEqual(["UNKNOWN_NODE_TYPE"]);
    });
  });
});

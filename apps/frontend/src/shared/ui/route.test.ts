import { describe, expect, it } from "vitest";
import { hashOfRoute, routeFromHash, sceneLinkFromHash, sceneLinkHash } from "./route.ts";

describe("the route in the location hash", () => {
  it("reads each view, the Builder's session, and anything unknown as the editor", () => {
    expect(routeFromHash("")).toEqual({ view: "editor", session: null, link: null });
    expect(routeFromHash("#/agents")).toEqual({ view: "agents", session: null, link: null });
    expect(routeFromHash("#/builder")).toEqual({ view: "builder", session: null, link: null });
    expect(routeFromHash("#/builder/bs_1%2F2")).toEqual({ view: "builder", session: "bs_1/2", link: null });
    expect(routeFromHash("#/scenes/bs_1")).toEqual({ view: "scenes", session: null, link: null });
    expect(routeFromHash("#/nowhere")).toEqual({ view: "editor", session: null, link: null });
  });

  it("reads a workflow, a run of it and a node as an editor link", () => {
    expect(routeFromHash("#/workflows/text-pipeline").link).toEqual({ workflow: "text-pipeline", run: null, node: null });
    expect(routeFromHash("#/workflows/a%2Fb/runs/r_1?node=trim_1").link).toEqual({ workflow: "a/b", run: "r_1", node: "trim_1" });
    expect(routeFromHash("#/workflows/a?node=x").link).toEqual({ workflow: "a", run: null, node: "x" });
  });

  it("writes one hash per route, read back as the same route", () => {
    for (const hash of ["", "#/scenes", "#/agents", "#/builder", "#/builder/bs_1%2F2", "#/workflows/a", "#/workflows/a/runs/r_1?node=trim_1"]) expect(hashOfRoute(routeFromHash(hash))).toBe(hash);
    expect(hashOfRoute(routeFromHash("#/editor"))).toBe("");
  });

  it("reads and writes a scene's timeline link at a session-log entry (a scene suite's first broken step)", () => {
    expect(sceneLinkFromHash("#/scenes/shop--eval-1a2b3c4d-2?seq=7")).toEqual({ scene: "shop--eval-1a2b3c4d-2", seq: 7 });
    expect(sceneLinkFromHash("#/scenes/a%2Fb")).toEqual({ scene: "a/b", seq: null });
    expect(sceneLinkFromHash("#/scenes/a?seq=x")).toEqual({ scene: "a", seq: null });
    expect(sceneLinkFromHash("#/scenes")).toBeNull();
    expect(sceneLinkHash({ scene: "a/b", seq: 3 })).toBe("#/scenes/a%2Fb?seq=3");
    expect(routeFromHash("#/scenes/a?seq=3").view).toBe("scenes");
  });
});

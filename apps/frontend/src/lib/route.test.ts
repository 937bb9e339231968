import { describe, expect, it } from "vitest";
import { hashOfRoute, routeFromHash } from "./route.ts";

describe("the route in the location hash", () => {
  it("reads each view, the Builder's session, and anything unknown as the editor", () => {
    expect(routeFromHash("")).toEqual({ view: "editor", session: null });
    expect(routeFromHash("#/agents")).toEqual({ view: "agents", session: null });
    expect(routeFromHash("#/builder")).toEqual({ view: "builder", session: null });
    expect(routeFromHash("#/builder/bs_1%2F2")).toEqual({ view: "builder", session: "bs_1/2" });
    expect(routeFromHash("#/scenes/bs_1")).toEqual({ view: "scenes", session: null });
    expect(routeFromHash("#/nowhere")).toEqual({ view: "editor", session: null });
  });

  it("writes one hash per route, read back as the same route", () => {
    for (const hash of ["", "#/scenes", "#/agents", "#/builder", "#/builder/bs_1%2F2"]) expect(hashOfRoute(routeFromHash(hash))).toBe(hash);
    expect(hashOfRoute(routeFromHash("#/editor"))).toBe("");
  });
});

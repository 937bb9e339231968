import { describe, expect, it } from "vitest";
import { shortRunId } from "./ids.ts";

describe("shortRunId", () => {
  it("tells apart runs made in the same minute (time-ordered ids share their beginning, their end is random)", () => {
    // UUIDv7s made in the same millisecond: 48 bits of time, then random bits.
    const ids = ["01a21667-f2f5-76ab-80fa-d6f821ceb643", "01a21667-f2f5-7c01-9a3e-0b7d19f4e2a8", "01a21667-f2f6-7410-b2c4-5e8f0a1d3c77"];
    expect(new Set(ids.map((id) => id.slice(0, 8))).size).toBe(1);
    expect(ids.map(shortRunId)).toEqual(["21ceb643", "19f4e2a8", "0a1d3c77"]);
  });
});

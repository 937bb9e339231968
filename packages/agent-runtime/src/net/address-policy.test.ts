import { describe, expect, it } from "vitest";
import { nonPublicRange } from "./address-policy.ts";

describe("nonPublicRange", () => {
  it.each([
    ["127.0.0.1", "loopback"],
    ["10.1.2.3", "private"],
    ["172.16.0.1", "private"],
    ["192.168.1.1", "private"],
    ["169.254.169.254", "linkLocal"],
    ["100.64.0.1", "carrierGradeNat"],
    ["0.0.0.0", "unspecified"],
    ["::1", "loopback"],
    ["[::1]", "loopback"],
    ["fe80::1", "linkLocal"],
    ["fd00:ec2::254", "uniqueLocal"],
    ["::ffff:127.0.0.1", "loopback"],
    ["::ffff:169.254.169.254", "linkLocal"],
    ["::", "unspecified"],
  ])("refuses %s (%s)", (address, range) => {
    expect(nonPublicRange(address)).toBe(range);
  });

  it("refuses NAT64 and 6to4 forms, which can carry an inside address", () => {
    expect(nonPublicRange("64:ff9b::7f00:1")).toBeDefined();
    expect(nonPublicRange("2002:7f00:1::")).toBeDefined();
  });

  it.each(["93.184.216.34", "8.8.8.8", "2606:4700:4700::1111", "::ffff:8.8.8.8"])("lets the public address %s through", (address) => {
    expect(nonPublicRange(address)).toBeUndefined();
  });
});

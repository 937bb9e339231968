import ipaddr from "ipaddr.js";

/**
 * Why an address is not a public one (`loopback`, `private`, `linkLocal`, `carrierGradeNat`,
 * `uniqueLocal`, …, ipaddr.js's range names), or undefined when it is global unicast. IPv4-mapped
 * IPv6 (`::ffff:127.0.0.1`) is judged as the IPv4 address it carries; every other special range
 * (NAT64, 6to4, Teredo, multicast, reserved) counts as not public, since it can lead inside.
 */
export function nonPublicRange(address: string): string | undefined {
  const bare = address.startsWith("[") && address.endsWith("]") ? address.slice(1, -1) : address;
  if (!ipaddr.isValid(bare)) return "invalid";
  const parsed = ipaddr.process(bare);
  const range = parsed.range();
  return range === "unicast" ? undefined : range;
}

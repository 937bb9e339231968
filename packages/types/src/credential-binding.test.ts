import { describe, expect, it } from "vitest";
import { credentialMayGoTo, formatHostPattern, hostPatternsOf, parseHostPattern } from "./credential-binding.ts";
import { CredentialInputSchema } from "./http.ts";

const mayGo = (patterns: string[], url: string) => credentialMayGoTo(hostPatternsOf(patterns), new URL(url));

describe("credential host patterns", () => {
  it("match scheme, host and port exactly (the default port when none is written), and a path at segment boundaries", () => {
    const bound = ["https://api.example.com", "http://127.0.0.1:8080/v1"];
    expect(mayGo(bound, "https://api.example.com/anything?q=1")).toBe(true);
    expect(mayGo(bound, "https://api.example.com:443/x")).toBe(true);
    expect(mayGo(bound, "https://API.Example.COM/x")).toBe(true);
    expect(mayGo(bound, "http://api.example.com/x")).toBe(false);
    expect(mayGo(bound, "https://api.example.com:8443/x")).toBe(false);
    expect(mayGo(bound, "http://127.0.0.1:8080/v1")).toBe(true);
    expect(mayGo(bound, "http://127.0.0.1:8080/v1/items")).toBe(true);
    expect(mayGo(bound, "http://127.0.0.1:8080/v10")).toBe(false);
    expect(mayGo(bound, "http://127.0.0.1:8080/v1/../admin")).toBe(false);
    expect(mayGo(bound, "http://127.0.0.1:8081/v1")).toBe(false);
  });

  it("cannot be met by a look-alike: a path, user info or a suffix naming the bound host", () => {
    const bound = ["https://x.example.com", "https://*.corp.example"];
    for (const url of [
      "https://evil.test/x.example.com",
      "https://x.example.com@evil.test/",
      "https://x.example.com.evil.test/",
      "https://evil.test/?x.example.com",
      "https://evil.test#x.example.com",
      "https://notx.example.com/",
      "https://corp.example/",
      "https://evilcorp.example/",
      "https://a.corp.example.evil.test/",
      "https://user:pw@x.example.com/",
    ]) {
      expect(mayGo(bound, url), url).toBe(false);
    }
    expect(mayGo(bound, "https://a.corp.example/")).toBe(true);
    expect(mayGo(bound, "https://a.b.corp.example/")).toBe(true);
  });

  it("are stored normalised, and a malformed one is refused with how to write it", () => {
    expect(CredentialInputSchema.parse({ name: "n", kind: "bearer", hosts: ["HTTPS://Api.Example.com:443/", "http://[::1]:9000/v1/"] }).hosts).toEqual([
      "https://api.example.com",
      "http://[::1]:9000/v1",
    ]);
    for (const bad of ["api.example.com", "ftp://x.example.com", "https://x.example.com/?q=1", "https://a*b.example.com", "https://*", "https://u@x.example.com", "https://x.example.com/**"]) {
      const parsed = parseHostPattern(bad);
      expect(typeof parsed, bad).toBe("string");
      expect(parsed).toContain("https://api.example.com");
    }
    const refused = CredentialInputSchema.safeParse({ name: "n", kind: "bearer", hosts: [] });
    expect(refused.success).toBe(false);
    const round = parseHostPattern("https://*.example.com:8443/api");
    expect(typeof round === "string" ? round : formatHostPattern(round)).toBe("https://*.example.com:8443/api");
  });
});

import { describe, expect, it } from "vitest";
import { ToolFailure } from "../tool-failure.ts";
import { parseVirtualPath } from "./virtual-path.ts";

function refusal(path: string, maxBytes = 1024): ToolFailure {
  try {
    parseVirtualPath(path, maxBytes);
  } catch (error) {
    if (error instanceof ToolFailure) return error;
    throw error;
  }
  throw new Error(`expected ${JSON.stringify(path)} to be refused`);
}

describe("parseVirtualPath", () => {
  it("splits mount paths and canonicalises empty and `.` segments", () => {
    expect(parseVirtualPath("@project/src/a.ts", 1024)).toEqual({ mount: "project", segments: ["src", "a.ts"], text: "@project/src/a.ts" });
    expect(parseVirtualPath("@state/./x//y/", 1024)).toEqual({ mount: "state", segments: ["x", "y"], text: "@state/x/y" });
    expect(parseVirtualPath("@pkg", 1024)).toEqual({ mount: "pkg", segments: [], text: "@pkg/" });
    expect(parseVirtualPath("@project/ünïcødé 文件.md", 1024).segments).toEqual(["ünïcødé 文件.md"]);
  });

  it.each([
    ["@project/../outside/secret.txt", "`..` segment"],
    ["@project/a/../../x", "`..` segment"],
    ["@project/..", "`..` segment"],
    ["/etc/passwd", "absolute path"],
    ["~/.ssh/id_rsa", "home folder"],
    ["C:/Windows/win.ini", "drive letter"],
    ["file:///etc/passwd", "does not start with a mount"],
    ["src/a.ts", "does not start with a mount"],
    ["@home/x", "@home/ is not a mount"],
    ["@project\\..\\x", "backslash"],
    ["@project/%2e%2e/outside", "percent escape %2e"],
    ["@project/%2E%2E%2Foutside", "percent escape"],
    ["@project/%252e%252e/outside", "percent escape %25"],
    ["@project/%c0%ae%c0%ae/x", "percent escape"],
    ["@project/a\u0000.txt", "NUL byte"],
    ["@project/a\n.txt", "control or invisible character U+000A"],
    ["@project/\u202egnp.exe", "U+202E"],
    ["@project/a\u200b/b", "U+200B"],
    ["@project/\uff0e\uff0e/outside", "look-alike"],
    ["@project/\u2025/outside", "look-alike"],
    ["@project/a\uff0fb", "look-alike"],
    ["@project/a\u2215..\u2215b", "look-alike"],
    ["\uff20project/a", "look-alike of `@`"],
  ])("refuses %j (%s)", (path, reason) => {
    const failure = refusal(path);
    expect(failure.code).toBe("E_SANDBOX_VIOLATION");
    expect(failure.message).toContain(reason);
    // Every refusal names the path and says how to fix it.
    expect(failure.message).toMatch(/^Refused path /);
    expect(failure.message.length).toBeGreaterThan(60);
  });

  it("suggests the nearest mount for a mistyped or look-alike one", () => {
    expect(refusal("@projct/a").message).toContain("Did you mean @project/?");
    expect(refusal("@ｐｋｇ/a").message).toContain("Did you mean @pkg/?");
  });

  it("refuses overlong paths and names", () => {
    const long = "@project/" + "a/".repeat(600);
    const failure = refusal(long);
    expect(failure.message).toContain("over the limit of 1024");
    expect(failure.details).toMatchObject({ limit: 1024 });
    expect(refusal("@project/" + "x".repeat(256)).message).toContain("over 255 bytes");
    // Multi-byte characters count as bytes.
    expect(refusal("@project/" + "文".repeat(86)).message).toContain("over 255 bytes");
    expect(parseVirtualPath("@project/" + "文".repeat(85), 1024).segments[0]).toHaveLength(85);
  });
});

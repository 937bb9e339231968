import type { Logger } from "@weft/types";

/**
 * How shell commands are isolated, from WEFT_SHELL_SANDBOX: bubblewrap unless it says `off`, the
 * explicit opt-out for machines where bubblewrap cannot run (the tool host then warns at start).
 */
export function shellSandboxFromEnv(env: Record<string, string | undefined>, log: Logger): "bwrap" | "off" {
  const value = env.WEFT_SHELL_SANDBOX?.trim().toLowerCase();
  if (value === "off") return "off";
  if (value !== undefined && value !== "" && value !== "bwrap" && value !== "on") {
    log.warn(`WEFT_SHELL_SANDBOX=${JSON.stringify(env.WEFT_SHELL_SANDBOX)} is not understood; shell commands run in the bubblewrap sandbox. Set it to "off" to run them without one.`);
  }
  return "bwrap";
}

/** Variables a command may see, when the host has them; anything else is dropped. */
export const DEFAULT_ENV_ALLOWLIST = ["PATH", "HOME", "LANG", "LANGUAGE", "LC_ALL", "LC_CTYPE", "LC_MESSAGES", "TZ", "TERM", "USER", "LOGNAME"];

/** Names that are never passed on, even when allowlisted: they tend to hold credentials. */
const SECRET_NAME = /KEY|TOKEN|SECRET|PASSW|CREDENTIAL|AUTH|COOKIE|SESSION|PRIVATE|CERT/i;

/**
 * The environment a command runs with: the allowlisted host variables without secrets, then `fixed`
 * (which wins: the sandbox's HOME, git's hardening), and never a pager.
 */
export function scrubbedEnvironment(source: Record<string, string | undefined>, allow: readonly string[], fixed: Record<string, string>): Record<string, string> {
  const env: Record<string, string> = {};
  for (const name of allow) {
    const value = source[name];
    if (value !== undefined && !SECRET_NAME.test(name)) env[name] = value;
  }
  // Relative PATH entries would resolve against a folder the model can write to.
  const path = (env.PATH ?? "").split(":").filter((dir) => dir.startsWith("/"));
  env.PATH = path.length > 0 ? path.join(":") : "/usr/local/bin:/usr/bin:/bin";
  return { ...env, ...fixed, PAGER: "cat" };
}

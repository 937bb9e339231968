/**
 * Git runs programs named in configuration (fsmonitor, hooks, pagers, external diff drivers), and a
 * repository's own config file is data the model may have written: a folder with a bare-repository
 * layout made with fs.write is a repository to git. These settings are given on git's command-line
 * level (`GIT_CONFIG_COUNT`), which outranks every config file and is the only level, besides the
 * system and global ones that are switched off here, where `safe.bareRepository` counts.
 */
const GIT_CONFIG: ReadonlyArray<readonly [string, string]> = [
  ["safe.bareRepository", "explicit"],
  ["core.fsmonitor", "false"],
  ["core.hooksPath", "/dev/null"],
  ["core.pager", "cat"],
  ["pager.status", "false"],
  ["pager.log", "false"],
  ["pager.diff", "false"],
  ["pager.show", "false"],
  ["core.sshCommand", "false"],
  ["core.askPass", "false"],
  ["protocol.allow", "never"],
  ["credential.helper", ""],
];

/** Variables that keep git to the repository's own data: no system or global config, no replace refs, no prompts or locks. */
export function gitEnvironment(): Record<string, string> {
  const env: Record<string, string> = {
    GIT_CONFIG_NOSYSTEM: "1",
    GIT_CONFIG_SYSTEM: "/dev/null",
    GIT_CONFIG_GLOBAL: "/dev/null",
    GIT_NO_REPLACE_OBJECTS: "1",
    GIT_PAGER: "cat",
    GIT_TERMINAL_PROMPT: "0",
    GIT_OPTIONAL_LOCKS: "0",
    GIT_CONFIG_COUNT: String(GIT_CONFIG.length),
  };
  GIT_CONFIG.forEach(([key, value], i) => {
    env[`GIT_CONFIG_KEY_${i}`] = key;
    env[`GIT_CONFIG_VALUE_${i}`] = value;
  });
  return env;
}

const SHOWS_DIFFS: ReadonlySet<string> = new Set(["diff", "log", "show"]);

/**
 * The argument vector git is started with: subcommands that print diffs get `--no-ext-diff
 * --no-textconv`, since `diff.external` and textconv drivers (chosen by a `.gitattributes` the model
 * can write) run programs, and no config level can unset them. Other commands pass unchanged.
 */
export function hardenGitArguments(argv: readonly string[]): string[] {
  if (argv[0] !== "git" || !SHOWS_DIFFS.has(argv[1] ?? "")) return [...argv];
  return [argv[0], argv[1], "--no-ext-diff", "--no-textconv", ...argv.slice(2)];
}

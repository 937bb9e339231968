import { CommandRuleSchema, type CommandRule, type CommandRuleInput } from "@weft/types";
import { ToolFailure } from "../tool-failure.ts";

/** Read-only tools the shell may run unless the settings say otherwise (seed 002 §5.2). */
export const DEFAULT_COMMAND_RULES: CommandRule[] = (
  [
    { command: "ls", deniedArgs: ["-L", "--dereference"] },
    { command: "cat" },
    { command: "head" },
    { command: "tail", deniedArgs: ["-f", "-F", "--follow", "--retry"] },
    // --files0-from reads the names of the files to count from a file, where no argument check sees them.
    { command: "wc", deniedArgs: ["--files0-from"] },
    { command: "grep", deniedArgs: ["-R", "--dereference-recursive"] },
    {
      command: "find",
      deniedArgs: ["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls", "-L", "-H", "-follow", "-files0-from"],
    },
    { command: "pwd" },
    {
      command: "git",
      subcommands: ["status", "log", "diff", "show"],
      deniedArgs: ["--output", "--ext-diff", "--textconv", "--no-index", "--exec-path", "--git-dir", "--work-tree", "--upload-pack", "--paginate"],
    },
  ] satisfies CommandRuleInput[]
).map((rule) => CommandRuleSchema.parse(rule));

function describe(rules: CommandRule[]): string {
  return rules.map((r) => (r.subcommands ? `${r.command} (${r.subcommands.join("|")})` : r.command)).join(", ");
}

/**
 * Whether `arg` is the denied option `denied`: exactly, as `--opt=value`, inside a bundle of short
 * options (`-laL`), or, for a `--long` option, abbreviated: GNU getopt and git accept any unambiguous
 * prefix (`--dereference-recursiv`, `--files0-fro=x`, even `--f=x` for wc), and which prefixes are
 * unambiguous depends on the program, so every prefix is refused.
 */
function matchesDenied(arg: string, denied: string): boolean {
  if (arg === denied || arg.startsWith(denied + "=")) return true;
  if (denied.startsWith("--")) {
    const name = arg.startsWith("--") ? arg.slice(2).split("=", 1)[0] : "";
    return name.length > 0 && denied.slice(2).startsWith(name);
  }
  const shortOption = /^-[A-Za-z0-9]$/.test(denied);
  return shortOption && /^-[A-Za-z0-9]{2,}$/.test(arg) && arg.slice(1).includes(denied.slice(1));
}

/** Refuses a command that is not on the allowlist, a subcommand not allowed, or a denied option. */
export function assertAllowed(argv: string[], rules: CommandRule[], commandText: string): CommandRule {
  const [program, ...rest] = argv;
  if (program.includes("/")) {
    throw new ToolFailure("E_COMMAND_NOT_ALLOWED", `Refused command ${JSON.stringify(commandText)}: programs are named, not given as paths. Allowed: ${describe(rules)}.`, { command: commandText });
  }
  const rule = rules.find((r) => r.command === program);
  if (!rule) {
    throw new ToolFailure(
      "E_COMMAND_NOT_ALLOWED",
      `Refused command ${JSON.stringify(commandText)}: \`${program}\` is not on the allowlist. Allowed: ${describe(rules)}. For files, use the fs.* tools.`,
      {
        command: commandText,
        allowed: rules.map((r) => r.command),
      },
    );
  }
  if (rule.subcommands && !rule.subcommands.includes(rest[0] ?? "")) {
    throw new ToolFailure("E_COMMAND_NOT_ALLOWED", `Refused command ${JSON.stringify(commandText)}: \`${program}\` may only run ${rule.subcommands.map((s) => `\`${program} ${s}\``).join(", ")}.`, {
      command: commandText,
      allowedSubcommands: rule.subcommands,
    });
  }
  // Every argument, also after `--`: find (for one) takes no notice of `--` after its paths.
  for (const arg of rest) {
    const denied = rule.deniedArgs.find((d) => matchesDenied(arg, d));
    if (denied) {
      throw new ToolFailure(
        "E_COMMAND_NOT_ALLOWED",
        `Refused command ${JSON.stringify(commandText)}: the option \`${denied}\` of \`${program}\` is not allowed (it can follow links, read names of files from a file, write files or run other programs)${arg === denied ? "" : `; \`${arg}\` is read as \`${denied}\``}. Leave it out, or use the fs.* tools.`,
        {
          command: commandText,
          option: denied,
        },
      );
    }
  }
  return rule;
}

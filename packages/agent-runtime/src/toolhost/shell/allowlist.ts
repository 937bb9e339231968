import { CommandRuleSchema, type CommandRule, type CommandRuleInput } from "@weft/types";
import { ToolFailure } from "../tool-failure.ts";

/** Read-only tools the shell may run unless the settings say otherwise (seed 002 §5.2). */
export const DEFAULT_COMMAND_RULES: CommandRule[] = ([
  { command: "ls", deniedArgs: ["-L", "--dereference"] },
  { command: "cat" },
  { command: "head" },
  { command: "tail", deniedArgs: ["-f", "-F", "--follow", "--retry"] },
  { command: "wc", deniedArgs: ["--files0-from"] },
  { command: "grep", deniedArgs: ["-R", "--dereference-recursive"] },
  { command: "find", deniedArgs: ["-exec", "-execdir", "-ok", "-okdir", "-delete", "-fprint", "-fprint0", "-fprintf", "-fls", "-L", "-H", "-follow", "-files0-from"] },
  { command: "pwd" },
  {
    command: "git",
    subcommands: ["status", "log", "diff", "show"],
    deniedArgs: ["--output", "--ext-diff", "--textconv", "--no-index", "--exec-path", "--git-dir", "--work-tree", "--upload-pack", "--paginate"],
  },
] satisfies CommandRuleInput[]).map((rule) => CommandRuleSchema.parse(rule));

function describe(rules: CommandRule[]): string {
  return rules.map((r) => (r.subcommands ? `${r.command} (${r.subcommands.join("|")})` : r.command)).join(", ");
}

/** Whether `arg` is the denied option `denied`: exactly, as `--opt=value`, or inside a bundle of short options (`-laL`). */
function matchesDenied(arg: string, denied: string): boolean {
  if (arg === denied || arg.startsWith(denied + "=")) return true;
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
    throw new ToolFailure("E_COMMAND_NOT_ALLOWED", `Refused command ${JSON.stringify(commandText)}: \`${program}\` is not on the allowlist. Allowed: ${describe(rules)}. For files, use the fs.* tools.`, {
      command: commandText,
      allowed: rules.map((r) => r.command),
    });
  }
  if (rule.subcommands && !rule.subcommands.includes(rest[0] ?? "")) {
    throw new ToolFailure("E_COMMAND_NOT_ALLOWED", `Refused command ${JSON.stringify(commandText)}: \`${program}\` may only run ${rule.subcommands.map((s) => `\`${program} ${s}\``).join(", ")}.`, {
      command: commandText,
      allowedSubcommands: rule.subcommands,
    });
  }
  for (const arg of rest) {
    if (arg === "--") break;
    const denied = rule.deniedArgs.find((d) => matchesDenied(arg, d));
    if (denied) {
      throw new ToolFailure("E_COMMAND_NOT_ALLOWED", `Refused command ${JSON.stringify(commandText)}: the option \`${denied}\` of \`${program}\` is not allowed (it can follow links, write files or run other programs).`, {
        command: commandText,
        option: denied,
      });
    }
  }
  return rule;
}

import { parse } from "shell-quote";
import { describe, expect, it } from "vitest";
import { ToolFailure } from "../tool-failure.ts";
import { DEFAULT_COMMAND_RULES, assertAllowed } from "./allowlist.ts";
import { formatCommandLine, parseCommandLine } from "./command-line.ts";

function refusal(run: () => unknown): ToolFailure {
  try {
    run();
  } catch (error) {
    if (error instanceof ToolFailure) return error;
    throw error;
  }
  throw new Error("expected a refusal");
}

describe("parseCommandLine", () => {
  it("splits a command line with quotes into literal arguments", () => {
    expect(parseCommandLine("grep -n 'a|b' \"my file.txt\"")).toEqual(["grep", "-n", "a|b", "my file.txt"]);
    expect(parseCommandLine("git", ["log", "--format=%h;%s", "a b"])).toEqual(["git", "log", "--format=%h;%s", "a b"]);
    expect(formatCommandLine(["grep", "a b", "--format=%h", "it's"])).toBe("grep 'a b' --format=%h 'it'\\''s'");
    // What it prints reads back, through a shell parser, to the same arguments.
    const tricky = ["grep", "a b", "--x=1", "it's", "$HOME", "*", "a;b", ""];
    expect(parse(formatCommandLine(tricky))).toEqual(tricky);
  });

  it.each([
    ["ls; rm -rf /", "command separator `;`"],
    ["ls && id", "`&&`"],
    ["ls || id", "`||`"],
    ["ls | sh", "pipe"],
    ["ls & id", "`&`"],
    ["ls &", "`&`"],
    ["cat < /etc/passwd", "redirection"],
    ["ls > out.txt", "redirection"],
    ["ls >> out.txt", "redirection"],
    ["ls 2>&1", "redirection"],
    ["(ls)", "subshell"],
    ["echo `id`", "backtick"],
    ["echo '`id`'", "backtick"],
    ["echo $(id)", "`$(`"],
    ['echo "$(id)"', "`$(`"],
    ["echo ${HOME}", "`${`"],
    ["echo $HOME", "variable $HOME"],
    ["ls\nid", "line break"],
    ["ls\r\nid", "line break"],
    ["ls *.ts", "wildcard"],
    ["ls # comment", "comment"],
    ["ls\u0000id", "NUL"],
    ["", "empty"],
  ])("refuses %j (%s)", (command, reason) => {
    const failure = refusal(() => parseCommandLine(command));
    expect(failure.code).toBe("E_COMMAND_NOT_ALLOWED");
    expect(failure.message).toContain(reason);
    expect(failure.message).toContain("without a shell");
  });

  it("refuses substitutions in literal arguments too, and a program with spaces", () => {
    expect(refusal(() => parseCommandLine("echo", ["$(id)"])).message).toContain("`$(`");
    expect(refusal(() => parseCommandLine("echo", ["a\nb"])).message).toContain("line break");
    expect(refusal(() => parseCommandLine("ls -la", ["x"])).message).toContain("program name alone");
  });
});

describe("the default allowlist", () => {
  const check = (command: string) => assertAllowed(parseCommandLine(command), DEFAULT_COMMAND_RULES, command);

  it("allows read-only commands", () => {
    for (const command of [
      "ls -la",
      "cat a.txt",
      "head -n 5 a.txt",
      "tail -n 2 a",
      "wc -l a",
      "grep -rn TODO .",
      "git status --short",
      "git log --oneline -5",
      "git diff HEAD~1",
      "find . -name '*.md'",
      "pwd",
    ]) {
      expect(check(command).command).toBe(command.split(" ")[0]);
    }
  });

  it.each([
    ["rm -rf .", "`rm` is not on the allowlist"],
    ["bash -c ls", "`bash` is not on the allowlist"],
    ["/bin/ls", "named, not given as paths"],
    ["./ls", "named, not given as paths"],
    ["git push origin main", "may only run"],
    ["git -c core.pager=id log", "may only run"],
    ["git diff --output=x", "`--output`"],
    ["git diff --ext-diff", "`--ext-diff`"],
    ["git diff --no-index a b", "`--no-index`"],
    ["find . -exec id {} +", "`-exec`"],
    ["find . -delete", "`-delete`"],
    ["grep -R x .", "`-R`"],
    ["grep -nR x .", "`-R`"],
    ["ls -laL", "`-L`"],
    ["tail -f log", "`-f`"],
    ["wc --files0-from=list", "`--files0-from`"],
  ])("refuses %j", (command, reason) => {
    const failure = refusal(() => check(command));
    expect(failure.code).toBe("E_COMMAND_NOT_ALLOWED");
    expect(failure.message).toContain(reason);
  });

  it("checks options after `--` too, since find (for one) does not stop at it", () => {
    expect(refusal(() => check("find -- . -exec sh -c 'touch pwned' \\;")).message).toContain("`-exec`");
    expect(refusal(() => check("grep -n x -- -R")).message).toContain("`-R`");
  });

  it.each([
    ["grep -r --dereference-recursiv TOKEN .", "--dereference-recursive"],
    ["grep -r --deref TOKEN .", "--dereference-recursive"],
    ["wc --files0-fro=list", "--files0-from"],
    ["wc --f=list", "--files0-from"],
    ["tail --foll a.log", "--follow"],
    ["ls --derefer", "--dereference"],
    ["git diff --ext-dif", "--ext-diff"],
    ["git log --out=x", "--output"],
  ])("refuses the GNU abbreviation in %j", (command, option) => {
    const failure = refusal(() => check(command));
    expect(failure.code).toBe("E_COMMAND_NOT_ALLOWED");
    expect(failure.details?.option).toBe(option);
    expect(failure.message).toContain("is read as");
  });

  it("still allows options that are no prefix of a denied one", () => {
    for (const command of ["grep -r --color=never TODO .", "ls --directory src", "git log --oneline --no-color", "wc --lines a", "tail --lines=2 a"]) {
      expect(check(command).command).toBe(command.split(" ")[0]);
    }
  });
});

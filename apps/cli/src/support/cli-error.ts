/** Exit codes: 1 = the workflow or run failed, 2 = the command line was wrong, 130 = interrupted. */
export const EXIT_FAILED = 1;
export const EXIT_USAGE = 2;
export const EXIT_INTERRUPTED = 130;

/** An error meant for the user: printed as is (no stack trace), then the process exits with `exitCode`. */
export class CliError extends Error {
  constructor(
    message: string,
    readonly exitCode: number = EXIT_FAILED,
  ) {
    super(message);
    this.name = "CliError";
  }
}

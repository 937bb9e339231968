/**
 * Splits a streamed text into its lines as the chunks come in (a line may be cut anywhere between
 * two chunks). Empty lines are skipped.
 */
export class LineSplitter {
  private rest = "";

  /** The lines completed by this chunk. */
  push(chunk: string): string[] {
    const parts = (this.rest + chunk).split("\n");
    this.rest = parts.pop() ?? "";
    return parts.filter((line) => line.trim() !== "");
  }

  /** What was left after the last line break, once the stream ended. */
  end(): string[] {
    const last = this.rest;
    this.rest = "";
    return last.trim() === "" ? [] : [last];
  }
}

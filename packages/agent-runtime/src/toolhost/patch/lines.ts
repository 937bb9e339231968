/** A text as lines that remember their own line ending, so untouched lines keep theirs. */
export interface Line {
  text: string;
  eol: "\n" | "\r\n" | "";
}

export function splitLines(text: string): Line[] {
  const lines: Line[] = [];
  let start = 0;
  while (start < text.length) {
    const nl = text.indexOf("\n", start);
    if (nl === -1) {
      lines.push({ text: text.slice(start), eol: "" });
      break;
    }
    const crlf = nl > start && text[nl - 1] === "\r";
    lines.push({ text: text.slice(start, crlf ? nl - 1 : nl), eol: crlf ? "\r\n" : "\n" });
    start = nl + 1;
  }
  return lines;
}

export function joinLines(lines: Line[]): string {
  return lines.map((l) => l.text + l.eol).join("");
}

/** The line ending most lines use (LF when there are none). */
export function dominantEol(text: string): "\n" | "\r\n" {
  const crlf = text.split("\r\n").length - 1;
  const lf = text.split("\n").length - 1 - crlf;
  return crlf > lf ? "\r\n" : "\n";
}

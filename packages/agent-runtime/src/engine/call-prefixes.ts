/**
 * The id prefixes of the subworkflows one graph's nodes call (`ctx.runSubworkflow`): `<caller>/`, and a fresh one for
 * each further call of the same node (`<caller>#2/`, a retry or a node calling several), or `<caller>[<label>]/`
 * for a labelled call (core:map's items), so qualified node ids stay unique within the run. Made on a graph's
 * first call only: most graphs call none.
 */
export class CallPrefixes {
  /** Calls made so far, by caller node index. */
  private readonly calls = new Map<number, number>();
  /** Prefixes of labelled calls made so far; made only when a node labels its calls. */
  private labelledPrefixes: Set<string> | undefined;

  next(index: number, callerId: string, label: string | undefined): string {
    const calls = (this.calls.get(index) ?? 0) + 1;
    this.calls.set(index, calls);
    if (label === undefined) return `${callerId}${calls > 1 ? `#${calls}` : ""}/`;
    return this.labelled(`${callerId}[${label}]`, calls);
  }

  /** `<caller>[<label>]/`, or (the same label again: a retry) with the call count. */
  private labelled(base: string, calls: number): string {
    const used = (this.labelledPrefixes ??= new Set());
    const prefix = used.has(`${base}/`) ? `${base}#${calls}/` : `${base}/`;
    used.add(prefix);
    return prefix;
  }
}

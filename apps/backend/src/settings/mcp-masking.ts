import { isStdio, type McpServerConfig } from "../mcp/mcp-config.ts";
import type { McpServerStatus } from "../mcp/mcp-connection.ts";

/** What stands in for a value an editor may not read. */
export const MASK = "••••";

/** A flag whose value is a secret: `--api-key`, `--token`, `-password`, `--client-secret`, `--auth`… */
const SECRET_FLAG = /^-{1,2}[\w.-]*(key|token|secret|passw(or)?d|pwd|auth|credential|cookie|session)[\w.-]*$/i;
const REFERENCE_ONLY = /^\$\{env:[A-Za-z_][A-Za-z0-9_]*\}$/;

/**
 * An arg list with the values of secret-looking flags masked (`--api-key=X`, `--api-key X`) and each clear
 * value it hid. `${env:NAME}` references are not secrets (their values are in env) and stay readable.
 */
function maskArgs(args: string[]): { args: string[]; hidden: string[] } {
  const hidden: string[] = [];
  const masked = args.map((arg, i) => {
    const eq = arg.indexOf("=");
    if (eq > 0 && SECRET_FLAG.test(arg.slice(0, eq))) {
      const value = arg.slice(eq + 1);
      if (REFERENCE_ONLY.test(value) || value === "") return arg;
      hidden.push(value);
      return `${arg.slice(0, eq)}=${MASK}`;
    }
    const previous = args[i - 1];
    if (previous !== undefined && !previous.includes("=") && SECRET_FLAG.test(previous) && !arg.startsWith("-") && !REFERENCE_ONLY.test(arg)) {
      hidden.push(arg);
      return MASK;
    }
    return arg;
  });
  return { args: masked, hidden };
}

/** A URL with its password and every query value masked (an API key is often `?key=…`), and the clear values it hid. */
function maskUrl(text: string): { url: string; hidden: string[] } {
  let url: URL;
  try {
    url = new URL(text);
  } catch {
    return { url: text, hidden: [] };
  }
  const hidden: string[] = [];
  if (url.password) {
    hidden.push(url.password, decodeURIComponent(url.password));
    url.password = MASK;
  }
  for (const [key, value] of [...url.searchParams]) {
    if (value === "" || REFERENCE_ONLY.test(value)) continue;
    hidden.push(value, encodeURIComponent(value));
    url.searchParams.set(key, MASK);
  }
  // The mask is shown as typed, not percent-encoded; references keep their braces.
  return { url: url.toString().replaceAll(encodeURIComponent(MASK), MASK).replaceAll("%7B", "{").replaceAll("%7D", "}"), hidden };
}

function hideIn(text: string | undefined, hidden: string[]): string | undefined {
  if (text === undefined) return undefined;
  // Longest first, so a value containing another is hidden whole.
  return [...hidden].sort((a, b) => b.length - a.length).reduce((out, value) => (value.length >= 3 ? out.replaceAll(value, MASK) : out), text);
}

/**
 * The MCP settings as an editor or viewer sees them: which servers exist, how they start and their status,
 * but not a key an owner typed in clear into args or url (owners mark secrets with `${env:NAME}`, whose
 * value is never shown to anyone). The statuses' texts, which can echo a command line or URL, are masked
 * the same way.
 */
export function maskedForEditors<V extends { mcpServers: Record<string, McpServerConfig>; status: Record<string, McpServerStatus> }>(view: V): V {
  const hiddenBy: Record<string, string[]> = {};
  const mcpServers = Object.fromEntries(
    Object.entries(view.mcpServers).map(([name, config]): [string, McpServerConfig] => {
      if (isStdio(config)) {
        const { args, hidden } = maskArgs(config.args);
        hiddenBy[name] = hidden;
        return [name, { ...config, args }];
      }
      const { url, hidden } = maskUrl(config.url);
      hiddenBy[name] = hidden;
      return [name, { ...config, url }];
    }),
  );
  const status = Object.fromEntries(
    Object.entries(view.status).map(([name, s]): [string, McpServerStatus] => {
      const hidden = hiddenBy[name] ?? [];
      const error = hideIn(s.error, hidden);
      const lastCrash = hideIn(s.lastCrash, hidden);
      return [name, { ...s, ...(error !== undefined ? { error } : {}), ...(lastCrash !== undefined ? { lastCrash } : {}) }];
    }),
  );
  return { ...view, mcpServers, status };
}

/** The port asked for is taken, most often by a Weft already running there: the start stops with this message. */
export class PortInUseError extends Error {
  readonly code = "PORT_IN_USE";
  constructor(host: string, port: number) {
    super(
      `Port ${port} on ${host} is already in use. Is Weft already running there (http://${host.includes(":") ? `[${host}]` : host}:${port})? Stop it first, or start this one on another port: PORT=<port>.`,
    );
    this.name = "PortInUseError";
  }
}

/** Whether Bun refused to listen because the address is taken. */
export function isAddressInUse(error: unknown): boolean {
  return typeof error === "object" && error !== null && "code" in error && error.code === "EADDRINUSE";
}

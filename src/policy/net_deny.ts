/**
 * `--deny-net` entries matched as Deno matches a net descriptor, for connections moat makes itself
 * (an HTTP MCP server): an entry without a port denies the host on every port.
 */

/** True when `--deny-net` entries `denyNet` cover `hostname` on `port`. */
export function netDenied(denyNet: readonly string[], hostname: string, port: number): boolean {
  const host = bare(hostname.toLowerCase());
  return denyNet.some((entry) => {
    const parsed = entryOf(entry.toLowerCase());
    return parsed.host === host && (parsed.port === undefined || parsed.port === port);
  });
}

/** Why `entry` is not a `--deny-net` entry (HOST, HOST:PORT, an IP address), or undefined. */
export function hostEntryProblem(entry: string): string | undefined {
  if (entry.includes("://") || /[/\s@?#]/.test(entry)) {
    return "it is not a host name: write HOST or HOST:PORT (no scheme or path)";
  }
  const { port } = entryOf(entry);
  if (port !== undefined && !(port >= 1 && port <= 65535)) return "its port is not 1-65535";
  return undefined;
}

/** The host and port of a `URL`'s `host` (default ports filled in), as `netDenied` takes them. */
export function urlHostPort(url: URL): { hostname: string; port: number } {
  const port = url.port !== "" ? Number(url.port) : url.protocol === "https:" ? 443 : 80;
  return { hostname: url.hostname, port };
}

/** The host and port (when given) of a net entry: `host`, `host:80`, `[::1]:80`, `::1`. */
export function entryOf(entry: string): { host: string; port?: number } {
  // "[::1]:80", "[::1]", "::1" (an IPv6 address without a port), "host:80", "host".
  const bracketed = /^\[([^\]]+)\](?::(\d+))?$/.exec(entry);
  if (bracketed) {
    return bracketed[2] === undefined
      ? { host: bracketed[1] as string }
      : { host: bracketed[1] as string, port: Number(bracketed[2]) };
  }
  const withPort = /^([^:]+):(\d+)$/.exec(entry);
  if (withPort) return { host: withPort[1] as string, port: Number(withPort[2]) };
  return { host: entry };
}

function bare(host: string): string {
  return host.startsWith("[") && host.endsWith("]") ? host.slice(1, -1) : host;
}

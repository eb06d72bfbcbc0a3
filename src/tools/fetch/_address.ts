/**
 * Which addresses a fetch may connect to: a granted name that resolves to a loopback, link-local
 * (cloud metadata, 169.254.169.254) or private address reaches it only when the grants name that
 * address, or that very name, explicitly (not a bare --allow-net).
 */
import ipaddr from "ipaddr.js";
import { entryOf } from "../../policy/mod.ts";

/** The kind of an address fetch treats with care, or undefined for a public one. */
export type LocalKind = "loopback" | "link-local" | "private";

/** Ranges of ipaddr.js that are not the public internet, by the kind we report. */
const LOCAL_RANGES: Record<string, LocalKind> = {
  loopback: "loopback",
  linkLocal: "link-local",
  private: "private",
  uniqueLocal: "private",
  carrierGradeNat: "private",
  unspecified: "loopback",
  reserved: "private",
  broadcast: "private",
};

/** The local kind of `address` (an IPv4-mapped IPv6 address as its IPv4), or undefined. */
export function localKind(address: string): LocalKind | undefined {
  if (!ipaddr.isValid(address)) return "private";
  let parsed = ipaddr.parse(address);
  if (parsed.kind() === "ipv6" && (parsed as ipaddr.IPv6).isIPv4MappedAddress()) {
    parsed = (parsed as ipaddr.IPv6).toIPv4Address();
  }
  return LOCAL_RANGES[parsed.range()];
}

/**
 * True when `--allow-net` entries `net` name `host` (a name or an address) exactly, on any port
 * or on `port`: the user meant that host. A bare --allow-net (`true`) names none.
 */
export function explicitlyGranted(
  net: true | readonly string[],
  host: string,
  port: number,
): boolean {
  if (net === true) return false;
  const wanted = normalHost(host);
  return net.some((entry) => {
    const parsed = entryOf(entry.toLowerCase());
    return normalHost(parsed.host) === wanted &&
      (parsed.port === undefined || parsed.port === port);
  });
}

/** A host as compared: lower case, IPv6 without brackets and in its canonical form. */
function normalHost(host: string): string {
  const bare = host.toLowerCase().replace(/^\[(.*)\]$/, "$1");
  return ipaddr.isValid(bare) ? ipaddr.parse(bare).toNormalizedString() : bare;
}

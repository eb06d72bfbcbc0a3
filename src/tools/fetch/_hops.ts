/**
 * The requests of one fetch: each hop's host asked of Deno's permission engine (the first one was
 * the policy's, before the call), its name resolved here and every address checked, the
 * connection made to the checked address, and redirects followed by hand up to a limit.
 */
import type { FetchedResponse, FetchNet, FetchPermissions, NetVerdict } from "./net.ts";
import { urlHostPort } from "../../policy/mod.ts";

/** The response of the last hop, or why there is none (said to the model). */
export type HopsResult =
  | { ok: true; url: URL; response: FetchedResponse }
  | { ok: false; message: string };

const REDIRECTS = new Set([301, 302, 303, 307, 308]);

/** "host:port" as Deno's net permission names it (default ports filled in, IPv6 in brackets). */
export function netTarget(url: URL): string {
  return `${url.hostname}:${urlHostPort(url).port}`;
}

/** Sends `start` and follows its redirects (at most `maxRedirects`) within the grants. */
export async function followHops(
  start: URL,
  deps: { net: FetchNet; permissions: FetchPermissions },
  options: { maxRedirects: number; signal: AbortSignal; toolCallId: string },
): Promise<HopsResult> {
  const { net, permissions } = deps;
  let url = start;
  for (let hop = 0;; hop++) {
    const target = netTarget(url);
    if (hop > 0) {
      const verdict = await permissions.query(target);
      const refusal = hopRefusal(target, verdict, permissions);
      try {
        permissions.report?.(
          { toolCallId: options.toolCallId },
          { target, verdict, ...(refusal === undefined ? {} : { reason: refusal }) },
        );
      } catch { /* a sink must not change the decision */ }
      if (refusal !== undefined) return { ok: false, message: `Redirect refused: ${refusal}` };
    }
    const address = await checkedAddress(url, deps);
    if (!address.ok) return address;
    const response = await net.request(url, { address: address.address, signal: options.signal });
    const location = response.headers.get("location");
    if (!REDIRECTS.has(response.status) || location === null) return { ok: true, url, response };
    response.close();
    if (hop >= options.maxRedirects) {
      return {
        ok: false,
        message:
          `Too many redirects: "${start.href}" redirected more than ${options.maxRedirects} ` +
          `times (last to "${location}"); fetch the final address directly`,
      };
    }
    const next = URL.canParse(location, url) ? new URL(location, url) : undefined;
    if (next === undefined || (next.protocol !== "http:" && next.protocol !== "https:")) {
      return {
        ok: false,
        message: `Redirect refused: "${url.href}" redirects to "${location}", not an http(s) URL`,
      };
    }
    url = next;
  }
}

/** Why a redirect to `target` is refused (the reason a denial event carries), or undefined. */
function hopRefusal(
  target: string,
  verdict: NetVerdict,
  permissions: FetchPermissions,
): string | undefined {
  if (verdict === "granted") return undefined;
  if (verdict === "denied") return `net access to "${target}" is denied by --deny-net`;
  return `net access to "${target}" is not granted (add ${permissions.flag(target)})`;
}

/**
 * The address to connect to for `url`: the first one its name resolves to that is public, or
 * local (loopback, link-local, private) and granted explicitly — the address itself, or for
 * loopback and private ones the very name. Link-local (cloud metadata) needs the address.
 */
async function checkedAddress(
  url: URL,
  deps: { net: FetchNet; permissions: FetchPermissions },
): Promise<{ ok: true; address: string } | { ok: false; message: string }> {
  const host = url.hostname.replace(/^\[(.*)\]$/, "$1");
  const { port } = urlHostPort(url);
  let addresses: string[];
  try {
    addresses = await deps.net.resolve(host);
  } catch (e) {
    return {
      ok: false,
      message: `Cannot resolve "${host}": ${e instanceof Error ? e.message : String(e)}`,
    };
  }
  const net = deps.permissions.net();
  // Loaded at the first fetch (with ipaddr.js): a run that fetches nothing does not need it.
  const { explicitlyGranted, localKind } = await import("./_address.ts");
  const label = (address: string) => `${address.includes(":") ? `[${address}]` : address}:${port}`;
  let refused: { address: string; kind: string } | undefined;
  for (const address of addresses) {
    const kind = localKind(address);
    const allowed = kind === undefined || explicitlyGranted(net, address, port) ||
      (kind !== "link-local" && explicitlyGranted(net, host, port));
    if (!allowed) {
      refused ??= { address, kind };
      continue;
    }
    // --deny-net holds for the address a name leads to, as Deno's own checks do.
    if (address !== host && await deps.permissions.query(label(address)) === "denied") {
      return {
        ok: false,
        message: `Refused "${url.href}": "${host}" resolves to "${address}", which --deny-net ` +
          "denies",
      };
    }
    return { ok: true, address };
  }
  if (refused === undefined) return { ok: false, message: `Cannot resolve "${host}": no address` };
  const flag = deps.permissions.flag(label(refused.address));
  return {
    ok: false,
    message: `Refused "${url.href}": "${host}" resolves to the ${refused.kind} address ` +
      `"${refused.address}", which fetch reaches only when --allow-net names it explicitly ` +
      `(add ${flag} if that is meant)`,
  };
}

/**
 * Deno's network operations of the fetch tool, for moat's main process (which has the network):
 * names resolved with the system resolver (/etc/hosts included), and each request sent over a
 * connection to the address fetch checked — an HTTP client whose only transport is a TCP
 * connection to that address, so the URL's name is never looked up again (no DNS rebinding
 * between the check and the connection) while Host, SNI and the certificate check keep the name.
 */
import { lookup } from "node:dns/promises";
import { isIP } from "node:net";
import type { FetchedResponse, FetchNet } from "../tools/fetch/mod.ts";
import { urlHostPort } from "../policy/mod.ts";

/** The fetch tool's network through Deno. */
export function createDenoFetchNet(): FetchNet {
  return {
    async resolve(hostname) {
      if (isIP(hostname) !== 0) return [hostname];
      const found = await lookup(hostname, { all: true, verbatim: true });
      return found.map((entry) => entry.address);
    },
    async request(url, { address, signal }): Promise<FetchedResponse> {
      const { port } = urlHostPort(url);
      const client = Deno.createHttpClient({
        proxy: { transport: "tcp", hostname: address, port },
      });
      let closed = false;
      const close = () => {
        if (closed) return;
        closed = true;
        client.close();
      };
      try {
        const response = await fetch(url, {
          client,
          redirect: "manual",
          signal,
          headers: { "accept": "text/html, application/json;q=0.9, text/*;q=0.8, */*;q=0.1" },
        });
        return {
          status: response.status,
          headers: response.headers,
          body: response.body,
          close() {
            void response.body?.cancel().catch(() => {});
            close();
          },
        };
      } catch (e) {
        close();
        throw e;
      }
    },
  };
}

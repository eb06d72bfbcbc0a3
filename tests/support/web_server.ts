/** A loopback HTTP server answering every request with one body: a host for network tests. */

/** Serves `body` on 127.0.0.1 at a free port until disposed. */
export function webServer(body: string): { port: number } & AsyncDisposable {
  const server = Deno.serve(
    { hostname: "127.0.0.1", port: 0, onListen() {} },
    () => new Response(body),
  );
  return { port: server.addr.port, [Symbol.asyncDispose]: () => server.shutdown() };
}

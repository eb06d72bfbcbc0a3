import assert from "node:assert/strict";
import { LOOPBACK_NO_PROXY, proxyEnvironment } from "../../../src/sandbox/net/forward.ts";
import { isLoopbackEntry } from "../../../src/sandbox/_bash_net.ts";

Deno.test("proxyEnvironment() sends loopback past the proxy only when asked", () => {
  const proxied = proxyEnvironment(4100);
  assert.equal(proxied.HTTP_PROXY, "http://127.0.0.1:4100");
  assert.equal(proxied.ALL_PROXY, "socks5h://127.0.0.1:4100");
  assert.equal(proxied.NO_PROXY, "");
  const direct = proxyEnvironment(4100, { loopbackDirect: true });
  assert.equal(direct.HTTPS_PROXY, "http://127.0.0.1:4100");
  assert.equal(direct.NO_PROXY, LOOPBACK_NO_PROXY);
  assert.equal(direct.no_proxy, "localhost,127.0.0.1,::1");
});

Deno.test("isLoopbackEntry() knows the loopback hosts of --allow-net entries, with or without a port", () => {
  for (const entry of ["localhost", "localhost:5432", "LOCALHOST.", "app.localhost:3000"]) {
    assert.ok(isLoopbackEntry(entry), entry);
  }
  for (const entry of ["127.0.0.1", "127.0.0.1:8080", "127.1.2.3", "[::1]:80", "::1", "0.0.0.0"]) {
    assert.ok(isLoopbackEntry(entry), entry);
  }
  for (
    const entry of ["example.com", "example.com:443", "10.0.0.1", "[2001:db8::1]:80", "127x.com"]
  ) {
    assert.ok(!isLoopbackEntry(entry), entry);
  }
});

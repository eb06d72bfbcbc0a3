import assert from "node:assert/strict";
import { netDenied, urlHostPort } from "../../src/policy/net_deny.ts";

Deno.test("netDenied() matches --deny-net entries as Deno does: a host on every port, or one port", () => {
  const deny = ["example.com", "10.0.0.1:8080", "[::1]:80", "Mixed.Case"];
  assert.equal(netDenied(deny, "example.com", 443), true);
  assert.equal(netDenied(deny, "example.com", 80), true);
  assert.equal(netDenied(deny, "api.example.com", 443), false);
  assert.equal(netDenied(deny, "10.0.0.1", 8080), true);
  assert.equal(netDenied(deny, "10.0.0.1", 80), false);
  assert.equal(netDenied(deny, "[::1]", 80), true);
  assert.equal(netDenied(deny, "::1", 81), false);
  assert.equal(netDenied(deny, "mixed.case", 1), true);
  assert.deepEqual(urlHostPort(new URL("https://example.com/mcp")), {
    hostname: "example.com",
    port: 443,
  });
  assert.deepEqual(urlHostPort(new URL("http://h:8000/")), { hostname: "h", port: 8000 });
});

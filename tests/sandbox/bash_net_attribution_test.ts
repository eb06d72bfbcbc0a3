/**
 * Whose refusal it was: without a net grant bash's connections still go through moat's proxy, so
 * each attempt is refused as a counted denial naming the flag (not "Could not resolve host"); a
 * granted host that does not answer is said to be granted, not refused. Loopback and unresolvable
 * names only: the proxy refuses those before any lookup.
 */
import assert from "node:assert/strict";
import type { PermissionDecision } from "../../src/policy/check.ts";
import { defaultGrants, parseGrantFlags } from "../support/grants.ts";
import { BWRAP, callTool, createLayout, openSandbox, textOf } from "./_helpers.ts";

function netTest(name: string, fn: () => Promise<void>) {
  Deno.test({ name: `[bwrap] bash net: ${name}`, ignore: !BWRAP, fn });
}

/** A loopback port with nothing listening on it. */
function closedPort(): number {
  const listener = Deno.listen({ hostname: "127.0.0.1", port: 0 });
  const port = (listener.addr as Deno.NetAddr).port;
  listener.close();
  return port;
}

netTest("without a net grant a connection is refused as a denial naming the flag", async () => {
  const layout = await createLayout();
  await using _ = layout.root;
  const decisions: PermissionDecision[] = [];
  const sb = await openSandbox(layout, "bwrap", defaultGrants(layout.ws), {
    onDecision: (d) => decisions.push(d),
  });
  try {
    const out = textOf(
      await callTool(sb, "bash", { command: "curl -sS https://example.invalid/; echo rc=$?" }),
    );
    assert.doesNotMatch(out, /Could not resolve host/, out);
    assert.ok(
      out.includes(
        '[moat refused network access to "example.invalid:443": not granted; add ' +
          "--allow-net=example.invalid:443 to allow it]",
      ),
      out,
    );
    assert.deepEqual(
      decisions.filter((d) => d.access === "net").map((d) => [d.target, d.outcome, d.during]),
      [["example.invalid:443", "denied", true]],
    );
  } finally {
    await sb.close();
  }
});

netTest("a granted host that does not answer is granted, not refused", async () => {
  const layout = await createLayout();
  await using _ = layout.root;
  const port = closedPort();
  const parsed = parseGrantFlags({ "allow-net": `127.0.0.1:${port}` }, { cwd: layout.ws });
  if (!parsed.ok) throw parsed.error;
  const decisions: PermissionDecision[] = [];
  const sb = await openSandbox(layout, "bwrap", parsed.grants, {
    onDecision: (d) => decisions.push(d),
  });
  try {
    const out = textOf(
      await callTool(sb, "bash", {
        command: `curl -sS -w 'code=%{http_code}' http://127.0.0.1:${port}/; echo; ` +
          `curl -sS -p http://127.0.0.1:${port}/ 2>&1; true`,
      }),
    );
    assert.match(out, /code=502/);
    assert.match(out, /is granted, but the host did not answer: /, "the proxy's body says so");
    assert.match(
      out,
      new RegExp(
        `\\[moat: network access to "127\\.0\\.0\\.1:${port}" \\(.*\\) is granted, but the ` +
          "host did not answer\\]",
      ),
    );
    assert.doesNotMatch(out, /moat refused/);
    assert.equal(decisions.filter((d) => d.outcome === "denied").length, 0);
  } finally {
    await sb.close();
  }
});

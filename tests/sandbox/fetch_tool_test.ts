import assert from "node:assert/strict";
import type { LocationState, PermissionDecision } from "../../src/policy/mod.ts";
import { runFetchTool } from "../../src/sandbox/_fetch_tool.ts";
import type { FetchNet } from "../../src/tools/mod.ts";
import { grantsOf } from "../support/grants.ts";
import { createManualClock } from "../support/manual_clock.ts";
import { call } from "../tools/_helpers.ts";

/** Redirects every request on 127.0.0.1:8000 to `to`; anything else answers "arrived". */
function redirectingNet(to: string): FetchNet {
  return {
    resolve: () => Promise.resolve(["127.0.0.1"]),
    request: (url) => {
      const hop = url.port === "8000";
      return Promise.resolve({
        status: hop ? 302 : 200,
        headers: new Headers(hop ? { location: to } : { "content-type": "text/plain" }),
        body: hop ? null : new Response("arrived").body,
        close() {},
      });
    },
  };
}

/** The fetch tool of a run whose engine answers `state` for every host but 127.0.0.1:8000. */
function runTool(state: LocationState, decisions: PermissionDecision[], net = ["127.0.0.1:8000"]) {
  return runFetchTool({
    cwd: "/work",
    engine: {
      query: ([location]) =>
        Promise.resolve({
          ok: true,
          states: [
            location?.access === "net" && location.host === "127.0.0.1:8000" ? "granted" : state,
          ],
        }),
    },
    grants: () => grantsOf("/work", net.length === 0 ? {} : { "allow-net": net.join(",") }),
    onDecision: (d) => decisions.push(d),
    net: redirectingNet("http://other.test:9000/"),
    clock: createManualClock(),
    spillDir: "/spill",
    fs: { writeFile: (path) => Promise.resolve({ path, created: true }) },
  });
}

Deno.test("a run's fetch reports a redirect outside the grants as a denial naming the flag", async () => {
  const decisions: PermissionDecision[] = [];
  const out = await call(runTool("prompt", decisions), { url: "http://127.0.0.1:8000/" });
  assert.equal(out.isError, true);
  const flag = "--allow-net=127.0.0.1:8000,other.test:9000";
  assert.deepEqual(decisions, [{
    toolCallId: "call-1",
    toolName: "fetch",
    access: "net",
    target: "other.test:9000",
    during: true,
    outcome: "denied",
    by: "grants",
    reason: `net access to "other.test:9000" is not granted (add ${flag})`,
    hint: flag,
  }]);
});

Deno.test("a run's fetch reports a redirect to a --deny-net host as the list's denial", async () => {
  const decisions: PermissionDecision[] = [];
  const out = await call(runTool("denied", decisions), { url: "http://127.0.0.1:8000/" });
  assert.match(out.output, /"other\.test:9000" is denied by --deny-net/);
  assert.equal(decisions[0]?.by, "deny_list");
  assert.equal(decisions[0]?.hint, undefined);
});

Deno.test("without any --allow-net the fetch tool says a grant is needed", () => {
  assert.match(runTool("prompt", [], []).description, /runs moat with --allow-net=HOST/);
  assert.doesNotMatch(runTool("prompt", []).description, /No host is granted/);
});

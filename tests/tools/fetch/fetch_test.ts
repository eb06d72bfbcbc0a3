import assert from "node:assert/strict";
import { createFetchTool, type FetchNet, type NetVerdict } from "../../../src/tools/fetch/mod.ts";
import { createDenoFetchNet } from "../../../src/sys/fetch_net.ts";
import { createManualClock } from "../../support/manual_clock.ts";
import { call } from "../_helpers.ts";

type Handler = (request: Request) => Response | Promise<Response>;

/** A server on 127.0.0.1 at a free port, shut down by `await using`. */
function serve(handler: Handler): { port: number } & AsyncDisposable {
  const server = Deno.serve({ hostname: "127.0.0.1", port: 0, onListen() {} }, handler);
  return { port: server.addr.port, [Symbol.asyncDispose]: () => server.shutdown() };
}

/** Deno's fetch network with names resolved from `names` (others as the system resolves them). */
function netWith(names: Record<string, string[]> = {}): FetchNet {
  const deno = createDenoFetchNet();
  return {
    resolve: (host) =>
      Promise.resolve(names[host] ?? []).then((found) =>
        found.length > 0 ? found : deno.resolve(host)
      ),
    request: deno.request,
  };
}

/** A fetch tool under `--allow-net=<net>`, Deno's verdicts being "granted" for those entries. */
function tool(
  net: string[],
  options: {
    names?: Record<string, string[]>;
    maxBodyBytes?: number;
    timeoutMs?: number;
    clock?: ReturnType<typeof createManualClock>;
    reports?: { target: string; verdict: string; reason?: string }[];
    saved?: Map<string, string>;
  } = {},
) {
  const granted = (target: string): NetVerdict => {
    const host = target.replace(/:\d+$/, "");
    return net.some((e) => e === target || e === host) ? "granted" : "prompt";
  };
  return createFetchTool({
    net: netWith(options.names),
    permissions: {
      query: (target) => Promise.resolve(granted(target)),
      net: () => net,
      flag: (target) => `--allow-net=${[...net, target].join(",")}`,
      report: (_who, decision) => options.reports?.push(decision),
    },
    clock: options.clock ?? createManualClock(),
    ...(options.saved === undefined
      ? {}
      : { spill: { dir: "/spill", fs: savingFs(options.saved) } }),
    ...(options.maxBodyBytes === undefined ? {} : { maxBodyBytes: options.maxBodyBytes }),
    ...(options.timeoutMs === undefined ? {} : { timeoutMs: options.timeoutMs }),
  });
}

/** Writes that land in `saved`, by path. */
function savingFs(saved: Map<string, string>) {
  return {
    writeFile: (path: string, data: Uint8Array) => {
      saved.set(path, new TextDecoder().decode(data));
      return Promise.resolve({ path, created: true });
    },
  };
}

const PAGE = `<!doctype html><html><head><title>Release notes</title>
<style>body { color: red }</style><script>window.secret = "tracking-code";</script></head>
<body><nav><a href="/">Home</a></nav><article><h2>Version 2</h2>
<p>This release makes <strong>paging</strong> faster and fixes the crash on start that some
users saw after upgrading from the previous version of the program.</p>
<script>console.log("inline-script")</script><p>See <a href="/docs">the docs</a>.</p>
<pre><code>deno task start</code></pre></article></body></html>`;

Deno.test("fetch() turns an HTML page into markdown without its scripts and styles", async () => {
  await using server = serve(() =>
    new Response(PAGE, { headers: { "content-type": "text/html; charset=utf-8" } })
  );
  const out = await call(tool(["127.0.0.1"]), { url: `http://127.0.0.1:${server.port}/notes` });
  assert.equal(out.isError, undefined, out.output);
  assert.match(out.output, /^# Release notes/);
  assert.match(out.output, /## Version 2/);
  assert.match(out.output, /\*\*paging\*\*/);
  assert.match(out.output, /\[the docs\]\(\/docs\)/);
  assert.doesNotMatch(out.output, /tracking-code|inline-script|color: red/);
});

Deno.test("fetch() passes JSON through as it is", async () => {
  await using server = serve(() => Response.json({ items: [1, 2], next: null }));
  const out = await call(tool(["127.0.0.1"]), { url: `http://127.0.0.1:${server.port}/api` });
  assert.equal(out.output, `{"items":[1,2],"next":null}`);
});

Deno.test("fetch() refuses a redirect to a host --allow-net does not grant, naming the flag", async () => {
  const reports: { target: string; verdict: string; reason?: string }[] = [];
  await using server = serve(() =>
    new Response(null, { status: 302, headers: { location: "http://elsewhere.test:8080/x" } })
  );
  const out = await call(tool(["127.0.0.1"], { reports }), {
    url: `http://127.0.0.1:${server.port}/`,
  });
  assert.equal(out.isError, true);
  assert.match(
    out.output,
    /Redirect refused: net access to "elsewhere\.test:8080" is not granted \(add --allow-net=127\.0\.0\.1,elsewhere\.test:8080\)/,
  );
  assert.deepEqual(reports.map((r) => [r.target, r.verdict]), [["elsewhere.test:8080", "prompt"]]);
});

Deno.test("fetch() follows a redirect to a granted host and reports it granted", async () => {
  const reports: { target: string; verdict: string }[] = [];
  await using target = serve(() =>
    new Response("arrived", { headers: { "content-type": "text/plain" } })
  );
  await using server = serve(() =>
    new Response(null, { status: 301, headers: { location: `http://localhost:${target.port}/` } })
  );
  const out = await call(tool(["127.0.0.1", "localhost"], { reports }), {
    url: `http://127.0.0.1:${server.port}/`,
  });
  assert.equal(out.output, "arrived");
  assert.deepEqual(reports.map((r) => [r.target, r.verdict]), [[
    `localhost:${target.port}`,
    "granted",
  ]]);
});

Deno.test("fetch() refuses a granted name resolving to 127.0.0.1 unless it is granted explicitly", async () => {
  await using server = serve(() =>
    new Response("internal", { headers: { "content-type": "text/plain" } })
  );
  const names = { "docs.example.test": ["127.0.0.1"] };
  const url = `http://docs.example.test:${server.port}/`;
  // Granted by a bare --allow-net only: the loopback address is not what the user granted.
  const bare = createFetchTool({
    net: netWith(names),
    permissions: {
      query: () => Promise.resolve("granted"),
      net: () => true,
      flag: (t) => `--allow-net=${t}`,
    },
    clock: createManualClock(),
  });
  const refused = await call(bare, { url });
  assert.equal(refused.isError, true);
  assert.match(
    refused.output,
    /"docs\.example\.test" resolves to the loopback address "127\.0\.0\.1".*add --allow-net=127\.0\.0\.1:\d+/,
  );
  // Named explicitly: reached.
  const named = await call(tool(["docs.example.test"], { names }), { url });
  assert.equal(named.output, "internal");
});

Deno.test("fetch() reaches cloud metadata addresses only when the address itself is granted", async () => {
  const connected: string[] = [];
  const net: FetchNet = {
    resolve: () => Promise.resolve(["169.254.169.254"]),
    request: (_url, { address }) => {
      connected.push(address);
      return Promise.reject(new Error("unreachable"));
    },
  };
  const fetchWith = (granted: string[]) =>
    call(
      createFetchTool({
        net,
        permissions: {
          query: () => Promise.resolve("granted"),
          net: () => granted,
          flag: (t) => `--allow-net=${granted.join(",")},${t}`,
        },
        clock: createManualClock(),
      }),
      { url: "http://metadata.test/latest/meta-data/" },
    );
  const out = await fetchWith(["metadata.test"]);
  assert.match(out.output, /link-local address "169\.254\.169\.254"/);
  assert.deepEqual(connected, []);
  // The address itself granted: the request goes to it.
  await fetchWith(["metadata.test", "169.254.169.254"]);
  assert.deepEqual(connected, ["169.254.169.254"]);
});

Deno.test("fetch() refuses a name whose address --deny-net denies", async () => {
  const connected: string[] = [];
  const out = await call(
    createFetchTool({
      net: {
        resolve: () => Promise.resolve(["203.0.113.7"]),
        request: (_url, { address }) => {
          connected.push(address);
          return Promise.reject(new Error("unreachable"));
        },
      },
      permissions: {
        query: (target) => Promise.resolve(target === "203.0.113.7:80" ? "denied" : "granted"),
        net: () => ["api.example.test"],
        flag: (t) => t,
      },
      clock: createManualClock(),
    }),
    { url: "http://api.example.test/v1" },
  );
  assert.match(
    out.output,
    /"api\.example\.test" resolves to "203\.0\.113\.7", which --deny-net denies/,
  );
  assert.deepEqual(connected, []);
});

Deno.test("fetch() connects to the address it checked, not to a second lookup", async () => {
  const lookups: string[] = [];
  const seen: string[] = [];
  await using server = serve((r) =>
    new Response(r.headers.get("host") ?? "", { headers: { "content-type": "text/plain" } })
  );
  const deno = createDenoFetchNet();
  const net: FetchNet = {
    resolve: (host) => {
      lookups.push(host);
      return Promise.resolve(["127.0.0.1"]);
    },
    request: (url, options) => {
      seen.push(options.address);
      return deno.request(url, options);
    },
  };
  const out = await call(
    createFetchTool({
      net,
      permissions: {
        query: () => Promise.resolve("granted"),
        net: () => ["127.0.0.1", "rebind.invalid"],
        flag: (t) => t,
      },
      clock: createManualClock(),
    }),
    { url: `http://rebind.invalid:${server.port}/` },
  );
  // "rebind.invalid" has no address in DNS: the request reached 127.0.0.1 as checked, with the
  // URL's name as its Host.
  assert.equal(out.output, `rebind.invalid:${server.port}`);
  assert.deepEqual([lookups, seen], [["rebind.invalid"], ["127.0.0.1"]]);
});

Deno.test("fetch() pages a 20 MB page with a note naming the next offset and saves it whole", async () => {
  const line = "x".repeat(99) + "\n";
  const body = line.repeat(200_000); // 20 MB
  await using server = serve(() =>
    new Response(body, { headers: { "content-type": "text/plain" } })
  );
  const url = `http://127.0.0.1:${server.port}/big.txt`;
  const saved = new Map<string, string>();
  const first = await call(tool(["127.0.0.1"], { maxBodyBytes: 64 * 1024 * 1024, saved }), { url });
  assert.match(first.output, /\[Showing lines 1-512 of 200000\. Use offset=513 to continue\.\]/);
  assert.match(
    first.output,
    /\[The whole page is saved in "\/spill\/fetch-call-1\.md": page it there with read/,
  );
  assert.equal(saved.get("/spill/fetch-call-1.md"), body);
  const later = await call(tool(["127.0.0.1"], { maxBodyBytes: 64 * 1024 * 1024 }), {
    url,
    offset: 199_999,
  });
  assert.equal(later.output, `${line}${line.slice(0, -1)}`);
});

Deno.test("fetch() stops reading a body past its byte cap", async () => {
  let sent = 0;
  await using server = serve(() =>
    new Response(
      new ReadableStream({
        pull(controller) {
          // An endless body: only the cap ends the read.
          sent += 16_384;
          controller.enqueue(new TextEncoder().encode("y".repeat(16_383) + "\n"));
        },
      }),
      { headers: { "content-type": "text/plain" } },
    )
  );
  const out = await call(tool(["127.0.0.1"], { maxBodyBytes: 100_000 }), {
    url: `http://127.0.0.1:${server.port}/`,
  });
  assert.match(out.output, /\[The body was cut at 97\.7 KB: the rest was not downloaded\]/);
  assert.ok(sent < 10_000_000, `sent ${sent} bytes`);
});

Deno.test("fetch() stops a slow server at its time cap", async () => {
  const clock = createManualClock();
  const { promise: asked, resolve: onAsked } = Promise.withResolvers<void>();
  const { promise: never, resolve: release } = Promise.withResolvers<void>();
  await using server = serve(async () => {
    onAsked();
    await never;
    return new Response("late");
  });
  const running = call(tool(["127.0.0.1"], { clock, timeoutMs: 5_000 }), {
    url: `http://127.0.0.1:${server.port}/`,
  });
  await asked;
  clock.tick(5_000);
  const out = await running;
  release();
  assert.equal(out.isError, true);
  assert.match(out.output, /took longer than 5 s and was stopped/);
  assert.equal(clock.pending(), 0);
});

Deno.test("fetch() refuses a binary type with its type and size", async () => {
  await using server = serve(() =>
    new Response(new Uint8Array(2048), { headers: { "content-type": "application/octet-stream" } })
  );
  const out = await call(tool(["127.0.0.1"]), { url: `http://127.0.0.1:${server.port}/a.bin` });
  assert.equal(out.isError, true);
  assert.match(
    out.output,
    /its type "application\/octet-stream" \(2\.0 KB\) is not HTML, JSON or text/,
  );
});

Deno.test("fetch() names the host its first request needs as a net location", () => {
  const t = tool([]);
  assert.deepEqual(t.locations?.({ url: "https://docs.deno.com/api" }), [
    { access: "net", host: "docs.deno.com:443" },
  ]);
  assert.deepEqual(t.locations?.({ url: "file:///etc/passwd" }), []);
});

/**
 * bash's network in the OS sandbox: a scoped --allow-net reaches exactly the granted hosts through
 * moat's proxy (the host keeps its own network namespace, so the machine's loopback services and
 * abstract UNIX sockets stay out of reach); a bare --allow-net keeps the machine's network.
 */
import assert from "node:assert/strict";
import { Type } from "@sinclair/typebox";
import type { PermissionDecision } from "../../src/policy/check.ts";
import { defaultGrants, type Grants, parseGrantFlags } from "../support/grants.ts";
import { refusalNote } from "../../src/sandbox/_bash_net.ts";
import { createBuiltinTools } from "../../src/tools/registry.ts";
import type { AnyTool } from "../../src/agent/tool.ts";
import { BWRAP, callTool, createLayout, openSandbox, textOf } from "./_helpers.ts";
import { webServer } from "../support/web_server.ts";

function netTest(name: string, fn: () => Promise<void>) {
  Deno.test({ name: `[bwrap] bash net: ${name}`, ignore: !BWRAP, fn });
}

/** A listener on an abstract UNIX socket (`\0name`) outside the sandbox, run by python3. */
async function abstractListener(name: string): Promise<AsyncDisposable> {
  const child = new Deno.Command("/usr/bin/python3", {
    args: [
      "-c",
      "import socket, sys\n" +
      "s = socket.socket(socket.AF_UNIX)\n" +
      "s.bind('\\0' + sys.argv[1])\n" +
      "s.listen()\n" +
      "print('ready', flush=True)\n" +
      "while True:\n" +
      "    c, _ = s.accept()\n" +
      "    c.sendall(b'ABSTRACT-REACHED')\n" +
      "    c.close()\n",
      name,
    ],
    clearEnv: true,
    env: { PATH: "/usr/bin:/bin" },
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).spawn();
  // Ready once it says so; output of a failed start ends the stream.
  let said = "";
  const decoder = new TextDecoder();
  for await (const chunk of child.stdout) {
    said += decoder.decode(chunk, { stream: true });
    if (said.includes("\n")) break;
  }
  const stop = async () => {
    child.kill("SIGKILL");
    await child.status;
    await child.stderr.cancel();
  };
  if (said !== "ready\n") {
    const stderr = await new Response(child.stderr).text();
    await child.status;
    throw new Error(`the abstract socket listener did not start: ${said}${stderr}`);
  }
  return { [Symbol.asyncDispose]: stop };
}

/** A bash command that connects to the abstract socket `name` with python3 and prints what came. */
function abstractProbe(name: string): string {
  return `/usr/bin/python3 -c "import socket; s = socket.socket(socket.AF_UNIX); ` +
    `s.connect('\\0${name}'); print(s.recv(100).decode())" 2>&1; echo "rc=$?"`;
}

/** What the proxy socket named `prefix…` in `dir` answers to an absolute-URI GET of `url`. */
async function socketAnswers(dir: string, prefix: string, url: string): Promise<string> {
  const socket = [...Deno.readDirSync(dir)].find((e) => e.name.startsWith(prefix));
  assert.ok(socket, `a proxy socket in ${dir}`);
  const conn = await Deno.connect({ transport: "unix", path: `${dir}/${socket.name}` });
  try {
    await conn.write(new TextEncoder().encode(`GET ${url} HTTP/1.1\r\nHost: x\r\n\r\n`));
    await conn.closeWrite();
    return await new Response(conn.readable).text();
  } catch (e) {
    conn.close();
    throw e;
  }
}

function scopedNet(ws: string, hosts: string): Grants {
  const parsed = parseGrantFlags({ "allow-net": hosts }, { cwd: ws });
  if (!parsed.ok) throw parsed.error;
  return parsed.grants;
}

netTest("a scoped grant reaches the granted host through the proxy and nothing else", async () => {
  const layout = await createLayout();
  await using _ = layout.root;
  await using granted = webServer("GRANTED-BODY");
  await using other = webServer("OTHER-BODY");
  const name = `moat-test-abstract-${crypto.randomUUID().slice(0, 8)}`;
  await using _abstract = await abstractListener(name);
  const decisions: PermissionDecision[] = [];
  const sb = await openSandbox(layout, "bwrap", scopedNet(layout.ws, `127.0.0.1:${granted.port}`), {
    onDecision: (d) => decisions.push(d),
  });
  const bash = (command: string) => callTool(sb, "bash", { command }).then(textOf);
  const url = `http://127.0.0.1:${granted.port}/`;
  try {
    // Plain http (absolute-URI GET), https-style CONNECT (-p) and SOCKS5 (ALL_PROXY).
    assert.match(await bash(`curl -sS ${url}`), /GRANTED-BODY/);
    assert.match(await bash(`curl -sS -p ${url}`), /GRANTED-BODY/);
    assert.match(await bash(`curl -sS --proxy "$ALL_PROXY" ${url}`), /GRANTED-BODY/);
    assert.match(
      await bash("env | grep -i _proxy= | sort"),
      /ALL_PROXY=socks5h:\/\/127\.0\.0\.1:\d+\n[^]*HTTP_PROXY=http:\/\/127\.0\.0\.1:\d+\n[^]*NO_PROXY=\n/,
    );

    const refused = await bash(
      `curl -sS -w 'code=%{http_code}' http://127.0.0.1:${other.port}/; echo; ` +
        `curl -sS --proxy "$ALL_PROXY" http://127.0.0.1:${other.port}/; echo "socks=$?"`,
    );
    assert.doesNotMatch(refused, /OTHER-BODY/);
    assert.match(refused, /code=403/);
    assert.match(
      refused,
      new RegExp(`--allow-net=127\\.0\\.0\\.1:${granted.port},127\\.0\\.0\\.1:${other.port}\\)`),
    );
    assert.match(refused, /socks=97/, "curl's exit code for a refused SOCKS5 connection");
    assert.ok(
      refused.includes(
        `[moat refused network access to "127.0.0.1:${other.port}": not granted; ` +
          `add --allow-net=127.0.0.1:${granted.port},127.0.0.1:${other.port} to allow it]`,
      ),
      `the model is told which flag would allow it: ${refused}`,
    );
    const denials = decisions.filter((d) => d.outcome === "denied");
    assert.equal(denials.length, 2);
    for (const d of denials) {
      assert.match(d.toolCallId, /^t\d+$/, "the running bash call");
      assert.deepEqual({ ...d, toolCallId: "" }, {
        toolCallId: "",
        toolName: "bash",
        access: "net",
        target: `127.0.0.1:${other.port}`,
        outcome: "denied",
        by: "grants",
        during: true,
        reason: `net access to "127.0.0.1:${other.port}" is not granted (add ` +
          `--allow-net=127.0.0.1:${granted.port},127.0.0.1:${other.port})`,
        hint: `--allow-net=127.0.0.1:${granted.port},127.0.0.1:${other.port}`,
      });
    }
    assert.ok(
      decisions.some((d) =>
        d.outcome === "granted" && d.access === "net" && d.target === `127.0.0.1:${granted.port}`
      ),
      "allowed connections are recorded too",
    );

    // Around the proxy: the host's own loopback has nothing on that port, and the machine's
    // abstract sockets live in another network namespace.
    const direct = await bash(
      `curl -sS --noproxy '*' ${url}; echo "curl=$?"; ` +
        `(exec 3<>/dev/tcp/127.0.0.1/${granted.port} && echo CONNECTED) 2>&1`,
    );
    assert.doesNotMatch(direct, /GRANTED-BODY|CONNECTED/);
    assert.match(direct, /curl=7/, direct);
    const abstract = await bash(abstractProbe(name));
    assert.doesNotMatch(abstract, /ABSTRACT-REACHED/);
    assert.match(abstract, /Connection refused[^]*rc=1/);
    // The proxy's socket is in the spill directory, which MCP servers see too: a connection
    // that is not the host's forwarder's (without its token) gets nothing.
    assert.equal(await socketAnswers(layout.spill, ".moat-net-", url), "");
  } finally {
    await sb.close();
  }
});

netTest("a bare --allow-net keeps the machine's network, abstract sockets included", async () => {
  const layout = await createLayout();
  await using _ = layout.root;
  await using web = webServer("DIRECT-BODY");
  const name = `moat-test-abstract-${crypto.randomUUID().slice(0, 8)}`;
  await using _abstract = await abstractListener(name);
  const sb = await openSandbox(layout, "bwrap", { ...defaultGrants(layout.ws), net: true });
  try {
    const out = textOf(
      await callTool(sb, "bash", {
        command: `env | grep -ci _proxy=; curl -sS --noproxy '*' http://127.0.0.1:${web.port}/; ` +
          abstractProbe(name),
      }),
    );
    assert.match(out, /^0\n/, "no proxy variables");
    assert.match(out, /DIRECT-BODY/);
    assert.match(out, /ABSTRACT-REACHED/);
  } finally {
    await sb.close();
  }
});

netTest(
  "an approved host is reachable from the next bash call (the proxy follows the grants)",
  async () => {
    const layout = await createLayout();
    await using _ = layout.root;
    await using first = webServer("FIRST-BODY");
    await using later = webServer("LATER-BODY");
    // A tool that declares a net location, so that the policy asks about a host.
    const connect: AnyTool = {
      name: "connect",
      description: "declares a host",
      parameters: Type.Object({ host: Type.String() }),
      kind: "read",
      locations: (args: { host: string }) => [{ access: "net", host: args.host }],
      execute: () => Promise.resolve({ output: "unused" }),
    };
    const sb = await openSandbox(layout, "bwrap", scopedNet(layout.ws, `127.0.0.1:${first.port}`), {
      createTools: (options) => [...createBuiltinTools(options), connect],
      prompter: { ask: () => Promise.resolve("always") },
    });
    const curl = (port: number) =>
      callTool(sb, "bash", { command: `curl -sS http://127.0.0.1:${port}/` }).then(textOf);
    try {
      assert.match(await curl(first.port), /FIRST-BODY/);
      assert.match(await curl(later.port), /not granted/);
      const tool = sb.tools.find((t) => t.name === "connect")!;
      const signal = new AbortController().signal;
      const args = { host: `127.0.0.1:${later.port}` };
      const block = await sb.onToolCall({ toolCallId: "a1", name: "connect", args, tool, signal });
      assert.equal(block, undefined, "approved");
      assert.match(await curl(later.port), /LATER-BODY/);
      assert.match(await curl(first.port), /FIRST-BODY/);
    } finally {
      await sb.close();
    }
  },
);

netTest("when the proxy cannot listen, moat warns and bash runs without network", async () => {
  const layout = await createLayout();
  await using _ = layout.root;
  await using web = webServer("UNREACHABLE");
  // A UNIX socket path holds at most 107 bytes.
  const spillDir = layout.root.path(`spill-${"x".repeat(120)}`);
  await Deno.mkdir(spillDir);
  const grants = scopedNet(layout.ws, `127.0.0.1:${web.port}`);
  const sb = await openSandbox(layout, "bwrap", grants, { spillDir });
  try {
    assert.ok(
      sb.warnings.some((w) => w.startsWith("The network proxy for bash cannot start")),
      sb.warnings.join("\n"),
    );
    const out = textOf(
      await callTool(sb, "bash", {
        command: `env | grep -ci _proxy=; curl -sS http://127.0.0.1:${web.port}/; echo "curl=$?"`,
      }),
    );
    assert.match(out, /^0\n/, "no proxy variables");
    assert.doesNotMatch(out, /UNREACHABLE/);
    assert.match(out, /curl=7/);
  } finally {
    await sb.close();
  }
});

Deno.test("[worker] without the OS sandbox a scoped --allow-net changes nothing for bash", async () => {
  const layout = await createLayout();
  await using _ = layout.root;
  await using web = webServer("DIRECT-BODY");
  const parsed = parseGrantFlags(
    { "allow-net": `127.0.0.1:${web.port}`, "allow-run": "bash" },
    { cwd: layout.ws },
  );
  if (!parsed.ok) throw parsed.error;
  const sb = await openSandbox(layout, "worker", parsed.grants);
  try {
    const out = textOf(
      await callTool(sb, "bash", {
        command: `env | grep -ci _proxy=; curl -sS http://127.0.0.1:${web.port}/`,
      }),
    );
    assert.match(out, /^0\n/, "no proxy variables");
    assert.match(out, /DIRECT-BODY/);
  } finally {
    await sb.close();
  }
});

Deno.test("refusalNote() names the refused targets and the flag, at most five of them", () => {
  assert.equal(
    refusalNote(["example.com:443"]),
    '[moat refused network access to "example.com:443": not granted; add ' +
      "--allow-net=example.com:443 to allow it]",
  );
  const many = refusalNote(["a:1", "b:1", "c:1", "d:1", "e:1", "f:1", "g:1"]);
  assert.match(many, /"e:1", and 2 more: not granted; add --allow-net=a:1,b:1,c:1,d:1,e:1 /);
});

import assert from "node:assert/strict";
import { dirname, resolve } from "node:path";
import { findOnPath, missingScript, ownCode, type OwnCodeOps } from "../../src/cli/mcp_own_code.ts";

type Entry = { kind: "dir" } | { kind: "file"; text?: string; mode?: number } | {
  kind: "symlink";
  target: string;
};

/** Path look-ups over a map of entries (parents are directories; symlinks are followed). */
function fakeOps(entries: Record<string, Entry>): OwnCodeOps {
  const all = new Map<string, Entry>(Object.entries(entries));
  for (const p of Object.keys(entries)) {
    for (let d = dirname(p); d !== "/"; d = dirname(d)) {
      if (!all.has(d)) all.set(d, { kind: "dir" });
    }
  }
  all.set("/", { kind: "dir" });
  const real = (p: string, hops = 0): string | undefined => {
    if (hops > 20) return undefined;
    const parts = p.split("/").filter((x) => x !== "");
    let at = "/";
    for (let i = 0; i < parts.length; i++) {
      const next = resolve(at, parts[i] as string);
      const e = all.get(next);
      if (e === undefined) return undefined;
      if (e.kind === "symlink") {
        const target = real(resolve(at, e.target), hops + 1);
        if (target === undefined) return undefined;
        at = target;
      } else at = next;
    }
    return at;
  };
  return {
    realPath(p) {
      const r = real(p);
      return r === undefined
        ? { ok: false, reason: "not_found", message: "missing" }
        : { ok: true, path: r };
    },
    stat(p) {
      const r = real(p);
      const e = r === undefined ? undefined : all.get(r);
      if (e === undefined || e.kind === "symlink") return undefined;
      return { kind: e.kind, mode: e.kind === "file" ? e.mode ?? 0o644 : 0o755 };
    },
    lstat(p) {
      const r = real(dirname(p));
      const e = r === undefined ? undefined : all.get(resolve(r, p.split("/").pop() as string));
      if (e === undefined) return undefined;
      return e.kind === "symlink" ? { kind: "symlink", target: e.target } : { kind: e.kind };
    },
    readTextFile(p) {
      const r = real(p);
      const e = r === undefined ? undefined : all.get(r);
      return e?.kind === "file" ? e.text ?? "" : undefined;
    },
  };
}

const PATH = "/usr/local/bin:/usr/bin";
const exe = { kind: "file", mode: 0o755 } as const;

Deno.test("ownCode() gives a node_modules/.bin program the outermost node_modules of its install", () => {
  const ops = fakeOps({
    "/usr/bin/node": exe,
    "/opt/mcp/node_modules/.bin/mcp-server-everything": {
      kind: "symlink",
      target: "../@modelcontextprotocol/server-everything/dist/index.js",
    },
    "/opt/mcp/node_modules/@modelcontextprotocol/server-everything/package.json": { kind: "file" },
    "/opt/mcp/node_modules/@modelcontextprotocol/server-everything/dist/index.js": exe,
    "/opt/mcp/package.json": { kind: "file" },
  });
  const own = ownCode("/opt/mcp/node_modules/.bin/mcp-server-everything", [], {
    cwd: "/work",
    path: PATH,
    ops,
  });
  assert.deepEqual(own.paths, ["/opt/mcp/node_modules"]);
  assert.equal(own.program, "/opt/mcp/node_modules/.bin/mcp-server-everything");
});

Deno.test("ownCode() gives `node <script>` the script's package (nearest package.json), not more", () => {
  const ops = fakeOps({
    "/usr/bin/node": exe,
    "/srv/tools/fs-server/package.json": { kind: "file" },
    "/srv/tools/fs-server/dist/index.js": { kind: "file" },
    "/srv/tools/other/secret.txt": { kind: "file" },
  });
  const own = ownCode("node", [
    "--enable-source-maps",
    "/srv/tools/fs-server/dist/index.js",
    "/data",
  ], {
    cwd: "/work",
    path: PATH,
    ops,
  });
  assert.equal(own.program, "/usr/bin/node");
  assert.equal(own.script, "/srv/tools/fs-server/dist/index.js");
  assert.deepEqual(own.paths, ["/srv/tools/fs-server"]);
});

Deno.test("ownCode() never gives a directory holding HOME or a shared one: the file alone then", () => {
  const ops = fakeOps({
    "/usr/bin/node": exe,
    "/usr/bin/python3": exe,
    "/home/u/package.json": { kind: "file" },
    "/home/u/server.js": { kind: "file" },
    "/tmp/server.py": { kind: "file" },
  });
  const home = { cwd: "/work", path: PATH, home: "/home/u", ops };
  assert.deepEqual(ownCode("node", ["/home/u/server.js"], home).paths, ["/home/u/server.js"]);
  assert.deepEqual(ownCode("python3", ["/tmp/server.py"], home).paths, ["/tmp/server.py"]);
});

Deno.test("ownCode() gives a Python script its directory, and a venv's python the venv and its base", () => {
  const ops = fakeOps({
    "/usr/bin/python3.12": exe,
    "/opt/py/3.12/bin/python3.12": exe,
    "/srv/venv/bin/python": { kind: "symlink", target: "/opt/py/3.12/bin/python3.12" },
    "/srv/venv/pyvenv.cfg": { kind: "file", text: "home = /opt/py/3.12/bin\nversion = 3.12\n" },
    "/srv/mcp/server.py": { kind: "file" },
    "/srv/mcp/helpers.py": { kind: "file" },
  });
  const own = ownCode("/srv/venv/bin/python", ["-u", "/srv/mcp/server.py"], {
    cwd: "/work",
    path: PATH,
    ops,
  });
  assert.deepEqual(own.paths, ["/srv/venv", "/opt/py/3.12", "/srv/mcp"]);
  // `uv run <script>` too.
  const uv = fakeOps({ "/usr/bin/uv": exe, "/srv/mcp/server.py": { kind: "file" } });
  assert.deepEqual(
    ownCode("uv", ["run", "--quiet", "/srv/mcp/server.py"], { cwd: "/", path: PATH, ops: uv })
      .paths,
    ["/srv/mcp"],
  );
});

Deno.test("ownCode() adds nothing for a program on PATH outside a package; missing ones are undefined", () => {
  const ops = fakeOps({ "/usr/bin/mcp-go": exe, "/usr/bin/node": exe });
  assert.deepEqual(ownCode("mcp-go", ["--stdio"], { cwd: "/w", path: PATH, ops }), {
    program: "/usr/bin/mcp-go",
    paths: [],
  });
  assert.deepEqual(ownCode("nope", [], { cwd: "/w", path: PATH, ops }), { paths: [] });
  assert.equal(findOnPath("nope", { path: PATH, cwd: "/w", ops }), undefined);
  assert.equal(
    missingScript("node", ["/srv/gone/index.js"], { cwd: "/w", ops }),
    "/srv/gone/index.js",
  );
  assert.equal(missingScript("mcp-go", ["x.js"], { cwd: "/w", ops }), undefined);
});

Deno.test("ownCode() adds node for a script run by its #! line, and the prefix of a Python outside /usr", () => {
  const ops = fakeOps({
    "/home/u/.nvm/v20/bin/node": exe,
    "/home/u/.nvm/v20/lib/node_modules/mcp-x/package.json": { kind: "file" },
    "/home/u/.nvm/v20/lib/node_modules/mcp-x/cli.js": exe,
    "/home/u/.nvm/v20/bin/mcp-x": { kind: "symlink", target: "../lib/node_modules/mcp-x/cli.js" },
    "/home/u/.pyenv/3.12/bin/python3.12": exe,
    "/home/u/.pyenv/3.12/lib/python3.12/os.py": { kind: "file" },
    "/srv/mcp/server.py": { kind: "file" },
  });
  const options = { cwd: "/w", path: "/home/u/.nvm/v20/bin:/usr/bin", home: "/home/u", ops };
  assert.deepEqual(ownCode("mcp-x", [], options).paths, [
    "/home/u/.nvm/v20/lib/node_modules",
    "/home/u/.nvm/v20/bin/node",
  ]);
  assert.deepEqual(
    ownCode("/home/u/.pyenv/3.12/bin/python3.12", ["/srv/mcp/server.py"], options).paths,
    ["/home/u/.pyenv/3.12", "/srv/mcp"],
  );
});

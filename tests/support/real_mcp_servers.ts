/**
 * The three reference MCP servers from npm (`@modelcontextprotocol/server-everything`,
 * `-filesystem`, `-memory`), installed npm-style (`node_modules/.bin`, each package with its
 * dependencies) into a temp dir outside any workspace, so tests start them the way users do.
 *
 * The versions are the exact ones pinned in deno.json's `imports`, and the dependencies are the
 * ones deno.lock resolved: the install is `deno install` in a temp project holding those three
 * imports, `"nodeModulesDir": "auto"` and a copy of deno.lock. It takes the packages from Deno's
 * npm cache (filled by `deno install`/`deno cache` in moat's checkout, so it works offline after
 * that) and fetches from the npm registry only what the cache lacks. Deno's layout (real files
 * under `node_modules/.deno/<pkg>@<version>/node_modules/`, symlinks elsewhere) is the one pnpm
 * uses, which node resolves like any other.
 *
 * `await realMcpServers()` installs once per test module (later calls share the install) and the
 * dir is removed when the module unloads.
 */
import { join } from "node:path";

/** The reference servers' npm packages. */
export const REAL_MCP_PACKAGES = [
  "@modelcontextprotocol/server-everything",
  "@modelcontextprotocol/server-filesystem",
  "@modelcontextprotocol/server-memory",
] as const;

/** One of the reference servers' packages. */
export type RealMcpPackage = typeof REAL_MCP_PACKAGES[number];

/** An npm-style install of the reference servers. */
export interface RealMcpServers {
  /** The install dir (holds node_modules/). */
  readonly dir: string;
  /** The exact version of each package (from deno.json). */
  readonly versions: Readonly<Record<RealMcpPackage, string>>;
  /** `<dir>/node_modules/.bin/<name>`, e.g. `bin("mcp-server-everything")`. */
  bin(name: string): string;
  /** `<dir>/node_modules/<pkg>` (a symlink into node_modules/.deno/). */
  packageDir(pkg: RealMcpPackage): string;
}

const PROJECT_ROOT = new URL("../..", import.meta.url).pathname.replace(/\/$/, "");

/** The exact versions deno.json pins (throws naming the package that is not pinned exactly). */
export async function pinnedVersions(
  configPath: string = join(PROJECT_ROOT, "deno.json"),
): Promise<Record<RealMcpPackage, string>> {
  const config = JSON.parse(await Deno.readTextFile(configPath)) as {
    imports?: Record<string, string>;
  };
  const out = {} as Record<RealMcpPackage, string>;
  for (const pkg of REAL_MCP_PACKAGES) {
    const specifier = config.imports?.[pkg] ?? "";
    const version = /^npm:.+@(\d+\.\d+\.\d+)$/.exec(specifier)?.[1];
    if (version === undefined || !specifier.startsWith(`npm:${pkg}@`)) {
      throw new Error(
        `deno.json does not pin "${pkg}" to an exact version: add ` +
          `"${pkg}": "npm:${pkg}@<version>" to its imports`,
      );
    }
    out[pkg] = version;
  }
  return out;
}

let installing: Promise<RealMcpServers> | undefined;

/** The module's install of the reference servers (made on first use, removed at unload). */
export function realMcpServers(): Promise<RealMcpServers> {
  installing ??= install();
  return installing;
}

async function install(): Promise<RealMcpServers> {
  const versions = await pinnedVersions();
  const dir = await Deno.makeTempDir({ prefix: "moat-real-mcp-" });
  globalThis.addEventListener("unload", () => Deno.removeSync(dir, { recursive: true }));
  const imports = Object.fromEntries(
    REAL_MCP_PACKAGES.map((pkg) => [pkg, `npm:${pkg}@${versions[pkg]}`]),
  );
  await Deno.writeTextFile(
    join(dir, "deno.json"),
    JSON.stringify({ nodeModulesDir: "auto", imports }, null, 2),
  );
  // The checkout's lock: the packages' dependencies resolve as they do for moat itself.
  await Deno.copyFile(join(PROJECT_ROOT, "deno.lock"), join(dir, "deno.lock"));
  const out = await new Deno.Command(Deno.execPath(), {
    args: ["install", "--quiet"],
    cwd: dir,
    stdin: "null",
    stdout: "piped",
    stderr: "piped",
  }).output();
  if (!out.success) {
    const decoder = new TextDecoder();
    throw new Error(
      `Installing the reference MCP servers in "${dir}" failed (exit ${out.code}): ` +
        `${decoder.decode(out.stderr)}${decoder.decode(out.stdout)}`,
    );
  }
  const servers: RealMcpServers = {
    dir,
    versions,
    bin: (name) => join(dir, "node_modules", ".bin", name),
    packageDir: (pkg) => join(dir, "node_modules", pkg),
  };
  for (const pkg of REAL_MCP_PACKAGES) {
    const manifest = JSON.parse(
      await Deno.readTextFile(join(servers.packageDir(pkg), "package.json")),
    ) as { version?: string };
    if (manifest.version !== versions[pkg]) {
      throw new Error(
        `The install of "${pkg}" in "${dir}" is version "${manifest.version}", not the pinned ` +
          `"${versions[pkg]}"`,
      );
    }
  }
  return servers;
}

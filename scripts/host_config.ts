/**
 * `deno task host-config`: writes the tool host's own Deno config and lock
 * (src/sandbox/host/host_config.json, host_lock.json) from deno.json and deno.lock, limited to the
 * npm packages the tool host imports (TOOL_HOST_PACKAGES) and what they depend on. Deno wants
 * every package of a run's lock in its cache, so with moat's own lock the host's view would have
 * to show all of moat's packages, one bubblewrap mount each (≈ 80 ms of every host start on 2
 * cores); with this lock it shows about 20. Run it after changing deno.json's imports or the lock
 * (tests/scripts/host_config_test.ts says when).
 */
import { fileURLToPath } from "node:url";
import { join } from "node:path";
import { HOST_CONFIG_FILE, HOST_LOCK_FILE, TOOL_HOST_PACKAGES } from "../src/sandbox/launch.ts";

interface DenoJson {
  imports?: Record<string, string>;
  compilerOptions?: unknown;
}

interface DenoLock {
  version: string;
  specifiers?: Record<string, string>;
  npm?: Record<string, { dependencies?: string[] }>;
  workspace?: { dependencies?: string[] };
}

/** "name", "name@version" or "@scope/name@version…" → the package name. */
function packageName(key: string): string {
  const at = key.indexOf("@", 1);
  return at < 0 ? key : key.slice(0, at);
}

/** An import's package: "npm:@scope/name@1.0.0/sub" → "@scope/name". */
function importPackage(target: string): string | undefined {
  if (!target.startsWith("npm:")) return undefined;
  return packageName(target.slice("npm:".length));
}

/** The tool host's config and lock, derived from moat's (same versions, same compiler options). */
export function hostConfigFiles(
  denoJson: DenoJson,
  lock: DenoLock,
  packages: readonly string[] = TOOL_HOST_PACKAGES,
): { config: Record<string, unknown>; lock: DenoLock } {
  const wanted = new Set(packages);
  const imports = Object.fromEntries(
    Object.entries(denoJson.imports ?? {}).filter(([, target]) =>
      wanted.has(importPackage(target) ?? "")
    ),
  );
  const npm = lock.npm ?? {};
  const names = new Set(packages);
  const keys = new Set<string>();
  for (const name of names) {
    for (const [key, entry] of Object.entries(npm)) {
      if (packageName(key) !== name) continue;
      keys.add(key);
      for (const dep of entry.dependencies ?? []) names.add(packageName(dep));
    }
  }
  const specifiers = Object.fromEntries(
    Object.entries(lock.specifiers ?? {}).filter(([spec]) => wanted.has(importPackage(spec) ?? "")),
  );
  const targets = new Set(Object.values(imports));
  return {
    config: {
      imports,
      ...(denoJson.compilerOptions === undefined
        ? {}
        : { compilerOptions: denoJson.compilerOptions }),
      lock: { path: `./${HOST_LOCK_FILE}`, frozen: true },
    },
    lock: {
      version: lock.version,
      specifiers,
      npm: Object.fromEntries([...keys].sort().map((key) => [key, npm[key] ?? {}])),
      workspace: {
        dependencies: (lock.workspace?.dependencies ?? []).filter((d) =>
          [...targets].some((t) => t === d || t.startsWith(`${d}/`))
        ),
      },
    },
  };
}

/** The two files' paths and texts for the checkout at `root`. */
export async function hostConfigTexts(root: string): Promise<Array<[string, string]>> {
  const denoJson = JSON.parse(await Deno.readTextFile(join(root, "deno.json"))) as DenoJson;
  const lock = JSON.parse(await Deno.readTextFile(join(root, "deno.lock"))) as DenoLock;
  const files = hostConfigFiles(denoJson, lock);
  const dir = join(root, "src", "sandbox", "host");
  return [
    [join(dir, HOST_CONFIG_FILE), JSON.stringify(files.config, null, 2) + "\n"],
    [join(dir, HOST_LOCK_FILE), JSON.stringify(files.lock, null, 2) + "\n"],
  ];
}

if (import.meta.main) {
  const root = fileURLToPath(new URL("..", import.meta.url));
  for (const [path, text] of await hostConfigTexts(root)) {
    await Deno.writeTextFile(path, text);
    await Deno.stdout.write(new TextEncoder().encode(`wrote ${path}\n`));
  }
}

/**
 * `deno task host-bundle`: writes the tool host's bundle (src/sandbox/host/bundle/, see
 * src/sandbox/host_bundle.ts): the host process and its two Worker modules, each one JavaScript
 * file built by `deno bundle` under the host's own config and lock, and the manifest naming every
 * input with their digest. Run it after changing anything the tool host runs (its modules, the
 * tools, their npm packages): tests/scripts/host_bundle_test.ts says when, and until then the
 * host runs from the sources.
 */
import { denoOutput, localModules } from "./_deno.ts";
import { join } from "node:path";
import { fileURLToPath } from "node:url";
import {
  HOST_BUNDLE_DIR,
  HOST_BUNDLE_FILES,
  HOST_BUNDLE_MANIFEST,
  hostBundleDigest,
  type HostBundleManifest,
} from "../src/sandbox/host_bundle.ts";
import { HOST_CONFIG_FILE, HOST_LOCK_FILE } from "../src/sandbox/launch.ts";
import { WORKER_MODULES } from "../src/sandbox/worker/worker_modules.ts";

const HOST_DIR = join("src", "sandbox", "host");

/** Each bundle file and its entry module, relative to moat's checkout. */
export const BUNDLE_ENTRIES: ReadonlyArray<[string, string]> = [
  [HOST_BUNDLE_FILES.host, join(HOST_DIR, "bundle_main.ts")],
  [HOST_BUNDLE_FILES.tools, join("src", "sandbox", "worker", WORKER_MODULES.tools)],
  [HOST_BUNDLE_FILES.grep, join("src", "sandbox", "worker", WORKER_MODULES.grep)],
];

/** The bundle's directory in the checkout at `root`. */
export function bundleDir(root: string): string {
  return join(root, HOST_DIR, HOST_BUNDLE_DIR);
}

/**
 * The bundle's inputs, relative to `root`: every moat module of the three graphs (type-only
 * imports too: more than needed, never less) and the host's config and lock (its npm packages'
 * versions), sorted.
 */
export async function bundleInputs(root: string): Promise<string[]> {
  const config = join(root, HOST_DIR, HOST_CONFIG_FILE);
  const inputs = new Set([join(HOST_DIR, HOST_CONFIG_FILE), join(HOST_DIR, HOST_LOCK_FILE)]);
  for (const [, entry] of BUNDLE_ENTRIES) {
    for (const path of await localModules(root, config, entry)) inputs.add(path);
  }
  return [...inputs].sort();
}

/** The manifest of the inputs as they are now in the checkout at `root`. */
export async function currentManifest(root: string, inputs: string[]): Promise<HostBundleManifest> {
  const texts: Array<[string, string]> = [];
  for (const input of inputs) texts.push([input, await Deno.readTextFile(join(root, input))]);
  return { inputs, sha256: await hostBundleDigest(texts) };
}

/**
 * `deno bundle` names each module (in comments, and CommonJS ones as keys) by its path from the
 * checkout; an npm package's path runs through the machine's Deno cache: kept as the package's
 * name and version only, so that the bundle is the same on every machine.
 */
export function machineIndependent(bundle: string): string {
  return bundle.replace(/[^"\s]*\/npm\/registry\.npmjs\.org\//g, "npm:");
}

/** Bundles the three entries of the checkout at `root`: file name → text. */
export async function bundleTexts(root: string): Promise<Array<[string, string]>> {
  const config = join(root, HOST_DIR, HOST_CONFIG_FILE);
  const tmp = await Deno.makeTempDir({ prefix: "moat-host-bundle-" });
  try {
    const texts: Array<[string, string]> = [];
    for (const [file, entry] of BUNDLE_ENTRIES) {
      const output = join(tmp, file);
      await denoOutput(
        ["bundle", "--quiet", "--config", config, "--platform", "deno", "-o", output, entry],
        root,
      );
      texts.push([file, machineIndependent(await Deno.readTextFile(output))]);
    }
    return texts;
  } finally {
    await Deno.remove(tmp, { recursive: true });
  }
}

if (import.meta.main) {
  const root = fileURLToPath(new URL("..", import.meta.url));
  const dir = bundleDir(root);
  await Deno.mkdir(dir, { recursive: true });
  await Deno.remove(join(dir, HOST_BUNDLE_MANIFEST)).catch(() => {});
  const manifest = await currentManifest(root, await bundleInputs(root));
  for (const [file, text] of await bundleTexts(root)) {
    await Deno.writeTextFile(join(dir, file), text);
  }
  // Last: a bundle whose manifest was not written is not used.
  await Deno.writeTextFile(
    join(dir, HOST_BUNDLE_MANIFEST),
    JSON.stringify(manifest, null, 2) + "\n",
  );
  await Deno.stdout.write(new TextEncoder().encode(`wrote ${dir}\n`));
}

/**
 * The tool host's bundle: the host process and its Worker modules as three JavaScript files
 * (src/sandbox/host/bundle/, written by `deno task host-bundle`, scripts/host_bundle.ts). In
 * bubblewrap the host's Deno has no transpile, dependency or code cache (Deno's cache directory
 * holds other projects' data and stays out of the view), and without them loading the ~550
 * modules of the Worker's graph (moat's and its npm packages') took most of the host's start;
 * from the bundle it loads one file per process, and its view needs neither moat's checkout nor
 * any npm package. The manifest names every input of the bundle with one digest of them all: a
 * bundle whose inputs changed since it was written is not used (the host runs from the sources),
 * so an edited tool never runs stale.
 */
import { join } from "node:path";
import type { ScanOps } from "../policy/mod.ts";

/** The bundle's directory, in src/sandbox/host/. */
export const HOST_BUNDLE_DIR = "bundle";

/** The bundle's files: the host process and the Worker modules it starts. */
export const HOST_BUNDLE_FILES = {
  host: "host.js",
  tools: "worker.js",
  grep: "grep_worker.js",
} as const;

/** The bundle's manifest (HostBundleManifest), beside its files. */
export const HOST_BUNDLE_MANIFEST = "manifest.json";

/** What the bundle was built from: its inputs (paths relative to moat's checkout) and their digest. */
export interface HostBundleManifest {
  inputs: string[];
  sha256: string;
}

/** The largest input the freshness check reads (a larger one makes the bundle unused). */
const MAX_INPUT_BYTES = 4 * 1024 * 1024;

/** The SHA-256 (hex) of the inputs, each its path and its text, in the order given. */
export async function hostBundleDigest(inputs: Array<[string, string]>): Promise<string> {
  const text = inputs.map(([path, content]) => `${path}\n${content.length}\n${content}\n`).join("");
  const digest = await crypto.subtle.digest("SHA-256", new TextEncoder().encode(text));
  return [...new Uint8Array(digest)].map((b) => b.toString(16).padStart(2, "0")).join("");
}

/**
 * The bundle's directory in the checkout at `project` when its files are there and its inputs
 * are those it was built from; undefined when it is missing, stale or unreadable.
 */
export async function freshHostBundle(
  paths: ScanOps,
  project: string,
): Promise<string | undefined> {
  const dir = join(project, "src", "sandbox", "host", HOST_BUNDLE_DIR);
  const manifest = parseManifest(paths.readTextFile(join(dir, HOST_BUNDLE_MANIFEST), 1024 * 1024));
  if (manifest === undefined) return undefined;
  if (Object.values(HOST_BUNDLE_FILES).some((f) => paths.stat(join(dir, f))?.kind !== "file")) {
    return undefined;
  }
  const inputs: Array<[string, string]> = [];
  for (const input of manifest.inputs) {
    const text = paths.readTextFile(join(project, input), MAX_INPUT_BYTES);
    if (text === undefined) return undefined;
    inputs.push([input, text]);
  }
  return await hostBundleDigest(inputs) === manifest.sha256 ? dir : undefined;
}

function parseManifest(text: string | undefined): HostBundleManifest | undefined {
  if (text === undefined) return undefined;
  try {
    const value = JSON.parse(text) as Partial<HostBundleManifest>;
    const inputs = value.inputs;
    if (
      !Array.isArray(inputs) || typeof value.sha256 !== "string" ||
      !inputs.every((i) => typeof i === "string" && !i.startsWith("/") && !i.includes(".."))
    ) return undefined;
    return { inputs, sha256: value.sha256 };
  } catch {
    return undefined;
  }
}

/** Locating ripgrep for the grep baseline, installing it from apt when running as root. */

/** Whether rg is usable; `note` explains a missing column. */
export interface RipgrepStatus {
  available: boolean;
  version?: string;
  note?: string;
}

async function version(): Promise<string | null> {
  try {
    const out = await new Deno.Command("rg", {
      args: ["--version"],
      stdout: "piped",
      stderr: "null",
    })
      .output();
    return out.success ? new TextDecoder().decode(out.stdout).split("\n")[0] ?? "rg" : null;
  } catch (e) {
    if (e instanceof Deno.errors.NotFound) return null;
    throw e;
  }
}

let cached: RipgrepStatus | undefined;

/**
 * Finds `rg` on PATH; when absent and running as root, tries `apt-get install -y ripgrep` once.
 * Never throws: a missing rg becomes a note and the column is skipped.
 */
export async function findRipgrep(log: (message: string) => void): Promise<RipgrepStatus> {
  if (cached) return cached;
  let v = await version();
  if (v === null && Deno.uid() === 0) {
    log("ripgrep missing: trying apt-get install -y ripgrep");
    try {
      const res = await new Deno.Command("apt-get", {
        args: ["install", "-y", "ripgrep"],
        env: { DEBIAN_FRONTEND: "noninteractive" },
        stdout: "null",
        stderr: "piped",
        signal: AbortSignal.timeout(180_000),
      }).output();
      if (!res.success) log(`apt-get failed: ${new TextDecoder().decode(res.stderr).trim()}`);
    } catch (e) {
      log(`apt-get not usable: ${e instanceof Error ? e.message : e}`);
    }
    v = await version();
  }
  cached = v === null
    ? {
      available: false,
      note: "ripgrep (rg) is not installed and could not be installed: grep's rg column skipped.",
    }
    : { available: true, version: v };
  return cached;
}

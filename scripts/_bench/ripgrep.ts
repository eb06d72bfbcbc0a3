/** Locating ripgrep for the grep baseline, installing it from apt when running as root. */

/** Whether rg is usable, and its version line when it is. */
export interface RipgrepStatus {
  available: boolean;
  version?: string;
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

/**
 * Finds `rg` on PATH; when absent and running as root, tries `apt-get install -y ripgrep`.
 * Never throws: a missing rg is reported as unavailable (the grep measure then skips its column).
 */
export async function findRipgrep(log: (message: string) => void): Promise<RipgrepStatus> {
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
  return v === null ? { available: false } : { available: true, version: v };
}

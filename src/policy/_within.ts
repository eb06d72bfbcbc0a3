/** Path containment on normalised absolute paths, shared by the bwrap view and protected paths. */

/** True when `p` is `base` or inside it (both absolute, normalised). */
export function isWithin(p: string, base: string): boolean {
  if (base === "/") return true;
  return p === base || p.startsWith(base + "/");
}

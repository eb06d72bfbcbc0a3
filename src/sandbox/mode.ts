/** The OS sandbox modes (`--sandbox`, config `sandbox`): declared once, with no imports. */

/** auto (bubblewrap when usable), require (exit 2 when not), off (the Worker only). */
export const SANDBOX_MODES = ["auto", "require", "off"] as const;

/** One of SANDBOX_MODES. */
export type SandboxMode = typeof SANDBOX_MODES[number];

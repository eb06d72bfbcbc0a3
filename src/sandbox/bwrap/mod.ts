/**
 * bubblewrap, the sandbox's machinery: whether it works here (probe), and the argv of the tool
 * host's filesystem view built from the grants — protected paths kept read-only, deny lists
 * masked, programs a scoped `--allow-run` does not grant hidden — and of each bash call's nested
 * pid namespace.
 */
export { type BwrapProbe, findProgram, probeBwrap, type ProbeOptions } from "./probe.ts";
export {
  bashHiddenDirs,
  bashViewArgs,
  buildHostArgs,
  hostViewProblem,
  type HostViewSpec,
  nestedBashPrefix,
  nestedBashViewEnd,
  privateTmp,
  viewMountTargets,
} from "./view.ts";
export type { MountTarget } from "./_mount_steps.ts";
export { type HiddenDir, hiddenDirArgs, type ListedEntry } from "./hide_view.ts";
export { type DeniedPath, scanDenied } from "./deny_view.ts";
export { binDirs } from "./program_masks.ts";
export { findProgramCopies } from "./program_copies.ts";

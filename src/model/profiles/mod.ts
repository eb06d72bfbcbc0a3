/**
 * Server profiles: the request shape each OpenAI-compatible server family accepts, how the family
 * is detected, and the switches learned from rejected requests. Imports nothing outside itself.
 */
export {
  type CompatOverrides,
  type CompatSwitches,
  DEFAULT_SWITCHES,
  SWITCH_NAMES,
  switchText,
} from "./switches.ts";
export { PROFILE_NAMES, type ProfileName, profileNamed } from "./table.ts";
export {
  type DetectedBy,
  ollamaVersionOf,
  profileFromModelEntry,
  profileFromUrl,
} from "./detect.ts";
export { type LearnedChange, learnFromError } from "./learn.ts";
export {
  type ProfileChoice,
  type ProfileReport,
  ProfileState,
  type ServerSignals,
  type SwitchSource,
} from "./state.ts";

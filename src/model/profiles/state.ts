/**
 * The profile in force for one client: chosen (flag, config), detected (URL, the server's model
 * list) or the default, with the config's overrides on top and what errors taught during the run;
 * every switch knows where its value came from.
 */
import type { DetectedBy } from "./detect.ts";
import { profileFromModelEntry, profileFromUrl } from "./detect.ts";
import {
  type CompatOverrides,
  type CompatSwitches,
  DEFAULT_SWITCHES,
  SWITCH_NAMES,
} from "./switches.ts";
import { type LearnedChange, learnFromError } from "./learn.ts";
import { type ProfileName, PROFILES } from "./table.ts";

/** Where a switch's value came from. */
export type SwitchSource = "default" | "profile" | "model" | "config" | "learned";

/** What `moat doctor` prints: the profile, how it was chosen, each switch and its source. */
export interface ProfileReport {
  profile: ProfileName;
  detectedBy: DetectedBy;
  switches: CompatSwitches;
  sources: Record<keyof CompatSwitches, SwitchSource>;
}

/** What the server said about itself, as far as it names the server family. */
export interface ServerSignals {
  /** The model's `/v1/models` entry (or the only one listed). */
  entry?: unknown;
  /** The server answered llama.cpp's `/props`. */
  props?: boolean;
  /** The version Ollama's `/api/version` states. */
  ollamaVersion?: string;
}

/** How the profile of a client is chosen. */
export interface ProfileChoice {
  baseURL: string;
  model: string;
  /** The profile named by `--provider` or config `provider`. */
  provider?: ProfileName;
  /** Which of the two named it (default "config"). */
  providerSource?: "flag" | "config";
  /** The config's `compat` switches; they win over the profile's. */
  overrides?: CompatOverrides;
}

/** OpenAI's own reasoning models, which take the system prompt in the `developer` role. */
function isOpenAiReasoningModel(model: string): boolean {
  return /^(o\d|gpt-5)/i.test(model.replace(/^openai\//, ""));
}

/** A client's profile: detection, overrides and learning, one mutable state per client. */
export class ProfileState {
  #profile: ProfileName;
  #by: DetectedBy;
  #learned: CompatOverrides = {};
  #causes = new Set<string>();
  readonly #choice: ProfileChoice;

  /** Decides the profile from the choice or the URL; undecided is `generic` by "default". */
  constructor(choice: ProfileChoice) {
    this.#choice = choice;
    const fromUrl = profileFromUrl(choice.baseURL);
    if (choice.provider !== undefined) {
      this.#profile = choice.provider;
      this.#by = choice.providerSource ?? "config";
    } else if (fromUrl !== undefined) {
      this.#profile = fromUrl;
      this.#by = "url";
    } else {
      this.#profile = "generic";
      this.#by = "default";
    }
  }

  /** Whether the server's metadata may still change the profile (nothing decided it yet). */
  get undecided(): boolean {
    return this.#by === "default";
  }

  /**
   * Takes the profile the server names, if undecided: llama.cpp's `/props`, else the model's
   * `/v1/models` entry, else Ollama's `/api/version`.
   */
  detectFromServer(signals: ServerSignals): void {
    if (!this.undecided) return;
    const fromEntry = profileFromModelEntry(signals.entry);
    const [named, by]: [ProfileName | undefined, DetectedBy] = signals.props === true
      ? ["llamacpp", "props"]
      : fromEntry !== undefined
      ? [fromEntry, "models"]
      : signals.ollamaVersion !== undefined
      ? ["ollama", "ollama-version"]
      : [undefined, "default"];
    if (named === undefined) return;
    this.#profile = named;
    this.#by = by;
  }

  /** The switches in force and each one's source. */
  report(): ProfileReport {
    const profile = PROFILES[this.#profile];
    const model: CompatOverrides = (this.#profile === "openai" || this.#profile === "azure") &&
        isOpenAiReasoningModel(this.#choice.model)
      ? { systemRole: "developer" }
      : {};
    const overrides = this.#choice.overrides ?? {};
    const switches = { ...DEFAULT_SWITCHES } as Record<string, unknown>;
    const sources = {} as Record<keyof CompatSwitches, SwitchSource>;
    for (const name of SWITCH_NAMES) {
      sources[name] = "default";
      const layers: Array<[CompatOverrides, SwitchSource]> = [
        [profile, "profile"],
        [model, "model"],
        [overrides, "config"],
        [this.#learned, "learned"],
      ];
      for (const [layer, source] of layers) {
        if (layer[name] !== undefined) {
          switches[name] = layer[name];
          sources[name] = source;
        }
      }
    }
    return {
      profile: this.#profile,
      detectedBy: this.#by,
      switches: switches as unknown as CompatSwitches,
      sources,
    };
  }

  /** The switches in force. */
  switches(): CompatSwitches {
    return this.report().switches;
  }

  /**
   * Learns from a rejected request: the change to apply, once per cause (then undefined), or
   * undefined when the error names nothing a switch fixes.
   */
  learn(
    status: number | undefined,
    message: string,
    budgetSent: boolean,
    imagesSent = false,
  ): LearnedChange | undefined {
    const learned = learnFromError(status, message, this.switches(), budgetSent, imagesSent);
    if (learned === undefined || this.#causes.has(learned.cause)) return undefined;
    this.#causes.add(learned.cause);
    this.#learned = { ...this.#learned, ...learned.change };
    return learned;
  }
}

/**
 * Which models accept images, by name: a small table of model families (the config's
 * `compat.vision` overrides it). A name the table does not know is undefined: callers decide
 * (moat's editor agent declares no image support then).
 */

/** Families known to take images (checked after the text-only ones, so "o3-mini" is text-only). */
const VISION: readonly RegExp[] = [
  /^(?:.*\/)?gpt-4o/i,
  /^(?:.*\/)?gpt-4\.1/i,
  /^(?:.*\/)?gpt-4-turbo/i,
  /^(?:.*\/)?gpt-4\.5/i,
  /^(?:.*\/)?gpt-5/i,
  /^(?:.*\/)?o[134](?:$|-)/i,
  /^(?:.*\/)?claude-(?:3|sonnet-4|opus-4|haiku-4|[a-z]+-4)/i,
  /^(?:.*\/)?gemini/i,
  /^(?:.*\/)?gemma-?3/i,
  /^(?:.*\/)?grok-(?:2-vision|4)/i,
  /llava|bakllava|moondream|minicpm-v|pixtral|-vl\b|-vl-|vl:|vision|llama-?4|mistral-(?:small|medium)-3/i,
];

/** Families known to take text only. */
const TEXT_ONLY: readonly RegExp[] = [
  /^(?:.*\/)?gpt-3\.5/i,
  /^(?:.*\/)?o1-mini|^(?:.*\/)?o3-mini/i,
  /^(?:.*\/)?gpt-oss/i,
  /deepseek(?!.*vl)/i,
  /coder(?!.*vl)/i,
  /codellama|codestral|starcoder/i,
];

/** Whether `model` accepts images: true, false, or undefined when the table does not know it. */
export function knownVision(model: string): boolean | undefined {
  if (TEXT_ONLY.some((re) => re.test(model))) return false;
  if (VISION.some((re) => re.test(model))) return true;
  return undefined;
}

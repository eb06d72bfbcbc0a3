#!/usr/bin/env bash
# Runs moat once in print mode for the GitHub Action (action.yml) and turns its `--output json`
# result into step outputs and a job summary. Runnable locally (tests/action_test.ts does).
#
# Inputs (environment; the action maps its inputs onto these names, docs/ci.md lists them):
#   MOAT_ACTION_PROMPT (required)    the prompt; only ever passed as one argument after "--"
#   MOAT_ACTION_API_KEY              moved to OPENAI_API_KEY for moat alone, then unset
#   MOAT_ACTION_MODEL, MOAT_ACTION_BASE_URL
#   MOAT_ACTION_ALLOW_READ (default ".")  MOAT_ACTION_ALLOW_WRITE (empty: --deny-write=.)
#   MOAT_ACTION_ALLOW_RUN, MOAT_ACTION_ALLOW_NET (empty: no flag)
#   MOAT_ACTION_OUTPUT_SCHEMA        JSON Schema file → --output-schema=FILE
#   MOAT_ACTION_MAX_TURNS, MOAT_ACTION_MAX_WALL_TIME, MOAT_ACTION_MAX_TOOL_CALLS,
#   MOAT_ACTION_MAX_TOKENS_TOTAL, MOAT_ACTION_MAX_COST
#   MOAT_ACTION_EXTRA_ARGS           split on whitespace, no quoting, put before "--"
#   MOAT_ACTION_WORKING_DIRECTORY (default ".")
#   MOAT_ACTION_FAIL_ON_ERROR (default true): false → exit 0 whatever moat's exit code
#   MOAT_ACTION_BIN                  the moat binary (default: moat on PATH)
#   GITHUB_OUTPUT, GITHUB_STEP_SUMMARY, RUNNER_TEMP (as on GitHub; each optional here)
# Outputs: answer, exit-code, stop-reason, usage, structured, result-file (always written).
set -euo pipefail

fail() {
  echo "moat action: $*" >&2
  exit 2
}

python=""
for candidate in python3 python; do
  if command -v "$candidate" >/dev/null 2>&1 &&
    "$candidate" -c 'import sys; sys.exit(0 if sys.version_info >= (3, 6) else 1)' >/dev/null 2>&1; then
    python="$candidate"
    break
  fi
done
[[ -n "$python" ]] || fail "python3 is needed to read moat's JSON result: install it before this step"

prompt="${MOAT_ACTION_PROMPT:-}"
[[ -n "${prompt//[[:space:]]/}" ]] || fail "the input prompt is required"
moat="${MOAT_ACTION_BIN:-moat}"
command -v "$moat" >/dev/null 2>&1 || fail "moat binary not found: $moat"

trim() {
  local s="$1"
  s="${s#"${s%%[![:space:]]*}"}"
  printf '%s' "${s%"${s##*[![:space:]]}"}"
}
# A list input as one flag value: commas and newlines separate items, blank items are dropped.
list_value() {
  local items=() item out=""
  IFS=$',\n' read -r -d '' -a items < <(printf '%s' "$1") || true
  for item in ${items[@]+"${items[@]}"}; do
    item="$(trim "$item")"
    if [[ -n "$item" ]]; then out="${out:+$out,}$item"; fi
  done
  printf '%s' "$out"
}

args=(--print --no-prompt --output json --no-session)
value="$(trim "${MOAT_ACTION_MODEL:-}")"
[[ -z "$value" ]] || args+=("--model=$value")
value="$(trim "${MOAT_ACTION_BASE_URL:-}")"
[[ -z "$value" ]] || args+=("--base-url=$value")
value="$(list_value "${MOAT_ACTION_ALLOW_READ-.}")"
[[ -z "$value" ]] || args+=("--allow-read=$value")
value="$(list_value "${MOAT_ACTION_ALLOW_WRITE:-}")"
# moat's default write grant is the workspace; the action's default is nothing.
if [[ -n "$value" ]]; then args+=("--allow-write=$value"); else args+=("--deny-write=."); fi
value="$(list_value "${MOAT_ACTION_ALLOW_RUN:-}")"
[[ -z "$value" ]] || args+=("--allow-run=$value")
value="$(list_value "${MOAT_ACTION_ALLOW_NET:-}")"
[[ -z "$value" ]] || args+=("--allow-net=$value")
schema="$(trim "${MOAT_ACTION_OUTPUT_SCHEMA:-}")"
[[ -z "$schema" ]] || args+=("--output-schema=$schema")
for pair in max-turns:MAX_TURNS max-wall-time:MAX_WALL_TIME max-tool-calls:MAX_TOOL_CALLS \
  max-tokens-total:MAX_TOKENS_TOTAL max-cost:MAX_COST; do
  name="MOAT_ACTION_${pair#*:}"
  value="$(trim "${!name:-}")"
  [[ -z "$value" ]] || args+=("--${pair%%:*}=$value")
done
extra=()
read -r -d '' -a extra < <(printf '%s' "${MOAT_ACTION_EXTRA_ARGS:-}") || true
for value in ${extra[@]+"${extra[@]}"}; do args+=("$value"); done
args+=(-- "$prompt")

# The key reaches moat only as OPENAI_API_KEY in its environment (moat keeps it from every tool).
if [[ -n "${MOAT_ACTION_API_KEY:-}" ]]; then
  OPENAI_API_KEY="$MOAT_ACTION_API_KEY"
  export OPENAI_API_KEY
fi
unset MOAT_ACTION_API_KEY MOAT_ACTION_PROMPT

cd "${MOAT_ACTION_WORKING_DIRECTORY:-.}"
result_dir="${RUNNER_TEMP:-${TMPDIR:-/tmp}}"
result_file="$(mktemp "$result_dir/moat-result-XXXXXX")"
mv "$result_file" "$result_file.json"
result_file="$result_file.json"

echo "moat action: running moat in $(pwd)" >&2
set +e
"$moat" "${args[@]}" </dev/null >"$result_file"
code=$?
set -e

# Reads the result (the last stdout line that is a JSON object of type "result") and writes the
# step outputs and the summary. Paths come as arguments (converted on Windows), never as code.
"$python" - "$result_file" "$code" "${GITHUB_OUTPUT:-}" "${GITHUB_STEP_SUMMARY:-}" \
  "$([[ -n "$schema" ]] && echo 1 || echo 0)" <<'PY'
import json, secrets, sys

result_file, code, output_file, summary_file, schema_given = sys.argv[1:6]
result = {}
try:
    with open(result_file, encoding="utf-8", errors="replace") as f:
        lines = [line for line in f.read().splitlines() if line.strip()]
    for line in reversed(lines):
        try:
            value = json.loads(line)
        except ValueError:
            continue
        if isinstance(value, dict) and value.get("type") == "result":
            result = value
            break
except OSError:
    pass
if not result:
    print(f"moat action: moat printed no JSON result (exit {code}); see its messages above",
          file=sys.stderr)

def compact(value):
    return json.dumps(value, ensure_ascii=False, separators=(",", ":"))

text = result.get("text")
text = text if isinstance(text, str) else ""
usage = result.get("usage")
structured = ""
if schema_given == "1" and result.get("structured") is not None:
    structured = compact(result["structured"])
outputs = {
    "answer": text,
    "exit-code": code,
    "stop-reason": str(result.get("stopReason") or ""),
    "usage": compact(usage) if isinstance(usage, dict) else "",
    "structured": structured,
    "result-file": result_file,
}

if output_file:
    delimiter = "moat_" + secrets.token_hex(16)
    while any(delimiter in v for v in outputs.values()):
        delimiter = "moat_" + secrets.token_hex(16)
    with open(output_file, "a", encoding="utf-8") as f:
        for name, value in outputs.items():
            f.write(f"{name}<<{delimiter}\n{value}\n{delimiter}\n")

def cell(value):
    value = value if isinstance(value, str) else json.dumps(value, ensure_ascii=False)
    return value.replace("\\", "\\\\").replace("|", "\\|").replace("\r", " ").replace("\n", " ")

if summary_file:
    limit = 512 * 1024
    answer = text if len(text) <= limit else (
        text[:limit] + f"\n\n_(answer cut at {limit} characters; the full text is in the "
        "answer output and the result file)_")
    rows = [("stop reason", outputs["stop-reason"] or "(none)"), ("exit code", code)]
    if result.get("limit") is not None:
        rows.append(("limit", result["limit"]))
    if isinstance(result.get("turns"), int):
        rows.append(("turns", result["turns"]))
    if isinstance(usage, dict):
        rows.append(("tokens in / out / cached", " / ".join(
            str(usage.get(k, 0)) for k in ("inputTokens", "outputTokens", "cachedTokens"))))
    if result.get("cost") is not None:
        rows.append(("cost", result["cost"]))
    if isinstance(result.get("toolCalls"), int):
        rows.append(("tool calls (failed, denied)", "%s (%s, %s)" % (
            result["toolCalls"], result.get("failed", 0), result.get("denied", 0))))
    error = result.get("error")
    if isinstance(error, dict):
        rows.append(("error", f"{error.get('kind', '')}: {error.get('message', '')}"))
    with open(summary_file, "a", encoding="utf-8") as f:
        f.write("### moat\n\n" + (answer if answer.strip() else "_(no answer)_") + "\n\n")
        f.write("| | |\n| --- | --- |\n")
        for name, value in rows:
            f.write(f"| {cell(name)} | {cell(value)} |\n")
        f.write("\n")
PY

meaning() {
  case "$1" in
    0) echo "completed" ;;
    1) echo "model/provider error after retries: check the API key and base URL, retry later" ;;
    2) echo "usage or configuration error: fix the workflow (see the log)" ;;
    3) echo "a limit was reached: the answer says what was done and what remains" ;;
    4) echo "tool calls were denied (--fail-on-deny)" ;;
    5) echo "--replay-check found a difference" ;;
    6) echo "context exhausted: the conversation does not fit the model's context window" ;;
    7) echo "the answer does not match the output schema" ;;
    130) echo "interrupted (SIGINT)" ;;
    143) echo "terminated (SIGTERM): the job was cancelled" ;;
    *) echo "unexpected exit code" ;;
  esac
}

fail_on_error="$(printf '%s' "${MOAT_ACTION_FAIL_ON_ERROR:-true}" | tr '[:upper:]' '[:lower:]')"
if [[ "$code" != 0 ]]; then
  case "$fail_on_error" in
    false | no | 0 | off)
      echo "::warning title=moat::moat exited $code: $(meaning "$code") (fail-on-error is false)"
      exit 0
      ;;
  esac
  echo "::error title=moat::moat exited $code: $(meaning "$code")"
  exit "$code"
fi

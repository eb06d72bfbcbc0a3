#!/usr/bin/env bash
# Installs the released moat binary for this runner's OS and CPU, verified against the release's
# SHA256SUMS. Called by action.yml; runnable locally (tests/action_test.ts does).
#
# Inputs (environment; all optional):
#   MOAT_ACTION_VERSION       release tag (e.g. v0.2.0) or "latest"; empty: the action's own ref
#                             when it looks like a version tag (vMAJOR.MINOR.PATCH…), else latest
#   MOAT_ACTION_REPOSITORY    owner/name holding the releases; empty: the action's own repository
#                             (from GITHUB_ACTION_PATH, then MOAT_ACTION_SELF_REPOSITORY), else
#                             GITHUB_REPOSITORY
#   MOAT_ACTION_DOWNLOAD_URL  base URL replacing https://github.com/REPO/releases/download/VERSION
#                             (anything curl fetches, e.g. file:///path/dir); no version lookup
#   MOAT_ACTION_INSTALL_DIR   where the binary goes (default $RUNNER_TEMP/moat-bin, else a temp dir)
#   MOAT_ACTION_SELF_REPOSITORY, MOAT_ACTION_SELF_REF
#                             ${{ github.action_repository }} / ${{ github.action_ref }}, passed by
#                             action.yml (often empty in composite actions: actions/runner#2473)
#   RUNNER_OS (Linux|macOS|Windows), RUNNER_ARCH (X64|ARM64): default from uname
# Effects: the binary at INSTALL_DIR/moat (moat.exe on Windows); INSTALL_DIR appended to
# $GITHUB_PATH; step outputs `path` and `version` appended to $GITHUB_OUTPUT (when set).
set -euo pipefail

fail() {
  echo "moat install: $*" >&2
  exit 1
}

# --- which file ----------------------------------------------------------------------------------
os="${RUNNER_OS:-}"
arch="${RUNNER_ARCH:-}"
if [[ -z "$os" ]]; then
  case "$(uname -s)" in
    Linux) os=Linux ;;
    Darwin) os=macOS ;;
    MINGW* | MSYS* | CYGWIN*) os=Windows ;;
    *) os="$(uname -s)" ;;
  esac
fi
if [[ -z "$arch" ]]; then
  case "$(uname -m)" in
    x86_64 | amd64) arch=X64 ;;
    aarch64 | arm64) arch=ARM64 ;;
    *) arch="$(uname -m)" ;;
  esac
fi
case "$os/$arch" in
  Linux/X64) file=moat-x86_64-unknown-linux-gnu ;;
  Linux/ARM64) file=moat-aarch64-unknown-linux-gnu ;;
  macOS/X64) file=moat-x86_64-apple-darwin ;;
  macOS/ARM64) file=moat-aarch64-apple-darwin ;;
  Windows/X64) file=moat-x86_64-pc-windows-msvc.exe ;;
  *) fail "no moat release for $os/$arch (there are Linux X64/ARM64, macOS X64/ARM64, Windows X64)" ;;
esac
binary_name=moat
[[ "$os" == Windows ]] && binary_name=moat.exe

# --- where from ----------------------------------------------------------------------------------
# A composite action's files live in …/_actions/OWNER/REPO/REF: the most reliable source of the
# action's own repository and ref.
path_repository=""
path_ref=""
action_path_re='_actions[/\\]([^/\\]+)[/\\]([^/\\]+)[/\\]([^/\\]+)[/\\]?$'
if [[ "${GITHUB_ACTION_PATH:-}" =~ $action_path_re ]]; then
  path_repository="${BASH_REMATCH[1]}/${BASH_REMATCH[2]}"
  path_ref="${BASH_REMATCH[3]}"
fi

download_url="${MOAT_ACTION_DOWNLOAD_URL:-}"
download_url="${download_url%/}"
version="${MOAT_ACTION_VERSION:-}"
if [[ -z "$download_url" ]]; then
  repository="${MOAT_ACTION_REPOSITORY:-}"
  [[ -n "$repository" ]] || repository="$path_repository"
  [[ -n "$repository" ]] || repository="${MOAT_ACTION_SELF_REPOSITORY:-}"
  [[ -n "$repository" ]] || repository="${GITHUB_REPOSITORY:-}"
  [[ "$repository" =~ ^[A-Za-z0-9_.-]+/[A-Za-z0-9_.-]+$ ]] ||
    fail "cannot tell which repository holds the releases (got \"$repository\"): set the input repository: OWNER/NAME"
  if [[ -z "$version" ]]; then
    ref="${path_ref:-${MOAT_ACTION_SELF_REF:-}}"
    if [[ "$ref" =~ ^v[0-9]+\.[0-9]+\.[0-9]+ ]]; then version="$ref"; else version=latest; fi
  fi
  if [[ "$version" == latest ]]; then
    # https://github.com/R/releases/latest redirects to …/releases/tag/TAG.
    effective="$(curl -fsSL --retry 3 -o /dev/null -w '%{url_effective}' \
      "https://github.com/$repository/releases/latest")" ||
      fail "cannot reach https://github.com/$repository/releases/latest"
    [[ "$effective" == */releases/tag/* ]] ||
      fail "$repository has no published release (https://github.com/$repository/releases/latest went to $effective)"
    version="${effective##*/releases/tag/}"
  fi
  [[ "$version" =~ ^[A-Za-z0-9_.+-]+$ ]] || fail "invalid version \"$version\""
  download_url="https://github.com/$repository/releases/download/$version"
fi

# --- download and verify -------------------------------------------------------------------------
install_dir="${MOAT_ACTION_INSTALL_DIR:-}"
if [[ -z "$install_dir" ]]; then
  if [[ -n "${RUNNER_TEMP:-}" ]]; then
    install_dir="$RUNNER_TEMP/moat-bin"
  else
    install_dir="$(mktemp -d)"
  fi
fi
mkdir -p "$install_dir"
target="$install_dir/$binary_name"

sha256_of() {
  if command -v sha256sum >/dev/null 2>&1; then
    sha256sum "$1" | cut -d' ' -f1
  elif command -v shasum >/dev/null 2>&1; then
    shasum -a 256 "$1" | cut -d' ' -f1
  else
    fail "neither sha256sum nor shasum is installed"
  fi
}

work="$(mktemp -d)"
trap 'rm -rf "$work"' EXIT

echo "moat install: $download_url/$file ($os/$arch)"
curl -fsSL --retry 3 -o "$work/SHA256SUMS" "$download_url/SHA256SUMS" ||
  fail "cannot download $download_url/SHA256SUMS"
# Lines are "<hex>  <file name>" (sha256sum's format; "*name" is its binary mode).
expected="$(awk -v f="$file" '$2 == f || $2 == "*" f { print tolower($1) }' "$work/SHA256SUMS")"
[[ -n "$expected" ]] || fail "SHA256SUMS at $download_url has no line for $file"
[[ "$(printf '%s\n' "$expected" | sort -u | wc -l | tr -d ' ')" == 1 ]] ||
  fail "SHA256SUMS at $download_url has conflicting lines for $file"
[[ "$expected" =~ ^[0-9a-f]{64}$ ]] || fail "SHA256SUMS at $download_url has a malformed line for $file"

if [[ -f "$target" && "$(sha256_of "$target")" == "$expected" ]]; then
  echo "moat install: $target is already this release"
else
  curl -fsSL --retry 3 -o "$work/$file" "$download_url/$file" ||
    fail "cannot download $download_url/$file"
  actual="$(sha256_of "$work/$file")"
  [[ "$actual" == "$expected" ]] ||
    fail "checksum mismatch for $file: SHA256SUMS says $expected, the download is $actual; not installed"
  chmod +x "$work/$file"
  mv -f "$work/$file" "$target"
fi
echo "moat install: $target (sha256 $expected)"

if [[ -n "${GITHUB_PATH:-}" ]]; then echo "$install_dir" >>"$GITHUB_PATH"; fi
if [[ -n "${GITHUB_OUTPUT:-}" ]]; then
  {
    echo "path=$target"
    echo "version=$version"
  } >>"$GITHUB_OUTPUT"
fi

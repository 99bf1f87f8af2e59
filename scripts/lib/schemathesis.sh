#!/usr/bin/env bash
# Installs the pinned schemathesis (PyPI) into a git-ignored virtualenv when missing, reuses it
# when present, and runs it with the given arguments:  bash scripts/lib/schemathesis.sh run <url> ...
# `bash scripts/lib/schemathesis.sh --ensure` only installs and prints the executable's path.
# The venv lives in the machine's tool cache (shared by clones, like scripts/ensure-tools.sh's
# tools), falling back to .tools/ when the cache is not writable. Needs python3 >= 3.9 with venv;
# on Debian/Ubuntu without ensurepip it installs python3-venv with apt-get when run as root.
set -euo pipefail
# DPkg::Lock::Timeout: npm test runs this beside the other installers (scripts/lib/testTools.ts); one
# that holds the dpkg lock makes the next wait for it instead of failing at once.
root="$(cd "$(dirname "$0")/../.." && pwd)"
SCHEMATHESIS_VERSION="4.32.5"

cache="${GATEWAY_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pix-gateway-tools}"
if ! mkdir -p "$cache" 2>/dev/null || [ ! -w "$cache" ]; then cache="$root/.tools/cache"; mkdir -p "$cache"; fi
venv="$cache/schemathesis-$SCHEMATHESIS_VERSION-venv"
st="$venv/bin/st"

ensure_python() {
  if ! command -v python3 >/dev/null 2>&1; then
    echo "schemathesis: python3 is needed (>= 3.9)." >&2; exit 1
  fi
  if ! python3 -c 'import sys; sys.exit(0 if sys.version_info >= (3, 9) else 1)'; then
    echo "schemathesis: python3 >= 3.9 is needed, found $(python3 --version)." >&2; exit 1
  fi
  if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
      echo "schemathesis: installing python3-venv with apt-get (ensurepip missing)..." >&2
      apt-get -o DPkg::Lock::Timeout=600 update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq python3-venv >&2
    else
      echo "schemathesis: python3's venv/ensurepip is missing; install python3-venv." >&2; exit 1
    fi
  fi
}

# A marker written last, so an install cut short is redone instead of half-used.
if [ ! -f "$venv/.installed" ]; then
  ensure_python
  echo "schemathesis: installing $SCHEMATHESIS_VERSION into $venv (first run on this machine)..." >&2
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "schemathesis==$SCHEMATHESIS_VERSION" >&2
  "$st" --version >&2
  touch "$venv/.installed"
fi

if [ "${1:-}" = "--ensure" ]; then echo "$st"; exit 0; fi
exec "$st" "$@"

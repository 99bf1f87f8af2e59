#!/usr/bin/env bash
# An S3-compatible server for tests: moto's standalone server (PyPI, pinned), installed into a
# virtualenv in the machine's tool cache when missing (like scripts/lib/schemathesis.sh), then
# run in the foreground:  bash scripts/lib/motoServer.sh -H 127.0.0.1 -p <port>
# `--ensure` only installs and prints the executable's path.
set -euo pipefail
# DPkg::Lock::Timeout: npm test runs this beside the other installers (scripts/lib/testTools.ts); one
# that holds the dpkg lock makes the next wait for it instead of failing at once.
root="$(cd "$(dirname "$0")/../.." && pwd)"
MOTO_VERSION="5.1.18"

cache="${GATEWAY_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pix-gateway-tools}"
if ! mkdir -p "$cache" 2>/dev/null || [ ! -w "$cache" ]; then cache="$root/.tools/cache"; mkdir -p "$cache"; fi
venv="$cache/moto-$MOTO_VERSION-venv"
server="$venv/bin/moto_server"

if [ ! -f "$venv/.installed" ]; then
  if ! python3 -c 'import venv, ensurepip' >/dev/null 2>&1; then
    if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
      apt-get -o DPkg::Lock::Timeout=600 update -qq >&2 && DEBIAN_FRONTEND=noninteractive apt-get -o DPkg::Lock::Timeout=600 install -y -qq python3-venv >&2
    else
      echo "moto: python3 with venv is needed (install python3-venv)." >&2; exit 1
    fi
  fi
  echo "moto: installing $MOTO_VERSION into $venv (first run on this machine)..." >&2
  rm -rf "$venv"
  python3 -m venv "$venv"
  "$venv/bin/python" -m pip install --quiet --disable-pip-version-check "moto[server,s3]==$MOTO_VERSION" >&2
  touch "$venv/.installed"
fi

if [ "${1:-}" = "--ensure" ]; then echo "$server"; exit 0; fi
exec "$server" "$@"

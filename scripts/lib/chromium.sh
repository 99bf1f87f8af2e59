#!/usr/bin/env bash
# Debian's Chromium, which the browser tests of the hosted checkout page drive through playwright-core
# (no browser download: playwright-core uses executablePath /usr/bin/chromium).
#   bash scripts/lib/chromium.sh --ensure   installs it when missing (root + apt-get), else exits 1
#   bash scripts/lib/chromium.sh --check    only reports; exits 1 when it is missing
set -euo pipefail
# DPkg::Lock::Timeout: npm test runs this beside the other installers (scripts/lib/testTools.ts); one
# that holds the dpkg lock makes the next wait for it instead of failing at once.

mode="${1:---ensure}"
CHROMIUM=/usr/bin/chromium

case "$mode" in
  --ensure | --check) ;;
  *) echo "usage: $0 [--ensure|--check]" >&2; exit 2 ;;
esac

if [ -x "$CHROMIUM" ]; then exit 0; fi

if [ "$mode" = "--check" ]; then
  echo "chromium: $CHROMIUM is missing (Debian package chromium)" >&2; exit 1
fi

if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "chromium: installing Debian's chromium (first run on this machine)..." >&2
  export DEBIAN_FRONTEND=noninteractive
  # A fresh machine has no package lists yet: install fails until apt-get update has run once.
  if ! apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends chromium >/dev/null 2>&1; then
    apt-get -o DPkg::Lock::Timeout=600 update -qq >&2
    apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends chromium >&2
  fi
else
  echo "chromium: the checkout page browser tests need Debian's chromium at $CHROMIUM." >&2
  echo "chromium: install it with: sudo apt-get install --no-install-recommends chromium" >&2
  exit 1
fi

if [ ! -x "$CHROMIUM" ]; then echo "chromium: still missing after install: $CHROMIUM" >&2; exit 1; fi

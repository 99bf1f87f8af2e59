#!/usr/bin/env bash
# Debian command-line tools the boleto and receipt PDF tests read the PDF back with, so that the checks run
# through programs we did not write: pdftotext, pdftoppm, pdfinfo and pdffonts (poppler-utils) and zbarimg (zbar-tools).
#   bash scripts/lib/debianTools.sh --ensure   installs what is missing (root + apt-get), else exits 1
#   bash scripts/lib/debianTools.sh --check    only reports; exits 1 when something is missing
set -euo pipefail
# DPkg::Lock::Timeout: npm test runs this beside the other installers (scripts/lib/testTools.ts); one
# that holds the dpkg lock makes the next wait for it instead of failing at once.

mode="${1:---ensure}"
# command → Debian package that ships it
declare -A pkg_of=([pdftotext]=poppler-utils [pdfimages]=poppler-utils [pdftoppm]=poppler-utils [pdfinfo]=poppler-utils [pdffonts]=poppler-utils [zbarimg]=zbar-tools)

missing_pkgs() {
  local cmd out=()
  for cmd in "${!pkg_of[@]}"; do
    command -v "$cmd" >/dev/null 2>&1 || out+=("${pkg_of[$cmd]}")
  done
  # unique, stable order
  [ ${#out[@]} -eq 0 ] || printf '%s\n' "${out[@]}" | sort -u | tr '\n' ' '
}

case "$mode" in
  --ensure | --check) ;;
  *) echo "usage: $0 [--ensure|--check]" >&2; exit 2 ;;
esac

need="$(missing_pkgs)"
if [ -z "$need" ]; then exit 0; fi

if [ "$mode" = "--check" ]; then
  echo "debianTools: missing Debian packages: $need" >&2; exit 1
fi

if [ "$(id -u)" = "0" ] && command -v apt-get >/dev/null 2>&1; then
  echo "debianTools: installing $need(first run on this machine)..." >&2
  export DEBIAN_FRONTEND=noninteractive
  # A fresh machine has no package lists yet: install fails until apt-get update has run once.
  # shellcheck disable=SC2086  # $need is a space-separated list of package names
  if ! apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $need >/dev/null 2>&1; then
    apt-get -o DPkg::Lock::Timeout=600 update -qq >&2
    # shellcheck disable=SC2086
    apt-get -o DPkg::Lock::Timeout=600 install -y -qq --no-install-recommends $need >&2
  fi
else
  echo "debianTools: the boleto PDF tests need pdftotext, pdftoppm, pdfinfo (Debian package poppler-utils) and zbarimg (zbar-tools)." >&2
  echo "debianTools: missing: $need— install them with: sudo apt-get install --no-install-recommends poppler-utils zbar-tools" >&2
  exit 1
fi

still="$(missing_pkgs)"
if [ -n "$still" ]; then echo "debianTools: still missing after install: $still" >&2; exit 1; fi

#!/usr/bin/env bash
# Installs the pinned Temporal tooling when missing and reuses it when present.
#   - temporal CLI (dev server + Web UI) via `go install` (v1.5.1: later versions carry a go.mod
#     `replace` directive that `go install module@version` refuses)
#   - Java time-skipping test server, resolved from Maven Central, wrapped by run.sh <port>
# Built once per machine into a version-keyed cache ($GATEWAY_TOOLS_CACHE, default
# ~/.cache/pix-gateway-tools) and linked into the git-ignored .tools/, so a fresh clone reuses
# them. A `temporal` already on PATH is used as is.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tools="$root/.tools"

TEMPORAL_CLI_VERSION="v1.5.1"
TEST_SERVER_VERSION="$(sed -n 's:.*<version>\(.*\)</version>.*:\1:p' "$root/tools/temporal-test-server/pom.xml" | tail -1)"

cache="${GATEWAY_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pix-gateway-tools}"
if ! mkdir -p "$cache" 2>/dev/null || [ ! -w "$cache" ]; then cache="$tools/cache"; mkdir -p "$cache"; fi
mkdir -p "$tools/bin"

want="${1:-all}"

ensure_cli() {
  if [ -x "$tools/bin/temporal" ]; then return 0; fi
  if command -v temporal >/dev/null 2>&1; then
    ln -sf "$(command -v temporal)" "$tools/bin/temporal"; return 0
  fi
  local dir="$cache/temporal-cli-$TEMPORAL_CLI_VERSION"
  if [ ! -x "$dir/temporal" ]; then
    if ! command -v go >/dev/null 2>&1; then
      echo "ensure-tools: no 'temporal' on PATH and no Go toolchain to build it." >&2
      echo "Install the Temporal CLI (https://docs.temporal.io/cli) or use 'docker compose up'." >&2
      exit 1
    fi
    echo "ensure-tools: building temporal CLI $TEMPORAL_CLI_VERSION with go install (first run on this machine, a few minutes)..." >&2
    mkdir -p "$dir.tmp"
    GOBIN="$dir.tmp" GOFLAGS=-mod=mod go install "github.com/temporalio/cli/cmd/temporal@$TEMPORAL_CLI_VERSION"
    rm -rf "$dir" && mv "$dir.tmp" "$dir"
  fi
  ln -sf "$dir/temporal" "$tools/bin/temporal"
}

ensure_test_server() {
  if [ -x "$tools/temporal-test-server/run.sh" ]; then return 0; fi
  local dir="$cache/temporal-test-server-$TEST_SERVER_VERSION"
  if [ ! -x "$dir/run.sh" ]; then
    if ! command -v mvn >/dev/null 2>&1 || ! command -v java >/dev/null 2>&1; then
      echo "ensure-tools: Java and Maven are needed for the time-skipping test server." >&2
      exit 1
    fi
    echo "ensure-tools: resolving the Java time-skipping test server $TEST_SERVER_VERSION from Maven Central (first run only)..." >&2
    rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
    mvn -q -B -f "$root/tools/temporal-test-server/pom.xml" dependency:copy-dependencies \
      -DincludeScope=runtime -DoutputDirectory="$dir.tmp/lib" >&2
    cat > "$dir.tmp/run.sh" <<'RUN'
#!/usr/bin/env bash
# Usage: run.sh <port>   (the Temporal time-skipping test server)
here="$(cd "$(dirname "$(readlink -f "$0")")" && pwd)"
exec java -cp "$here/lib/*" io.temporal.testserver.TestServer "$@"
RUN
    chmod +x "$dir.tmp/run.sh"
    rm -rf "$dir" && mv "$dir.tmp" "$dir"
  fi
  rm -rf "$tools/temporal-test-server"
  ln -sfn "$dir" "$tools/temporal-test-server"
}

case "$want" in
  cli) ensure_cli ;;
  test-server) ensure_test_server ;;
  all) ensure_cli; ensure_test_server ;;
  *) echo "usage: ensure-tools.sh [cli|test-server|all]" >&2; exit 2 ;;
esac

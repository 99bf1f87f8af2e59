#!/usr/bin/env bash
# Installs the pinned Temporal tooling into .tools/ when missing; reuses it when present.
#   - temporal CLI (dev server + Web UI), via `go install` (v1.5.1: later versions carry a
#     go.mod `replace` that `go install module@version` refuses)
#   - Java time-skipping test server, resolved from Maven Central, wrapped by a launcher
#     script taking the port as its first argument.
# A `temporal` already on PATH is used as is.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tools="$root/.tools"
mkdir -p "$tools/bin"

TEMPORAL_CLI_VERSION="v1.5.1"

want="${1:-all}"

ensure_cli() {
  if [ -x "$tools/bin/temporal" ]; then return 0; fi
  if command -v temporal >/dev/null 2>&1; then
    ln -sf "$(command -v temporal)" "$tools/bin/temporal"; return 0
  fi
  if ! command -v go >/dev/null 2>&1; then
    echo "ensure-tools: no 'temporal' on PATH and no Go toolchain to build it." >&2
    echo "Install the Temporal CLI (https://docs.temporal.io/cli) or use 'docker compose up'." >&2
    exit 1
  fi
  echo "ensure-tools: building temporal CLI $TEMPORAL_CLI_VERSION with go install (first run only)..." >&2
  GOBIN="$tools/bin" GOFLAGS=-mod=mod go install "github.com/temporalio/cli/cmd/temporal@$TEMPORAL_CLI_VERSION"
}

ensure_test_server() {
  local dir="$tools/temporal-test-server"
  if [ -x "$dir/run.sh" ] && [ -n "$(ls "$dir"/lib/temporal-test-server-*.jar 2>/dev/null)" ]; then return 0; fi
  if ! command -v mvn >/dev/null 2>&1 || ! command -v java >/dev/null 2>&1; then
    echo "ensure-tools: Java and Maven are needed for the time-skipping test server." >&2
    exit 1
  fi
  echo "ensure-tools: resolving the Java time-skipping test server from Maven Central (first run only)..." >&2
  mkdir -p "$dir"
  mvn -q -B -f "$root/tools/temporal-test-server/pom.xml" dependency:copy-dependencies \
    -DincludeScope=runtime -DoutputDirectory="$dir/lib.tmp" >&2
  rm -rf "$dir/lib" && mv "$dir/lib.tmp" "$dir/lib"
  cat > "$dir/run.sh" <<'RUN'
#!/usr/bin/env bash
# Usage: run.sh <port>
here="$(cd "$(dirname "$0")" && pwd)"
exec java -cp "$here/lib/*" io.temporal.testserver.TestServer "$@"
RUN
  chmod +x "$dir/run.sh"
}

case "$want" in
  cli) ensure_cli ;;
  test-server) ensure_test_server ;;
  all) ensure_cli; ensure_test_server ;;
esac

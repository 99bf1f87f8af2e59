#!/usr/bin/env bash
# Installs the pinned Temporal tooling when missing and reuses it when present.
#   - temporal CLI (dev server + Web UI) via `go install` (v1.5.1: later versions carry a go.mod
#     `replace` directive that `go install module@version` refuses)
#   - Java time-skipping test server, resolved from Maven Central, wrapped by run.sh <port>
#   - the production Temporal server: `temporal-server` and `temporal-sql-tool` built from the Go
#     module go.temporal.io/server (cmd/server, cmd/tools/sql), with the module's SQL schema beside
#     them (scripts/lib/temporalServer.ts runs them; TEMPORAL_ENGINE=server)
#   - the Temporal Web UI server (github.com/temporalio/ui-server), for that engine's `npm start`
# Built once per machine into a version-keyed cache ($GATEWAY_TOOLS_CACHE, default
# ~/.cache/pix-gateway-tools) and linked into the git-ignored .tools/, so a fresh clone reuses
# them. A `temporal` already on PATH is used as is.
set -euo pipefail
root="$(cd "$(dirname "$0")/.." && pwd)"
tools="$root/.tools"

TEMPORAL_CLI_VERSION="v1.5.1"
# One source for these two versions: scripts/lib/temporalEngine.ts (docker-compose.yml's images agree).
engine_version() { sed -n "s/^export const $1 = '\(.*\)';/\1/p" "$root/scripts/lib/temporalEngine.ts"; }
TEMPORAL_SERVER_VERSION="v$(engine_version TEMPORAL_SERVER_VERSION)"
TEMPORAL_UI_VERSION="v$(engine_version TEMPORAL_UI_VERSION)"
TEST_SERVER_VERSION="$(sed -n 's:.*<version>\(.*\)</version>.*:\1:p' "$root/tools/temporal-test-server/pom.xml" | tail -1)"

cache="${GATEWAY_TOOLS_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/pix-gateway-tools}"
if ! mkdir -p "$cache" 2>/dev/null || [ ! -w "$cache" ]; then cache="$tools/cache"; mkdir -p "$cache"; fi
mkdir -p "$tools/bin"

need_go() {
  if ! command -v go >/dev/null 2>&1; then
    echo "ensure-tools: the Go toolchain is needed to build $1 (first run on this machine)." >&2
    exit 1
  fi
}

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

# The production engine: the server and its schema tool from one module version, and the module's
# schema/ directory (setup-schema and update-schema read it), all in one version-keyed folder.
ensure_server() {
  local dir="$cache/temporal-server-$TEMPORAL_SERVER_VERSION"
  if [ ! -x "$dir/temporal-server" ] || [ ! -x "$dir/temporal-sql-tool" ] || [ ! -d "$dir/schema" ]; then
    need_go "the Temporal server"
    echo "ensure-tools: building the Temporal server $TEMPORAL_SERVER_VERSION from go.temporal.io/server (first run on this machine, a few minutes)..." >&2
    rm -rf "$dir.tmp" && mkdir -p "$dir.tmp/bin"
    GOBIN="$dir.tmp/bin" GOFLAGS=-mod=mod go install \
      "go.temporal.io/server/cmd/server@$TEMPORAL_SERVER_VERSION" "go.temporal.io/server/cmd/tools/sql@$TEMPORAL_SERVER_VERSION"
    mv "$dir.tmp/bin/server" "$dir.tmp/temporal-server"
    mv "$dir.tmp/bin/sql" "$dir.tmp/temporal-sql-tool"
    rmdir "$dir.tmp/bin"
    local module
    module="$(GOFLAGS=-mod=mod go mod download -json "go.temporal.io/server@$TEMPORAL_SERVER_VERSION" | sed -n 's/^[[:space:]]*"Dir": "\(.*\)",\{0,1\}$/\1/p')"
    cp -r "$module/schema" "$dir.tmp/schema"
    chmod -R u+w "$dir.tmp/schema"
    rm -rf "$dir" && mv "$dir.tmp" "$dir"
  fi
  rm -rf "$tools/temporal-server"
  ln -sfn "$dir" "$tools/temporal-server"
}

ensure_ui() {
  local dir="$cache/temporal-ui-server-$TEMPORAL_UI_VERSION"
  if [ ! -x "$dir/temporal-ui-server" ]; then
    need_go "the Temporal Web UI server"
    echo "ensure-tools: building the Temporal Web UI server $TEMPORAL_UI_VERSION (first run on this machine)..." >&2
    rm -rf "$dir.tmp" && mkdir -p "$dir.tmp/bin"
    GOBIN="$dir.tmp/bin" GOFLAGS=-mod=mod go install "github.com/temporalio/ui-server/v2/cmd/server@$TEMPORAL_UI_VERSION"
    mv "$dir.tmp/bin/server" "$dir.tmp/temporal-ui-server"
    rmdir "$dir.tmp/bin"
    rm -rf "$dir" && mv "$dir.tmp" "$dir"
  fi
  rm -rf "$tools/temporal-ui-server"
  ln -sfn "$dir" "$tools/temporal-ui-server"
}

# The SDK gives the test server 5 s to accept connections (a bound in its native core, not an
# option), and every workflow test file starts one. On one loaded core (taskset -c 0 beside the
# suite) the JVM alone took 8 s to open its port, so every such file failed. A class-data-sharing
# archive of the server's classes, dumped once here, and the client compiler only (test runs are
# short) open it in about 2 s there (measured 8.3 → 1.8 s). run.sh starts without the archive if
# it is missing or was made by another JVM (-Xshare:auto, the default, ignores it then).
write_test_server_wrapper() {
  cat > "$1/run.sh" <<'RUN'
#!/usr/bin/env bash
# Usage: run.sh <port>   (the Temporal time-skipping test server; classes.jsa: see ensure-tools.sh)
here="$(cd "$(dirname "$(readlink -f "$0")")" && pwd)"
cds=()
[ -f "$here/classes.jsa" ] && cds=(-XX:SharedArchiveFile="$here/classes.jsa" -Xlog:cds=off -Xlog:cds+dynamic=off)
exec java "${cds[@]}" -XX:TieredStopAtLevel=1 -cp "$here/lib/*" io.temporal.testserver.TestServer "$@"
RUN
  chmod +x "$1/run.sh"
}

# Starts the server once on a free loopback port, waits (up to 2 minutes) until it accepts, and
# stops it: the JVM writes the classes it loaded into classes.jsa as it exits.
dump_test_server_classes() {
  local dir="$1" port pid i
  for i in $(seq 50); do
    port=$((20000 + RANDOM % 20000))
    (echo > "/dev/tcp/127.0.0.1/$port") 2>/dev/null || break
  done
  rm -f "$dir/classes.jsa.tmp"
  java -XX:ArchiveClassesAtExit="$dir/classes.jsa.tmp" -Xlog:cds=off -Xlog:cds+dynamic=off -XX:TieredStopAtLevel=1 \
    -cp "$dir/lib/*" io.temporal.testserver.TestServer "$port" >/dev/null 2>&1 &
  pid=$!
  for i in $(seq 600); do
    (echo > "/dev/tcp/127.0.0.1/$port") 2>/dev/null && break
    kill -0 "$pid" 2>/dev/null || break
    sleep 0.2
  done
  sleep 1
  kill -TERM "$pid" 2>/dev/null || true
  wait "$pid" 2>/dev/null || true
  if [ -s "$dir/classes.jsa.tmp" ]; then mv "$dir/classes.jsa.tmp" "$dir/classes.jsa"; else rm -f "$dir/classes.jsa.tmp"; fi
}

ensure_test_server() {
  if [ -x "$tools/temporal-test-server/run.sh" ] && [ -f "$tools/temporal-test-server/classes.jsa" ]; then return 0; fi
  local dir="$cache/temporal-test-server-$TEST_SERVER_VERSION"
  if [ ! -d "$dir/lib" ]; then
    if ! command -v mvn >/dev/null 2>&1 || ! command -v java >/dev/null 2>&1; then
      echo "ensure-tools: Java and Maven are needed for the time-skipping test server." >&2
      exit 1
    fi
    echo "ensure-tools: resolving the Java time-skipping test server $TEST_SERVER_VERSION from Maven Central (first run only)..." >&2
    rm -rf "$dir.tmp" && mkdir -p "$dir.tmp"
    mvn -q -B -f "$root/tools/temporal-test-server/pom.xml" dependency:copy-dependencies \
      -DincludeScope=runtime -DoutputDirectory="$dir.tmp/lib" >&2
    rm -rf "$dir" && mv "$dir.tmp" "$dir"
  fi
  if [ ! -f "$dir/classes.jsa" ] || ! grep -q classes.jsa "$dir/run.sh" 2>/dev/null; then
    echo "ensure-tools: archiving the test server's classes for a fast start (once)..." >&2
    write_test_server_wrapper "$dir"
    dump_test_server_classes "$dir"
  fi
  rm -rf "$tools/temporal-test-server"
  ln -sfn "$dir" "$tools/temporal-test-server"
}

[ $# -gt 0 ] || set -- all
for want in "$@"; do
  case "$want" in
    cli) ensure_cli ;;
    test-server) ensure_test_server ;;
    server) ensure_server ;;
    ui) ensure_ui ;;
    all) ensure_cli; ensure_test_server; ensure_server; ensure_ui ;;
    *) echo "usage: ensure-tools.sh [cli|test-server|server|ui|all]..." >&2; exit 2 ;;
  esac
done

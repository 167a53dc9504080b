#!/usr/bin/env bash
# The OAP behaviour suite (../shared/vectors/oap-test-suite, run by node)
# against `aqlstore serve` on the demo corpus: a fresh store in a temp
# dir, a free loopback port. Fails on any failure not listed in KNOWN
# below, each of which docs/http.md explains. Skips, with a message, when
# node or the suite is absent.
set -euo pipefail
cd "$(dirname "$0")/.."

suite=../shared/vectors/oap-test-suite
if ! command -v node >/dev/null 2>&1 || [ ! -f "$suite/test-suite/runner.js" ]; then
  echo "oap-suite: skipped: it needs node and $suite"
  exit 0
fi
suite=$(cd "$suite" && pwd)

# Failures that cannot pass here; docs/http.md, "OAP behaviour suite", says why.
KNOWN=(
  nc-conformance-receipt-served
)

tmp=$(mktemp -d)
pid=
cleanup() {
  if [ -n "$pid" ]; then kill "$pid" 2>/dev/null || true; wait "$pid" 2>/dev/null || true; fi
  rm -rf "$tmp"
}
trap cleanup EXIT

go build -o "$tmp/aqlstore" ./cmd/aqlstore
"$tmp/aqlstore" --dir "$tmp/store" serve --addr 127.0.0.1:0 >"$tmp/serve.out" 2>"$tmp/serve.err" &
pid=$!

# The banner names the address once the server listens.
url=
for _ in $(seq 1 120); do
  url=$(grep -o 'http://127\.0\.0\.1:[0-9]*' "$tmp/serve.out" | head -n 1 || true)
  [ -n "$url" ] && break
  if ! kill -0 "$pid" 2>/dev/null; then
    echo "oap-suite: aqlstore serve exited:"; cat "$tmp/serve.out" "$tmp/serve.err"; exit 1
  fi
  sleep 0.5
done
if [ -z "$url" ]; then
  echo "oap-suite: aqlstore serve did not start in 60 s:"; cat "$tmp/serve.out"; exit 1
fi
echo "oap-suite: running the OAP behaviour suite against $url"

# The runnable copy keeps its npm dependencies beside the reference
# evaluator; NODE_PATH finds them without installing anything.
rc=0
(cd "$suite/test-suite" && NODE_PATH="$suite/reference/aql/node_modules" OAP_TARGET="$url" \
  node runner.js --only behavior) >"$tmp/report.txt" 2>&1 || rc=$?
if [ "$rc" -gt 1 ] || ! grep -q '^Overall: ' "$tmp/report.txt"; then
  echo "oap-suite: the runner failed (exit $rc):"; cat "$tmp/report.txt"; exit 1
fi

unexpected=0
while read -r name; do
  known=0
  for k in "${KNOWN[@]}"; do [ "$k" = "$name" ] && known=1; done
  if [ "$known" = 1 ]; then
    echo "oap-suite: known failure: $(grep -m1 "FAIL  $name" "$tmp/report.txt" | sed 's/^ *//')"
  else
    echo "oap-suite: FAILED: $(grep -m1 "FAIL  $name" "$tmp/report.txt" | sed 's/^ *//')"
    unexpected=1
  fi
done < <(awk '$1 == "FAIL" { print $2 }' "$tmp/report.txt")
for k in "${KNOWN[@]}"; do
  if grep -q "PASS  $k\b" "$tmp/report.txt"; then
    echo "oap-suite: $k now passes: take it off KNOWN in .ci/oap-suite.sh and docs/http.md"
  fi
done
grep '^Overall: ' "$tmp/report.txt" | sed 's/^/oap-suite: /'
exit "$unexpected"

#!/usr/bin/env bash
# The test suite's time: runs the README's test command (or reads the output of an earlier run)
# and prints the whole run's wall time and the 15 slowest suites and tests, as Swift Testing
# reports them. CONTRIBUTING.md's "Test suite time" table is this script's output.
#
#   scripts/suite-times.sh                 # runs the tests (with nothing else running)
#   scripts/suite-times.sh saved-output    # reads a saved `swift test` output instead
#
# Swift Testing runs every suite at once on a pool of one thread per core, so a suite's time is
# from its start to its last test's end, waiting for the pool included: on 2 cores most of an
# async suite's time is its turn in the queue, not its own work.
set -euo pipefail
cd "$(dirname "$0")/.."

if [ $# -gt 0 ]; then
    output=$1
else
    output=$(mktemp)
    trap 'rm -f "$output"' EXIT
    start=$(date +%s)
    CI=true ${SWIFT_TEST:-swift test -c release} > "$output" 2>&1 || { tail -40 "$output"; echo "the tests failed" >&2; exit 1; }
    echo "wall time of the run: $(($(date +%s) - start)) s"
fi

grep -a "Test run with" "$output" | tail -1
echo
echo "15 slowest suites (seconds from start to last test):"
grep -a '^✔ Suite .* passed after\|^✘ Suite .* failed after' "$output" |
    sed -E 's/^. Suite (.*) (passed|failed) after ([0-9.]+) seconds.*/\3 \1/' | sort -rn | head -15 |
    awk '{ printf "| %s | %.0f |\n", $2, $1 }'
echo
echo "15 slowest tests:"
grep -a '^✔ Test .* passed after\|^✘ Test .* failed after' "$output" | grep -av 'Test run with' |
    sed -E 's/^. Test (.*) (passed|failed) after ([0-9.]+) seconds.*/\3 \1/' | sort -rn | head -15 |
    awk '{ seconds = $1; $1 = ""; printf "| %s | %.0f |\n", substr($0, 2), seconds }'

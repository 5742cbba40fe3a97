#!/usr/bin/env bash
# Predicate fuzzing (issue 23): runs N seeded predicates, generated from the real values of every
# corpus store with a model cache, through the fetch path and through the independent oracle
# (Tests/CDTestSupport/PredicateDifferential.swift), exactly as the differential suite does.
#
#   scripts/fuzz-predicates.sh N [SEED]        (or CDSTORE_FUZZ_SEED=SEED scripts/fuzz-predicates.sh N)
#
# Prints each mismatch (shrunk, with store, entity, expected and fetched object IDs and the SQL),
# each unexplained coreDataSQL/nsPredicate difference, metamorphic failure or crash, then one
# summary line. Exits non-zero on any of them. The same seed replays the same predicates.
# The first 30 mismatches are shrunk (CDSTORE_FUZZ_SHRINK=N changes that); CDSTORE_FUZZ_STORES=TEXT
# keeps only the corpus stores whose path contains TEXT.
set -euo pipefail
cd "$(dirname "$0")/.."

cases="${1:?usage: scripts/fuzz-predicates.sh N [SEED]}"
seed="${2:-${CDSTORE_FUZZ_SEED:-$(( (RANDOM << 16 | RANDOM) + 1 ))}}"
echo "fuzz-predicates: seed $seed, $cases predicates"

swift build --build-tests >/dev/null
log="$(mktemp)"
trap 'rm -f "$log"' EXIT
status=0
CDSTORE_FUZZ_SEED="$seed" CDSTORE_FUZZ_PREDICATES="$cases" \
    swift test --skip-build --filter PredicateDifferentialFuzzSlowTests >"$log" 2>&1 || status=$?
# The reproductions and the summary; a crash shows as a test run that ends without one.
sed -n '/^MISMATCH\|^  \|^predicate fuzz\|^[^ ].* where \|Fatal error\|Crash\|signal/p' "$log"
if ! grep -q '^predicate fuzz' "$log"; then
    echo "fuzz-predicates: the run ended without a summary (crash?); last lines:"
    tail -20 "$log"
    exit 1
fi
if [ "$status" -ne 0 ]; then
    echo "fuzz-predicates: failures found (seed $seed); see above"
    exit "$status"
fi
echo "fuzz-predicates: no mismatch and no crash in $cases predicates (seed $seed)"

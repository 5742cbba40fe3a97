#!/usr/bin/env bash
# Store-mutation fuzzing: runs the mutations of Tests/CDCommandsTests/StoreMutationFuzzTests.swift
# N times on copies of corpus stores and reports any case where a reading command crashed.
#
#   scripts/fuzz.sh N [SEED]        (or CDSTORE_FUZZ_SEED=SEED scripts/fuzz.sh N)
#
# Prints the seed, and for each crash the mutation and a command that reproduces it on the
# mutated store, which is kept under .build/fuzz-crashes/. The same seed replays the same cases.
set -euo pipefail
cd "$(dirname "$0")/.."

cases="${1:?usage: scripts/fuzz.sh N [SEED]}"
seed="${2:-${CDSTORE_FUZZ_SEED:-$(( (RANDOM << 16 | RANDOM) + 1 ))}}"
keep="$PWD/.build/fuzz-crashes"
echo "fuzz: seed $seed, $cases cases; crashing stores are kept in $keep"

swift build --build-tests >/dev/null
status=0
CDSTORE_FUZZ_SEED="$seed" CDSTORE_FUZZ_CASES="$cases" CDSTORE_FUZZ_KEEP="$keep" \
    swift test --skip-build --filter StoreMutationFuzzTests 2>&1 \
    | grep -E "store mutation fuzz|Test run" || status=$?
if compgen -G "$keep/seed$seed-case*" >/dev/null; then
    echo "fuzz: crashes found (seed $seed); see above"
    exit 1
fi
echo "fuzz: no crash in $cases cases (seed $seed)"
exit "$status"

#!/usr/bin/env bash
# Builds the sample stores in Samples/Stores/ from the ruby-xcdm schemas in Samples/schemas/ and
# the hand-written seeds in Samples/seeds/, with `cdstore create --import`:
#
#   Samples/Stores/<App>.sqlite        every app, from its current (latest) schema version
#   Samples/Stores/Articles-0001.sqlite  Articles at version "0001 initial", for the compat demo
#
# Only those files are removed and written. Runs `swift run cdstore` from the repository, or the
# binary named by CDSTORE (CDSTORE=.build/release/cdstore scripts/build-samples.sh).
set -euo pipefail

cd -- "$(dirname -- "${BASH_SOURCE[0]}")/.."
stores=Samples/Stores
apps=(TaskList Articles FailedBank Employees ToDo)

cdstore() {
    if [[ -n ${CDSTORE:-} ]]; then
        "$CDSTORE" "$@"
    else
        swift run --quiet cdstore "$@"
    fi
}

# build STORE SCHEMA SEED [create options…]: replace STORE (and any -wal, -shm or -journal of it).
build() {
    local store=$1 schema=$2 seed=$3
    shift 3
    rm -f -- "$store" "$store-wal" "$store-shm" "$store-journal"
    cdstore create "$store" --model "$schema" --import "$seed" "$@"
}

mkdir -p -- "$stores"
for app in "${apps[@]}"; do
    build "$stores/$app.sqlite" "Samples/schemas/$app" "Samples/seeds/$app.json"
done
build "$stores/Articles-0001.sqlite" Samples/schemas/Articles Samples/seeds/Articles-0001.json --version "0001 initial"

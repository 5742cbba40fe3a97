#!/usr/bin/env bash
# Benchmarks `cdstore find` on a generated CoreSimulator-shaped tree of 1,000 stores.
#
#   scripts/bench-find.sh
#
# The tree: 20 devices (device.plist), 50 app containers each (container metadata plist), one
# store per container (copies of small corpus stores, every fifth one a WAL store with its
# data in the -wal, every seventh one with no .sqlite extension), plus non-store files beside
# them (a plain SQLite database, text, images). The goal: the whole tree in 2 s or less.
#
# Environment knobs (all optional):
#   BENCH_STORES=1000      stores in the tree
#   BENCH_RUNS=5           timed runs
#   BENCH_WARMUP=1         untimed runs before the timed ones
#   BENCH_SKIP_BUILD=1     reuse the binary already in .build-bench
#   BENCH_NO_INSTALL=1     never apt-get install hyperfine / time
#   CDSTORE_CORPUS=DIR     corpus location (default: ../shared/corpus from the repo root)
set -euo pipefail

script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/bench-common.sh
source "$script_dir/bench-common.sh"

bench_init bench-find 5 1
stores=${BENCH_STORES:-1000}
[[ $stores =~ ^[1-9][0-9]*$ ]] || die "BENCH_STORES must be a positive integer"
bench_tools
bench_build

log "Generating a tree of $stores stores in $tmp_dir/Devices"
sources=(
    "cdplus-samplemodel/SampleModel_V1.sqlite"
    "apple-coredatabooks/CoreDataBooks.sqlite"
    "bookmigration/Model1.sqlite"
    "wibosco-revised/CoreDataMigration_Example_1.sqlite"
)
wal_source="wibosco-migration/CoreDataMigration_Example_WAL.sqlite"
plain_db=$tmp_dir/plain.sqlite
sql "$plain_db" 'CREATE TABLE t (x); INSERT INTO t VALUES (1);'
per_device=50
devices=$(((stores + per_device - 1) / per_device))
made=0
for ((d = 0; d < devices; d++)); do
    udid=$(printf '00000000-0000-4000-8000-%012d' "$d")
    device=$tmp_dir/Devices/$udid
    mkdir -p "$device"
    printf '<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0"><dict><key>name</key><string>iPhone %d</string><key>runtime</key><string>com.apple.CoreSimulator.SimRuntime.iOS-17-%d</string><key>UDID</key><string>%s</string></dict></plist>\n' \
        "$d" "$((d % 5))" "$udid" >"$device/device.plist"
    for ((a = 0; a < per_device && made < stores; a++, made++)); do
        app=$device/data/Containers/Data/Application/$(printf 'A0000000-0000-4000-8000-%06d%06d' "$d" "$a")
        support=$app/Library/Application\ Support
        mkdir -p "$support" "$app/Library/Caches" "$app/Documents"
        printf '<?xml version="1.0" encoding="UTF-8"?>\n<plist version="1.0"><dict><key>MCMMetadataIdentifier</key><string>com.example.app%d</string></dict></plist>\n' \
            "$a" >"$app/.com.apple.mobile_container_manager.metadata.plist"
        name=Model.sqlite
        ((made % 7 == 0)) && name=Model.store
        if ((made % 5 == 0)); then
            src=$corpus/$wal_source
            cp -- "$src" "$support/$name"
            cp -- "$src-wal" "$support/$name-wal"
        else
            cp -- "$corpus/${sources[made % ${#sources[@]}]}" "$support/$name"
        fi
        cp -- "$plain_db" "$app/Library/Caches/cache.db"
        printf 'not a store\n' >"$app/Documents/notes.txt"
        head -c 4096 /dev/urandom >"$app/Documents/photo.jpg"
    done
done
chmod -R u+w -- "$tmp_dir/Devices"

log "Checking the result"
found=$("$cdstore" find "$tmp_dir/Devices" --json | awk '/"path" :/ { n++ } END { print n + 0 }')
[[ $found == "$stores" ]] || die "find reported $found stores, expected $stores"
echo "find reports all $found stores"

log "Timing: cdstore find on $stores stores (goal: 2 s or less)"
if ((have_hyperfine)); then
    hyperfine --warmup "$warmup" --runs "$runs" "$(q "$cdstore") find $(q "$tmp_dir/Devices") >/dev/null"
else
    for ((i = 0; i < warmup; i++)); do "$cdstore" find "$tmp_dir/Devices" >/dev/null; done
    for ((i = 0; i < runs; i++)); do
        start=$(date +%s.%N)
        "$cdstore" find "$tmp_dir/Devices" >/dev/null
        end=$(date +%s.%N)
        awk -v s="$start" -v e="$end" 'BEGIN { printf "run: %.3f s\n", e - s }'
    done
fi

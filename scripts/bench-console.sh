#!/usr/bin/env bash
# Benchmarks the start-up of `cdstore console` on the two million-row stores of
# bench-inspect.sh: from launch to the first prompt, and a session that only
# completes names (which must not read the database).
#
#   scripts/bench-console.sh
#
# Environment knobs (all optional):
#   BENCH_ROWS=1000000     rows added to each store
#   BENCH_RUNS=10          timed runs per command
#   BENCH_WARMUP=2         untimed runs before the timed ones
#   BENCH_SKIP_BUILD=1     reuse the binary already in .build-bench
#   BENCH_FRESH_STORES=1   rebuild Benchmarks/work even when its stores fit
#   BENCH_NO_INSTALL=1     never apt-get install hyperfine / time
#   CDSTORE_CORPUS=DIR     corpus location (default: ../shared/corpus from the repo root)
#
# Goal (printed as PASS/MISS; a MISS does not change the exit status): start-up
# to the first prompt <= 100 ms. See Benchmarks/README.md for what is measured.
set -euo pipefail

script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/bench-common.sh
source "$script_dir/bench-common.sh"

goal_ms=100

bench_init bench-console 10 2
bench_tools
bench_build

bench_prepare_stores
bench_check_stores

# --------------------------------------------------------------------------
# Cases. "start-up" is a session whose script is empty: the private snapshot,
# the model decode and the fetch runner, then the exit (which removes the
# snapshot); that is what stands between launch and the first prompt. "help"
# adds one dot-command that touches nothing. "count" runs one query, for scale.
# `inspect --no-counts` opens the store the same way, for comparison.
# --------------------------------------------------------------------------
time_console() {
    local label=$1 db=$2 entity=$3
    log "Timing $label (${db#"$repo_root"/})"
    time_cases "$label" \
        start-up "$(q "$cdstore") console $(q "$db") </dev/null >/dev/null" \
        help "$(q "$cdstore") console $(q "$db") -c .help >/dev/null" \
        count "$(q "$cdstore") console $(q "$db") -c $(q "$entity.count") >/dev/null" \
        inspect-no-counts "$(q "$cdstore") inspect $(q "$db") --no-counts >/dev/null"
}
labels=(posts books)
time_console posts "$post_db" Post
time_console books "$book_db" Book

log "Summary ($(nproc) cores, sqlite3 $(sqlite3 --version | cut -d' ' -f1), mean of $runs runs after $warmup warmup)"
{
    echo "| store | case | mean ms | ± ms | goal |"
    echo "|---|---|---|---|---|"
    for label in "${labels[@]}"; do
        for name in start-up help count inspect-no-counts; do
            verdict=""
            if [[ $name == start-up ]]; then
                verdict=$(awk -v m="${mean_ms[$label/$name]}" -v g="$goal_ms" 'BEGIN { print (m <= g) ? "PASS (<= " g " ms)" : "MISS (> " g " ms)" }')
            fi
            echo "| $label | $name | ${mean_ms[$label/$name]} | ${sd_ms[$label/$name]} | $verdict |"
        done
    done
} | tee "$work/console-summary.md"

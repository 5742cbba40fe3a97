#!/usr/bin/env bash
# Benchmarks `cdstore inspect` on two Core Data stores grown to a million rows.
#
#   scripts/bench-inspect.sh
#
# Environment knobs (all optional):
#   BENCH_ROWS=1000000     rows added to each store
#   BENCH_RUNS=10          timed runs per command
#   BENCH_WARMUP=2         untimed runs before the timed ones
#   BENCH_SKIP_BUILD=1     reuse the binary already in .build-bench
#   BENCH_NO_INSTALL=1     never apt-get install hyperfine / time
#   CDSTORE_CORPUS=DIR     corpus location (default: ../shared/corpus from the repo root)
#
# See Benchmarks/README.md for what is measured.
set -euo pipefail

script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/bench-common.sh
source "$script_dir/bench-common.sh"

bench_init bench-inspect 10 2
bench_tools                  # 0. hyperfine, GNU time
bench_build                  # 1. release build in .build-bench
bench_create_stores          # 2. Benchmarks/work/{Posts,Books}.sqlite, rebuilt every time
bench_check_stores           #    quick_check, row counts, cdstore inspect, sizes

# --------------------------------------------------------------------------
# 3. Timing.
# --------------------------------------------------------------------------
declare -A rss_mib=()
peak_rss() {
    local label=$1 db=$2 out
    if ((have_time)); then
        out=$("$gnu_time" -v "$cdstore" inspect "$db" 2>&1 >/dev/null) || die "inspect failed under $gnu_time"
        rss_mib[$label]=$(awk -F: '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' <<<"$out")
    else
        rss_mib[$label]=n/a
    fi
}

labels=(posts books)
declare -A store_of=([posts]=$post_db [books]=$book_db)
declare -A table_of=([posts]=ZPOST [books]=ZBOOK)
for label in "${labels[@]}"; do
    db=${store_of[$label]}
    log "Timing $label (${db#"$repo_root"/})"
    time_cases "$label" \
        inspect "$(q "$cdstore") inspect $(q "$db") >/dev/null" \
        no-counts "$(q "$cdstore") inspect $(q "$db") --no-counts >/dev/null" \
        json "$(q "$cdstore") inspect $(q "$db") --json >/dev/null" \
        cp "cp $(q "$db") $(q "$tmp_dir/copy.sqlite")"
    peak_rss "$label" "$db"
    echo "peak RSS of one 'inspect' (counts on): ${rss_mib[$label]} MiB"
done

# --------------------------------------------------------------------------
# 4. Summary.
# --------------------------------------------------------------------------
log "Summary ($(nproc) cores, $(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || echo unknown CPU), sqlite3 $(sqlite3 --version | cut -d' ' -f1), mean of $runs runs after $warmup warmup)"
{
    printf '| %-6s | %-5s | %9s | %9s | %13s | %16s | %13s | %8s | %13s |\n' \
        store table rows 'size MiB' 'counts-on ms' 'no-counts ms' 'json ms' 'cp ms' 'peak RSS MiB'
    printf '|%s|%s|%s|%s|%s|%s|%s|%s|%s|\n' \
        "--------" "-------" "-----------" "-----------" "---------------" "------------------" "---------------" "----------" "---------------"
    for label in "${labels[@]}"; do
        db=${store_of[$label]}
        table=${table_of[$label]}
        n=$(sql "$db" "SELECT COUNT(*) FROM $table;")
        # '±' is two bytes but one column: widths of those cells are one larger.
        printf '| %-6s | %-5s | %9s | %9s | %14s | %17s | %14s | %8s | %13s |\n' \
            "$label" "$table" "$n" "$(mib "$(size_of "$db")")" \
            "${mean_ms[$label/inspect]} ± ${sd_ms[$label/inspect]}" \
            "${mean_ms[$label/no-counts]} ± ${sd_ms[$label/no-counts]}" \
            "${mean_ms[$label/json]} ± ${sd_ms[$label/json]}" \
            "${mean_ms[$label/cp]}" "${rss_mib[$label]}"
    done
} | tee "$work/summary.md"
echo
echo "summary written to ${work#"$repo_root"/}/summary.md"

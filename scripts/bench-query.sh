#!/usr/bin/env bash
# Benchmarks string predicates: `cdstore query ... --count` against the sqlite3 CLI counting the
# same rows with SQLite's own functions, on the million-row Posts store of bench-inspect.sh.
#
#   scripts/bench-query.sh
#
# Environment knobs: those of bench-dump.sh (BENCH_ROWS, BENCH_RUNS, BENCH_WARMUP,
# BENCH_SKIP_BUILD, BENCH_FRESH_STORES, BENCH_NO_INSTALL, CDSTORE_CORPUS).
#
# Goal (printed as PASS/MISS; a MISS does not change the exit status): cdstore/sqlite3 time
# ratio <= 1.5 for every case. The script stops with an error when the two counts differ.
set -euo pipefail

script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/bench-common.sh
source "$script_dir/bench-common.sh"

goal=1.5

bench_init bench-query 5 1
bench_tools
bench_build
revision=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
bench_prepare_stores
store_entities

# Each case: a predicate on Post.postID (ZPOSTID, an uppercase UUID string in the new rows)
# and the sqlite3 condition that selects the same rows. The first is the issue's case; "ab"
# never occurs in an uppercase UUID, so it also shows the cost of a scan that matches nothing.
cases=(contains contains-c beginswith endswith-c like equals)
declare -A predicate_of=(
    [contains]='postID CONTAINS "ab"'
    [contains-c]='postID CONTAINS[c] "ab"'
    [beginswith]='postID BEGINSWITH "AB"'
    [endswith-c]='postID ENDSWITH[c] "0f"'
    [like]='postID LIKE "*A?C*"'
    [equals]='postID == "not-there"'
)
declare -A condition_of=(
    [contains]="instr(ZPOSTID, 'ab') > 0"
    [contains-c]="instr(lower(ZPOSTID), 'ab') > 0"
    [beginswith]="substr(ZPOSTID, 1, 2) = 'AB'"
    [endswith-c]="lower(substr(ZPOSTID, -2)) = '0f'"
    [like]="ZPOSTID GLOB '*A?C*'"
    [equals]="ZPOSTID = 'not-there'"
)

declare -A ratio=() verdict=()
for c in "${cases[@]}"; do
    cd_cmd="$(q "$cdstore") query $(q "$post_db") $(q "Post where ${predicate_of[$c]}") --count"
    sq_sql="SELECT count(*) FROM ZPOST WHERE Z_ENT = $post_ent AND ${condition_of[$c]}"
    sq_cmd="sqlite3 $(q "$post_db") $(q "$sq_sql")"
    cd_count=$(eval "$cd_cmd" | tail -1 | tr -dc '0-9')
    sq_count=$(eval "$sq_cmd")
    log "$c: Post where ${predicate_of[$c]}  |  $sq_sql  ($cd_count rows)"
    [[ $cd_count == "$sq_count" ]] || die "$c: cdstore counted $cd_count, sqlite3 $sq_count"
    time_interleaved "$c" cdstore "$cd_cmd >/dev/null" sqlite3 "$sq_cmd >/dev/null"
    ratio[$c]=${ratio_of[$c]}
    verdict[$c]=$(awk -v r="${ratio[$c]}" -v g="$goal" 'BEGIN { print (r <= g) ? "PASS" : "MISS" }')
done

log "Summary"
{
    echo "## cdstore query --count vs sqlite3 ($(date -u +%Y-%m-%d), cdstore $revision, $runs rounds; ratio: median of the per-round ratios)"
    echo
    echo "| case | cdstore ms (min/median/max) | sqlite3 ms (min/median/max) | ratio | goal |"
    echo "|---|---:|---:|---:|---|"
    for c in "${cases[@]}"; do
        echo "| \`${predicate_of[$c]}\` | ${min_ms[$c/cdstore]}/${median_ms[$c/cdstore]}/${max_ms[$c/cdstore]}" \
             "| ${min_ms[$c/sqlite3]}/${median_ms[$c/sqlite3]}/${max_ms[$c/sqlite3]} | ${ratio[$c]}× | ≤ ${goal}× ${verdict[$c]} |"
    done
} | tee "$work/query-summary.md"
# One line per case for bench-scale.sh: case, ratio, goal, cdstore and sqlite3 min/median/max ms.
for c in "${cases[@]}"; do
    printf '%s\t%s\t%s\t%s\t%s\n' "$c" "${ratio[$c]}" "$goal" \
        "${min_ms[$c/cdstore]}/${median_ms[$c/cdstore]}/${max_ms[$c/cdstore]}" \
        "${min_ms[$c/sqlite3]}/${median_ms[$c/sqlite3]}/${max_ms[$c/sqlite3]}"
done >"$work/query-results.tsv"

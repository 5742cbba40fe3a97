#!/usr/bin/env bash
# Issue 17's scale table in one run: `inspect --no-counts` on a 1.4 GB store against the same
# command on the 1M-row Posts store (and the largest temporary file cdstore made meanwhile),
# then the dump and query cases of bench-dump.sh and bench-query.sh against the sqlite3 CLI, and
# prints the issue's whole table (ratio, min/median/max, peak memory, PASS/MISS).
#
#   scripts/bench-scale.sh
#
# Environment knobs (all optional), besides those of bench-common.sh:
#   BENCH_BIG_ROWS=21000000   rows added to a copy of Posts.sqlite for the big store
#   BENCH_RUNS=5              timed runs per command
#
# Goals (PASS/MISS; a MISS does not change the exit status): the big store's inspect within
# 1.5x of the Posts store's; no temporary file over 1 MiB. The other goals are printed by the
# scripts it runs.
set -euo pipefail

script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/bench-common.sh
source "$script_dir/bench-common.sh"

bench_init bench-scale 5 1
bench_tools
[[ $have_hyperfine == 1 ]] || die "hyperfine is required (Debian: apt-get install hyperfine)"
bench_build
bench_prepare_stores

big_rows=${BENCH_BIG_ROWS:-21000000}
big_db=$work/Big.sqlite
if [[ ! -f $big_db || $(sql "$big_db" "SELECT COUNT(*) FROM ZPOST;" 2>/dev/null || echo 0) -lt $big_rows ]]; then
    log "Growing a copy of Posts.sqlite by $big_rows rows into ${big_db#"$repo_root"/}"
    rm -f -- "$big_db" "$big_db-wal" "$big_db-shm"
    cp -- "$post_db" "$big_db"
    store_entities
    first=$(next_pk "$big_db" ZPOST "$post_ent")
    bulk_insert "$big_db" ZPOST "$post_ent" "
WITH RECURSIVE seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i + 1 < $big_rows)
INSERT INTO ZPOST (Z_PK, Z_ENT, Z_OPT, ZCOLOR, ZDATE, ZPOSTID)
SELECT $first + i, $post_ent, 1, NULL, 500000000 + i, hex(randomblob(16)) FROM seq;"
fi
echo "Posts: $(mib "$(size_of "$post_db")") MiB, big: $(mib "$(size_of "$big_db")") MiB"

# stats NAME: min/median/max in ms of hyperfine's JSON export $tmp_dir/NAME.json.
stats() {
    python3 - "$tmp_dir/$1.json" <<'EOF'
import json, statistics, sys
times = sorted(t * 1000 for t in json.load(open(sys.argv[1]))["results"][0]["times"])
print(f"{times[0]:.1f} {statistics.median(times):.1f} {times[-1]:.1f}")
EOF
}

log "inspect --no-counts"
for name in posts big; do
    db=$post_db; [[ $name == big ]] && db=$big_db
    hyperfine -N --style none --runs "$runs" --warmup "$warmup" --export-json "$tmp_dir/$name.json" \
        "$cdstore inspect $db --no-counts" >/dev/null
    read -r min median max < <(stats "$name")
    declare "min_$name=$min" "median_$name=$median" "max_$name=$max"
    echo "$name: min $min ms, median $median ms, max $max ms"
done

# The largest temporary file: cdstore runs with its own TMPDIR, sampled every 5 ms.
probe=$tmp_dir/probe
mkdir -p -- "$probe"
largest=0
TMPDIR=$probe "$cdstore" inspect "$big_db" --no-counts >/dev/null &
pid=$!
while kill -0 "$pid" 2>/dev/null; do
    size=$(find "$probe" -type f -printf '%s\n' 2>/dev/null | sort -n | tail -1)
    (( ${size:-0} > largest )) && largest=${size:-0}
    sleep 0.005
done
wait "$pid"

ratio=$(awk -v b="$median_big" -v p="$median_posts" 'BEGIN { printf "%.2f", b / p }')
verdict() { awk -v r="$1" -v g="$2" 'BEGIN { print (r + 0 <= g + 0 ? "PASS" : "MISS") }'; }

for script in bench-dump.sh bench-query.sh; do
    log "$script (full output in Benchmarks/work/${script%.sh}.log)"
    BENCH_SKIP_BUILD=1 BENCH_RUNS=$runs BENCH_WARMUP=$warmup "$script_dir/$script" >"$work/${script%.sh}.log" 2>&1 \
        || die "$script failed; see Benchmarks/work/${script%.sh}.log"
    grep -E 'PASS|MISS' "$work/${script%.sh}.log" | grep -v '^|' || true
done

# result FILE CASE: the tab-separated fields of CASE in a results file of the two scripts.
result() { awk -F'\t' -v c="$2" '$1 == c' "$work/$1"; }
IFS=$'\t' read -r _ desc_ratio desc_goal desc_cd desc_sq _ < <(result dump-results.tsv posts-description)
IFS=$'\t' read -r _ tmpl_ratio tmpl_goal tmpl_cd tmpl_sq _ < <(result dump-results.tsv posts-template)
IFS=$'\t' read -r _ json_ratio json_goal json_cd json_sq _ < <(result dump-results.tsv posts-ndjson)
IFS=$'\t' read -r _ books_ratio books_goal books_cd books_sq _ < <(result dump-results.tsv books-ndjson)
IFS=$'\t' read -r _ cont_ratio cont_goal cont_cd cont_sq < <(result query-results.tsv contains)
peak_rss=$(awk -F'\t' '$6 + 0 > m { m = $6 + 0 } END { printf "%.1f", m }' "$work/dump-results.tsv")

log "Summary"
{
    echo "## Issue 17's table ($(date -u +%Y-%m-%d), cdstore $(git rev-parse --short HEAD 2>/dev/null || echo unknown), $(nproc) cores, sqlite3 $(sqlite3 --version | cut -d' ' -f1), $runs runs after $warmup warmup, load $(cut -d' ' -f1-3 /proc/loadavg))"
    echo
    echo "| case | now | min/median/max ms (cdstore; other) | goal | |"
    echo "|---|---|---|---|---|"
    echo "| \`inspect --no-counts\`, $(mib "$(size_of "$big_db")") MiB store vs $(mib "$(size_of "$post_db")") MiB | ${ratio}× | $min_big/$median_big/$max_big; $min_posts/$median_posts/$max_posts | ≤ 1.5× | $(verdict "$ratio" 1.5) |"
    echo "| largest temporary file during that inspect | $largest bytes | | ≤ 1 MiB | $(verdict "$largest" 1048576) |"
    echo "| \`dump Post --format description\` vs \`sqlite3 -line\` | ${desc_ratio}× | $desc_cd; $desc_sq | ≤ ${desc_goal}× | $(verdict "$desc_ratio" "$desc_goal") |"
    echo "| \`dump Post --template \"{postID} {date}\"\` vs \`sqlite3 -line\` | ${tmpl_ratio}× | $tmpl_cd; $tmpl_sq | ≤ ${tmpl_goal}× | $(verdict "$tmpl_ratio" "$tmpl_goal") |"
    echo "| \`query 'Post where postID CONTAINS \"ab\"' --count\` vs \`sqlite3\` \`instr\` | ${cont_ratio}× | $cont_cd; $cont_sq | ≤ ${cont_goal}× | $(verdict "$cont_ratio" "$cont_goal") |"
    echo "| \`dump Post --format ndjson\` vs \`sqlite3 -json\` | ${json_ratio}× | $json_cd; $json_sq | ≤ ${json_goal}× | $(verdict "$json_ratio" "$json_goal") |"
    echo "| \`dump Book --format ndjson\` (Book + GraphicNovel) vs \`sqlite3 -json\` | ${books_ratio}× | $books_cd; $books_sq | ≤ ${books_goal}× | $(verdict "$books_ratio" "$books_goal") |"
    echo "| peak memory of any dump (5 cases, 1M objects each) | $peak_rss MiB | | ≤ 64 MiB | $(verdict "$peak_rss" 64) |"
} | tee "$work/scale-summary.md"
echo
echo "table saved to Benchmarks/work/scale-summary.md; per-script tables in Benchmarks/work/{dump,query}-summary.md"

#!/usr/bin/env bash
# Issue 17's scale table in one run: `inspect --no-counts` on a 1.4 GB store against the same
# command on the 1M-row Posts store (and the largest temporary file cdstore made meanwhile),
# then the dump and query cases of bench-dump.sh and bench-query.sh against the sqlite3 CLI.
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
cp -- "$cdstore" "$tmp_dir/cdstore"
cdstore=$tmp_dir/cdstore
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
verdict() { awk -v r="$1" -v g="$2" 'BEGIN { print (r <= g ? "PASS" : "MISS") }'; }
log "Summary"
{
    echo "| case | now | goal | |"
    echo "|---|---|---|---|"
    echo "| inspect --no-counts, $(mib "$(size_of "$big_db")") MiB vs $(mib "$(size_of "$post_db")") MiB store (median ms, min–max) | ${ratio}× ($median_big vs $median_posts; $min_big–$max_big) | ≤ 1.5× | $(verdict "$ratio" 1.5) |"
    echo "| largest temporary file during that inspect | $largest bytes | ≤ 1 MiB | $(verdict "$largest" 1048576) |"
} | tee "$work/scale-summary.md"

for script in bench-dump.sh bench-query.sh; do
    if [[ -x $script_dir/$script ]]; then
        log "$script"
        BENCH_SKIP_BUILD=1 BENCH_RUNS=$runs BENCH_WARMUP=$warmup "$script_dir/$script" | grep -E 'PASS|MISS|ratio' || true
    fi
done

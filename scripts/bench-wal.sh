#!/usr/bin/env bash
# Benchmarks `cdstore wal --changes` and `--as-of` (issue 36):
#
#   1. the million-row Posts store of bench-inspect.sh, copied and given 100 one-row commits in
#      its -wal (updates, inserts and deletes of one Post each, written by Python's sqlite3 with
#      checkpoints off): `wal --changes` of all 100 against one `dump Post --format ndjson` of
#      that store. Goal: <= 0.25x.
#   2. the 22M-row store of bench-serve.sh (Benchmarks/work/Serve.sqlite, made here when missing
#      or different), copied and given 3 commits in its -wal: opening it as of commit 2 (`query --entity Post --limit 1 --as-of 2`)
#      against opening it plainly (the same query without --as-of). Goal: <= 1.5x.
#
#   scripts/bench-wal.sh
#
# Environment knobs (all optional): those of bench-common.sh (BENCH_ROWS, BENCH_RUNS,
# BENCH_WARMUP, BENCH_SKIP_BUILD, BENCH_NO_INSTALL, CDSTORE_CORPUS) and BENCH_SERVE_ROWS
# (22000000: the rows of part 2's store).
#
# The script checks first that `wal --changes` reports exactly one changed Post in each of the
# 100 commits, found from the commit's pages.
set -euo pipefail

script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/bench-common.sh
source "$script_dir/bench-common.sh"

goal_changes=0.25
goal_as_of=1.5

bench_init bench-wal 5 1
command -v python3 >/dev/null || die "python3 is required (it writes the commits)"
bench_tools
bench_build
bench_revision
bench_prepare_stores
bench_check_stores
store_entities

# commit_rows DB COMMITS: COMMITS one-row transactions on DB in WAL mode, checkpoints off; the
# process then ends without closing the connection, so SQLite leaves every frame in the -wal.
# Core Data's triggers call functions only Core Data has: they are dropped first (and the drop
# checkpointed into the main file), as bulk_insert does.
commit_rows() {
    local db=$1 commits=$2 table=$3 ent=$4
    sql "$db" "SELECT 'DROP TRIGGER \"' || replace(name, '\"', '\"\"') || '\";' FROM sqlite_master WHERE type = 'trigger';" | sql "$db" >/dev/null
    sql "$db" 'PRAGMA journal_mode = WAL; PRAGMA wal_checkpoint(TRUNCATE);' >/dev/null
    python3 - "$db" "$commits" "$table" "$ent" <<'PY'
import os, random, sqlite3, sys
path, commits, table, ent = sys.argv[1], int(sys.argv[2]), sys.argv[3], int(sys.argv[4])
random.seed(36)
db = sqlite3.connect(path, isolation_level=None)
db.execute("PRAGMA wal_autocheckpoint = 0")
low, high = db.execute(f"SELECT MIN(Z_PK), MAX(Z_PK) FROM {table}").fetchone()
for n in range(commits):
    db.execute("BEGIN")
    kind = n % 3
    if kind == 0:
        db.execute(f"UPDATE {table} SET Z_OPT = Z_OPT + 1, ZDATE = ZDATE + 1 WHERE Z_PK = ?", (random.randint(low, high),))
    elif kind == 1:
        high += 1
        db.execute(f"INSERT INTO {table} (Z_PK, Z_ENT, Z_OPT, ZDATE, ZPOSTID) VALUES (?, ?, 1, 600000000, ?)", (high, ent, f"new {n}"))
    else:
        db.execute(f"DELETE FROM {table} WHERE Z_PK = ?", (random.randint(low, high - 10),))
    if db.total_changes == 0:
        sys.exit("a commit changed nothing")
    db.execute("COMMIT")
os._exit(0)
PY
}

log "Posts with 100 one-row commits in its -wal"
post_wal=$tmp_dir/PostsWAL.sqlite
copy_store "$post_db" "$post_wal"
commit_rows "$post_wal" 100 ZPOST "$post_ent"
echo "-wal: $(mib "$(size_of "$post_wal-wal")") MiB"
"$cdstore" wal "$post_wal" --changes --json --limit 0 | python3 -c '
import json, sys
report = json.load(sys.stdin)
commits = report["commits"]
assert len(commits) == 100, len(commits)
for commit in commits:
    counts = [(e["entity"], e["deleted"] + e["inserted"] + e["updated"]) for e in commit["data"]]
    assert commit["comparedBy"] == "pages", commit
    assert counts == [("Post", 1)], (commit["number"], counts)
print("wal --changes: 100 commits, one Post each, every one found from its pages")'

changes_cmd="$(q "$cdstore") wal $(q "$post_wal") --changes --limit 1"
dump_cmd="$(q "$cdstore") dump $(q "$post_wal") Post --format ndjson"
log "Timing wal --changes against dump"
time_interleaved changes changes "$changes_cmd >/dev/null" dump "$dump_cmd >/dev/null"
changes_ratio=${ratio_of[changes]}
echo "wal --changes / dump: $changes_ratio (goal <= $goal_changes: $(pass_miss "$changes_ratio" "$goal_changes"))"

serve_db=$work/Serve.sqlite
bench_serve_store "$serve_db" "${BENCH_SERVE_ROWS:-22000000}"
log "The 22M-row store with 3 commits in its -wal"
serve_wal=$work/ServeWAL.sqlite
trap 'rm -rf -- "$tmp_dir" "$serve_wal" "$serve_wal"-wal "$serve_wal"-shm' EXIT
rm -f -- "$serve_wal" "$serve_wal"-wal "$serve_wal"-shm
copy_store "$serve_db" "$serve_wal"
commit_rows "$serve_wal" 3 ZPOST "$(entity_number "$serve_wal" Post)"
plain_cmd="$(q "$cdstore") query $(q "$serve_wal") --entity Post --limit 1"
as_of_cmd="$plain_cmd --as-of 2"
log "Timing an open as of commit 2 against a plain open"
time_interleaved as-of as-of "$as_of_cmd >/dev/null" plain "$plain_cmd >/dev/null"
as_of_ratio=${ratio_of[as-of]}
echo "--as-of open / plain open: $as_of_ratio (goal <= $goal_as_of: $(pass_miss "$as_of_ratio" "$goal_as_of"))"

cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
summary_file=$work/wal-summary.md
log "Summary"
{
    echo "## cdstore wal --changes and --as-of ($(date -u +%Y-%m-%d))"
    echo
    echo "$(nproc) cores, ${cpu:-unknown CPU}, sqlite3 $(sqlite3 --version | cut -d' ' -f1), cdstore $revision;" \
         "mean ± σ of $runs rounds (the two commands run in turn) after $warmup warmup, output to /dev/null;" \
         "ratio: the median of the per-round ratios."
    echo
    echo "| case | cdstore ms | against ms | ratio | goal |"
    echo "|---|---:|---:|---:|---|"
    printf '| wal --changes, 100 one-row commits, %s rows | %s ± %s | dump Post ndjson %s ± %s | %s | ≤ %s %s |\n' "$rows" \
        "${mean_ms[changes/changes]}" "${sd_ms[changes/changes]}" "${mean_ms[changes/dump]}" "${sd_ms[changes/dump]}" \
        "$changes_ratio" "$goal_changes" "$(pass_miss "$changes_ratio" "$goal_changes")"
    printf '| query --as-of 2, 22M-row store | %s ± %s | plain query %s ± %s | %s | ≤ %s %s |\n' \
        "${mean_ms[as-of/as-of]}" "${sd_ms[as-of/as-of]}" "${mean_ms[as-of/plain]}" "${sd_ms[as-of/plain]}" \
        "$as_of_ratio" "$goal_as_of" "$(pass_miss "$as_of_ratio" "$goal_as_of")"
} | tee "$summary_file"
echo
echo "summary written to ${summary_file#"$repo_root"/}"

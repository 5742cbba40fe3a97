#!/usr/bin/env bash
# Benchmarks `cdstore diff` against `cdstore dump --format ndjson` of both stores, on the two
# million-row stores of bench-inspect.sh and a changed copy of each: the goal is a diff within
# 2x the time of dumping both stores, with memory flat in rows.
#
#   scripts/bench-diff.sh
#
# Environment knobs (all optional):
#   BENCH_ROWS=1000000     rows added to each store
#   BENCH_RUNS=5           timed runs per command
#   BENCH_WARMUP=1         untimed runs before the timed ones
#   BENCH_SKIP_BUILD=1     reuse the binary already in .build-bench
#   BENCH_FRESH_STORES=1   rebuild Benchmarks/work even when its stores fit
#   BENCH_NO_INSTALL=1     never apt-get install hyperfine / time
#   CDSTORE_CORPUS=DIR     corpus location (default: ../shared/corpus from the repo root)
#
# Each changed copy (B) differs from its store (A) by 1% of the rows updated, 0.1% deleted and
# 0.1% inserted, made with sqlite3; the script checks that diff reports exactly those counts.
# Cases: Post (one entity, Z_PK order), Book (an entity with a sub-entity and a to-many
# relationship), Post matched by --key postID (both scans sorted by SQLite).
# Goals (printed as PASS/MISS; a MISS does not change the exit status): diff / dump of both
# <= 2.0, cdstore diff peak RSS <= 64 MiB.
set -euo pipefail

script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/bench-common.sh
source "$script_dir/bench-common.sh"

goal_ratio=2.0
goal_rss_mib=64

bench_init bench-diff 5 1
bench_tools
bench_build

bench_revision

bench_prepare_stores
bench_check_stores
store_entities

# --------------------------------------------------------------------------
# The changed copies: every 100th row updated, every 1000th deleted, as many inserted.
# Core Data's triggers call functions sqlite3 lacks, so they are dropped for the change and
# put back unchanged (bulk_insert does the same).
# --------------------------------------------------------------------------
post_b=$work/Posts-B.sqlite
book_b=$work/Books-B.sqlite

# change_copy SRC DEST TABLE ENTS UPDATE_SET INSERT_SQL: DEST is SRC with the changes.
change_copy() {
    local src=$1 dest=$2 table=$3 ents=$4 update_set=$5 insert=$6 script
    rm -f -- "$dest" "$dest"-wal "$dest"-shm
    copy_store "$src" "$dest"
    script=$(mktemp "$tmp_dir/change.XXXXXX")
    {
        echo "PRAGMA foreign_keys = OFF;"
        echo "BEGIN IMMEDIATE;"
        sql "$dest" "SELECT 'DROP TRIGGER \"' || replace(name, '\"', '\"\"') || '\";' FROM sqlite_master WHERE type = 'trigger';"
        echo "UPDATE $table SET $update_set WHERE Z_ENT IN ($ents) AND Z_PK % 100 = 7;"
        echo "DELETE FROM $table WHERE Z_ENT IN ($ents) AND Z_PK % 1000 = 3;"
        printf '%s\n' "$insert"
        sql "$dest" "SELECT sql || ';' FROM sqlite_master WHERE type = 'trigger';"
        echo "COMMIT;"
        echo "PRAGMA wal_checkpoint(TRUNCATE);"
    } >"$script"
    sql -bail "$dest" <"$script" >/dev/null
}

log "Changed copies"
inserted=$((rows / 1000))
post_max=$(sql "$post_db" "SELECT MAX(Z_PK) FROM ZPOST;")
book_max=$(sql "$book_db" "SELECT MAX(Z_PK) FROM ZBOOK;")
change_copy "$post_db" "$post_b" ZPOST "$post_ent" "ZDATE = IFNULL(ZDATE, 0) + 1" "
WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < $inserted)
INSERT INTO ZPOST (Z_PK, Z_ENT, Z_OPT, ZDATE, ZPOSTID) SELECT $post_max + i, $post_ent, 1, 600000000 + i, 'new ' || i FROM seq;"
change_copy "$book_db" "$book_b" ZBOOK "$book_ent, $novel_ent" "ZTITLE = 'changed ' || Z_PK, ZPRICE = ZPRICE + 1" "
WITH RECURSIVE seq(i) AS (SELECT 1 UNION ALL SELECT i + 1 FROM seq WHERE i < $inserted)
INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT, ZPAGESCOUNT, ZTITLE, ZPRICE) SELECT $book_max + i, $book_ent, 1, 0, 'new ' || i, 1.5 FROM seq;"
# The expected counts, from SQL over both files.
expected() {
    local a=$1 b=$2 table=$3 ents=$4
    sqlite3 -batch -noheader ":memory:" "ATTACH '$a' AS a; ATTACH '$b' AS b;
        SELECT (SELECT COUNT(*) FROM a.$table WHERE Z_ENT IN ($ents) AND Z_PK NOT IN (SELECT Z_PK FROM b.$table)) || ' ' ||
               (SELECT COUNT(*) FROM b.$table WHERE Z_ENT IN ($ents) AND Z_PK NOT IN (SELECT Z_PK FROM a.$table)) || ' ' ||
               (SELECT COUNT(*) FROM b.$table WHERE Z_ENT IN ($ents) AND Z_PK % 100 = 7 AND Z_PK % 1000 != 3 AND Z_PK <= (SELECT MAX(Z_PK) FROM a.$table));"
}
read -r post_del post_ins post_upd < <(expected "$post_db" "$post_b" ZPOST "$post_ent")
read -r book_del book_ins book_upd < <(expected "$book_db" "$book_b" ZBOOK "$book_ent, $novel_ent")
echo "Post: $post_del deleted, $post_ins inserted, $post_upd updated; Book and GraphicNovel: $book_del deleted, $book_ins inserted, $book_upd updated"

# The counts diff reports for ENTITY (summed over its sub-entities): deleted inserted updated.
diff_counts() {
    # diff exits 1 when the stores differ, which is the expected outcome here.
    { "$cdstore" diff "$@" --only data --format ndjson --limit 0 || [ $? -eq 1 ]; } | awk -F'[:,]' '
        /"section":"entity"/ { for (i = 1; i < NF; i++) { if ($i == "\"deleted\"") d += $(i + 1); if ($i == "\"inserted\"") n += $(i + 1); if ($i == "\"updated\"") u += $(i + 1) } }
        END { print d + 0, n + 0, u + 0 }'
}
check_counts() {
    local label=$1 want=$2; shift 2
    local have
    have=$(diff_counts "$@")
    [[ $have == "$want" ]] || die "$label: diff reports $have (deleted inserted updated), SQL says $want"
    echo "$label: diff reports $have, as SQL counts"
}
check_counts Post "$post_del $post_ins $post_upd" "$post_db" "$post_b" Post
check_counts Post-key "$post_del $post_ins $post_upd" "$post_db" "$post_b" Post --key Post=postID
check_counts Book "$book_del $book_ins $book_upd" "$book_db" "$book_b" Book

# --------------------------------------------------------------------------
# The commands: diff of A and B, against dump --format ndjson of A then B.
# diff exits 1 when the stores differ, which is the expected outcome here.
# --------------------------------------------------------------------------
cases=(posts books posts-key)
declare -A diff_cmd=() dump_cmd=()
diff_of() { printf '%s diff %s %s %s --format ndjson --limit 100 || [ $? -eq 1 ]' "$(q "$cdstore")" "$(q "$1")" "$(q "$2")" "$3"; }
dump_of() { printf '%s dump %s %s --format ndjson && %s dump %s %s --format ndjson' "$(q "$cdstore")" "$(q "$1")" "$3" "$(q "$cdstore")" "$(q "$2")" "$3"; }
diff_cmd[posts]=$(diff_of "$post_db" "$post_b" "Post --only data")
dump_cmd[posts]=$(dump_of "$post_db" "$post_b" Post)
diff_cmd[books]=$(diff_of "$book_db" "$book_b" "Book --only data")
dump_cmd[books]=$(dump_of "$book_db" "$book_b" Book)
diff_cmd[posts-key]=$(diff_of "$post_db" "$post_b" "Post --only data --key Post=postID")
dump_cmd[posts-key]=$(dump_of "$post_db" "$post_b" Post)
for c in "${cases[@]}"; do printf '  %s\n    %s\n    %s\n' "$c" "${diff_cmd[$c]}" "${dump_cmd[$c]}"; done

declare -A rss=() ratio=()
measure_rss() {
    if ((have_time)); then
        eval "$(q "$gnu_time") -v -o $(q "$tmp_dir/time.txt") sh -c $(q "$1") >/dev/null" || true
        awk -F: '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$tmp_dir/time.txt"
    else
        echo n/a
    fi
}

load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for c in "${cases[@]}"; do
    log "Timing $c"
    time_interleaved "$c" diff "${diff_cmd[$c]} >/dev/null" dump "{ ${dump_cmd[$c]}; } >/dev/null"
    ratio[$c]=${ratio_of[$c]}
    rss[$c]=$(measure_rss "${diff_cmd[$c]%% ||*}")
    echo "diff/dump of both: ${ratio[$c]} (goal <= $goal_ratio: $(pass_miss "${ratio[$c]}" "$goal_ratio")); diff peak RSS ${rss[$c]} MiB (goal <= $goal_rss_mib: $(pass_miss "${rss[$c]}" "$goal_rss_mib"))"
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
summary_file=$work/diff-summary.md
log "Summary"
{
    echo "## cdstore diff vs cdstore dump --format ndjson of both stores ($(date -u +%Y-%m-%d))"
    echo
    echo "$(nproc) cores, ${cpu:-unknown CPU}, sqlite3 $(sqlite3 --version | cut -d' ' -f1), cdstore $revision;" \
         "$rows rows added to each store, B = A with 1% of the rows updated, 0.1% deleted, 0.1% inserted;" \
         "mean ± σ of $runs rounds (diff and the two dumps run in turn) after $warmup warmup, output to /dev/null;" \
         "ratio: the median of the per-round ratios; load average ${load_before// /\/} before, ${load_after// /\/} after."
    echo "Goals: diff ≤ $goal_ratio× the two dumps; diff peak RSS ≤ $goal_rss_mib MiB."
    echo
    echo "| case | diff ms | dump A + dump B ms | ratio | goal | diff RSS MiB | goal ≤ $goal_rss_mib MiB |"
    echo "|---|---:|---:|---:|---|---:|---|"
    for c in "${cases[@]}"; do
        printf '| %s | %s ± %s | %s ± %s | %s | ≤ %s %s | %s | %s |\n' "$c" \
            "${mean_ms[$c/diff]}" "${sd_ms[$c/diff]}" "${mean_ms[$c/dump]}" "${sd_ms[$c/dump]}" \
            "${ratio[$c]}" "$goal_ratio" "$(pass_miss "${ratio[$c]}" "$goal_ratio")" \
            "${rss[$c]}" "$(pass_miss "${rss[$c]}" "$goal_rss_mib")"
    done
} | tee "$summary_file"
echo
echo "summary written to ${summary_file#"$repo_root"/}"

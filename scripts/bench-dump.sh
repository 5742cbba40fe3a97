#!/usr/bin/env bash
# Benchmarks `cdstore dump` against the sqlite3 CLI reading the same columns,
# on the two million-row stores of bench-inspect.sh: ndjson and csv against
# sqlite3 -json and -csv, the description format and a template against
# sqlite3 -line.
#
#   scripts/bench-dump.sh
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
# Goals (printed as PASS/MISS; a MISS does not change the exit status):
# cdstore/sqlite3 time ratio <= 0.6 for ndjson, <= 1.0 for the others, and
# cdstore peak RSS <= 64 MiB.
# See Benchmarks/README.md for what is measured.
set -euo pipefail

script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/bench-common.sh
source "$script_dir/bench-common.sh"

goal_rss_mib=64

bench_init bench-dump 5 1
command -v wc >/dev/null || die "wc is required"
bench_tools
bench_build
bench_revision

# --------------------------------------------------------------------------
# Stores: reuse Benchmarks/work when its row counts are the expected ones.
# --------------------------------------------------------------------------
bench_prepare_stores
bench_check_stores

# --------------------------------------------------------------------------
# The commands. cdstore reads these columns itself:
#   Post: Z_PK, Z_ENT and the attributes/to-one keys color, date, postID.
#   Book (with its subentity GraphicNovel): Z_PK, Z_ENT, author, cover,
#     isBlackAndWhite (GraphicNovel), pagesCount, price, publishedAt, title,
#     uniqueID. To-many `pages` is a fault in ndjson, so it is not counted.
# sqlite3 selects the same columns. It would print a blob's raw bytes inside
# a JSON string, so the two blob columns go through hex(): UUID uniqueID is
# text in cdstore's output too, and cover (Transformable, NULL in all new rows)
# is printed in full. `--binary base64` keeps cdstore from dropping any binary
# value; this model has no plain Binary Data attribute, so omit, summary and
# base64 give the same bytes here (checked below).
# The description format prints all of Post's columns, so sqlite3 -line reads
# the same ones as for ndjson; the template prints postID and date, so
# sqlite3 -line reads ZPOSTID and ZDATE.
# --------------------------------------------------------------------------
binary=base64
book_ents="$book_ent, $novel_ent"
posts_sql="SELECT Z_PK, Z_ENT, ZCOLOR, ZDATE, ZPOSTID FROM ZPOST WHERE Z_ENT = $post_ent ORDER BY Z_PK"
books_sql="SELECT Z_PK, Z_ENT, ZAUTHOR, nullif(hex(ZCOVER), '') AS ZCOVER, ZISBLACKANDWHITE,"
books_sql+=" ZPAGESCOUNT, ZPRICE, ZPUBLISHEDAT, ZTITLE, hex(ZUNIQUEID) AS ZUNIQUEID"
books_sql+=" FROM ZBOOK WHERE Z_ENT IN ($book_ents) ORDER BY Z_PK"

template='{postID} {date}'
template_sql="SELECT ZPOSTID, ZDATE FROM ZPOST WHERE Z_ENT = $post_ent ORDER BY Z_PK"

cases=(posts-ndjson posts-csv books-ndjson posts-description posts-template)
declare -A db_of=([posts-ndjson]=$post_db [posts-csv]=$post_db [books-ndjson]=$book_db
                  [posts-description]=$post_db [posts-template]=$post_db)
declare -A entity_of=([posts-ndjson]=Post [posts-csv]=Post [books-ndjson]=Book
                      [posts-description]=Post [posts-template]=Post)
declare -A options_of=([posts-ndjson]="--format ndjson" [posts-csv]="--format csv" [books-ndjson]="--format ndjson"
                       [posts-description]="--format description" [posts-template]="--template $(q "$template")")
declare -A mode_of=([posts-ndjson]=-json [posts-csv]="-csv -header" [books-ndjson]=-json
                    [posts-description]=-line [posts-template]=-line)
declare -A sql_of=([posts-ndjson]=$posts_sql [posts-csv]=$posts_sql [books-ndjson]=$books_sql
                   [posts-description]=$posts_sql [posts-template]=$template_sql)
declare -A goal_of=([posts-ndjson]=0.6 [posts-csv]=1.0 [books-ndjson]=0.6
                    [posts-description]=1.0 [posts-template]=1.0)
# Objects in an output of L lines are (L + add) / per. A header line in CSV;
# one line per row in ndjson, templates and sqlite3 -json (which puts each row
# on its own line, inside one array); sqlite3 -line writes a line per column
# and an empty line between rows; cdstore's description of a Post takes as
# many lines as the first one does (they all have the same properties).
post_columns=$(awk -F, '{ print NF }' <<<"${posts_sql%% FROM *}")
description_lines=$("$cdstore" dump "$post_db" Post --format description --limit 1 | wc -l)
declare -A per_of=([posts-description/cdstore]=$description_lines
                   [posts-description/sqlite3]=$(( post_columns + 1 ))
                   [posts-template/sqlite3]=3)
declare -A add_of=([posts-csv/cdstore]=-1 [posts-csv/sqlite3]=-1
                   [posts-description/sqlite3]=1 [posts-template/sqlite3]=1)
declare -A cd_cmd=() sq_cmd=()

log "Commands"
for c in "${cases[@]}"; do
    db=${db_of[$c]}
    cd_args="${entity_of[$c]} ${options_of[$c]} --binary $binary"
    cd_cmd[$c]="$(q "$cdstore") dump $(q "$db") $cd_args"
    sq_cmd[$c]="sqlite3 ${mode_of[$c]} $(q "$db") $(q "${sql_of[$c]}")"
    printf '  %s\n    cdstore dump %s %s\n    sqlite3 %s %s "%s"\n' "$c" \
        "${db#"$repo_root"/}" "$cd_args" "${mode_of[$c]}" "${db#"$repo_root"/}" "${sql_of[$c]}"
done
echo "first object of each store, as cdstore and sqlite3 print it:"
for c in posts-ndjson books-ndjson; do
    "$cdstore" dump "${db_of[$c]}" "${entity_of[$c]}" --format ndjson --binary "$binary" --limit 1 | sed 's/^/  cdstore: /'
    sqlite3 -json "${db_of[$c]}" "${sql_of[$c]} LIMIT 1" | sed 's/^/  sqlite3: /'
done
for c in posts-description posts-template; do
    eval "${cd_cmd[$c]} --limit 1" | sed 's/^/  cdstore: /'
    sqlite3 -line "${db_of[$c]}" "${sql_of[$c]} LIMIT 1" | sed 's/^/  sqlite3: /'
done
first_books() { "$cdstore" dump "$book_db" Book --format ndjson --limit 2000 --binary "$1"; }
for mode in omit summary; do
    if ! cmp -s <(first_books "$binary") <(first_books "$mode"); then
        echo "note: --binary $mode and --binary $binary differ on the first 2000 books"
    else
        echo "--binary $mode and --binary $binary print the same first 2000 books"
    fi
done

# --------------------------------------------------------------------------
# One run of each command outside hyperfine: peak RSS, output size, objects.
# --------------------------------------------------------------------------
declare -A rss=() out_bytes=() objects=()

# measure_once KEY CMD: runs CMD once, output counted by wc, under GNU time -v.
measure_once() {
    local key=$1 cmd=$2 counts lines bytes
    if ((have_time)); then
        counts=$(eval "$(q "$gnu_time") -v -o $(q "$tmp_dir/time.txt") $cmd" | wc -l -c) \
            || die "failed: $cmd"
        rss[$key]=$(awk -F: '/Maximum resident set size/ { printf "%.1f", $2 / 1024 }' "$tmp_dir/time.txt")
    else
        counts=$(eval "$cmd" | wc -l -c) || die "failed: $cmd"
        rss[$key]=n/a
    fi
    read -r lines bytes <<<"$counts"
    out_bytes[$key]=$bytes
    local per=${per_of[$key]:-1} add=${add_of[$key]:-0}
    if (( (lines + add) % per != 0 )); then
        die "$key: $lines output lines are not a whole number of objects ($per lines each, $add more)"
    fi
    objects[$key]=$(( (lines + add) / per ))
}

sizes_file=$work/dump-sizes.txt
printf '%-17s %-8s %10s %12s %9s %9s\n' case tool objects bytes MiB 'RSS MiB' >"$sizes_file"

# --------------------------------------------------------------------------
# Timing.
# --------------------------------------------------------------------------
declare -A ratio=()
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
for c in "${cases[@]}"; do
    log "Timing $c"
    extra=()
    if [[ $c == *-ndjson ]]; then
        # Fixed cost: open the store, model, first object.
        extra=(first-object "${cd_cmd[$c]} --limit 1 >/dev/null")
    fi
    time_interleaved "$c" cdstore "${cd_cmd[$c]} >/dev/null" sqlite3 "${sq_cmd[$c]} >/dev/null"
    if ((${#extra[@]})); then time_cases "$c" "${extra[@]}"; fi

    for tool in cdstore sqlite3; do
        if [[ $tool == cdstore ]]; then cmd=${cd_cmd[$c]}; else cmd=${sq_cmd[$c]}; fi
        measure_once "$c/$tool" "$cmd"
        printf '%-17s %-8s %10s %12s %9s %9s\n' "$c" "$tool" "${objects[$c/$tool]}" \
            "${out_bytes[$c/$tool]}" "$(mib "${out_bytes[$c/$tool]}")" "${rss[$c/$tool]}" >>"$sizes_file"
    done
    if [[ ${objects[$c/cdstore]} != "${objects[$c/sqlite3]}" ]]; then
        die "$c: cdstore printed ${objects[$c/cdstore]} objects, sqlite3 ${objects[$c/sqlite3]} rows"
    fi

    ratio[$c]=${ratio_of[$c]}
    echo "objects: ${objects[$c/cdstore]} from both; output: cdstore $(mib "${out_bytes[$c/cdstore]}") MiB, sqlite3 $(mib "${out_bytes[$c/sqlite3]}") MiB"
    echo "cdstore/sqlite3 time: ${ratio[$c]} (goal <= ${goal_of[$c]}: $(pass_miss "${ratio[$c]}" "${goal_of[$c]}"))"
    echo "peak RSS: cdstore ${rss[$c/cdstore]} MiB (goal <= $goal_rss_mib MiB: $(pass_miss "${rss[$c/cdstore]}" "$goal_rss_mib")), sqlite3 ${rss[$c/sqlite3]} MiB"
done
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# --------------------------------------------------------------------------
# Summary.
# --------------------------------------------------------------------------

# md_table: tab-separated rows on stdin (the first one the header) as an
# aligned Markdown table; the first column left-aligned, the others right.
md_table() {
    local LC_ALL=C.UTF-8   # so that ${#cell} counts '±' as one column
    local -a rows=() width=() cells
    local row i k text cell pad
    while IFS= read -r row; do rows+=("$row"); done
    for row in "${rows[@]}"; do
        IFS=$'\t' read -r -a cells <<<"$row"
        for i in "${!cells[@]}"; do
            if (( ${#cells[i]} > ${width[i]:-0} )); then width[i]=${#cells[i]}; fi
        done
    done
    for i in "${!rows[@]}"; do
        IFS=$'\t' read -r -a cells <<<"${rows[i]}"
        text="|"
        for ((k = 0; k < ${#width[@]}; k++)); do
            cell=${cells[k]:-}
            printf -v pad '%*s' $(( width[k] - ${#cell} )) ''
            if ((k == 0)); then text+=" $cell$pad |"; else text+=" $pad$cell |"; fi
        done
        printf '%s\n' "$text"
        if ((i == 0)); then   # the separator row: ---- left, ---: right
            text="|"
            for ((k = 0; k < ${#width[@]}; k++)); do
                printf -v pad '%*s' $(( width[k] - (k > 0) )) ''
                if ((k == 0)); then text+=" ${pad// /-} |"; else text+=" ${pad// /-}: |"; fi
            done
            printf '%s\n' "$text"
        fi
    done
}

tab=$'\t'
cpu=$(awk -F': ' '/^model name/ { print $2; exit }' /proc/cpuinfo 2>/dev/null || true)
summary_file=$work/dump-summary.md
log "Summary"
{
    echo "## cdstore dump vs sqlite3 ($(date -u +%Y-%m-%d))"
    echo
    echo "$(nproc) cores, ${cpu:-unknown CPU}, sqlite3 $(sqlite3 --version | cut -d' ' -f1)," \
         "cdstore $revision; mean ± σ of $runs rounds (cdstore and sqlite3 run in turn) after $warmup warmup, output to /dev/null; ratio: the median of the per-round ratios;" \
         "load average ${load_before// /\/} before, ${load_after// /\/} after."
    echo "Goals: cdstore/sqlite3 ≤ 0.6 for ndjson, ≤ 1.0 for the others; cdstore peak RSS ≤ $goal_rss_mib MiB."
    echo
    {
        echo "case${tab}objects${tab}cdstore ms${tab}sqlite3 ms${tab}ratio${tab}goal${tab}cdstore RSS MiB${tab}sqlite3 RSS MiB${tab}goal ≤ $goal_rss_mib MiB${tab}cdstore out MiB${tab}sqlite3 out MiB"
        for c in "${cases[@]}"; do
            printf '%s\t' "$c" "${objects[$c/cdstore]}" \
                "${mean_ms[$c/cdstore]} ± ${sd_ms[$c/cdstore]}" "${mean_ms[$c/sqlite3]} ± ${sd_ms[$c/sqlite3]}" \
                "${ratio[$c]}" "≤ ${goal_of[$c]} $(pass_miss "${ratio[$c]}" "${goal_of[$c]}")" \
                "${rss[$c/cdstore]}" "${rss[$c/sqlite3]}" "$(pass_miss "${rss[$c/cdstore]}" "$goal_rss_mib")" \
                "$(mib "${out_bytes[$c/cdstore]}")"
            printf '%s\n' "$(mib "${out_bytes[$c/sqlite3]}")"
        done
    } | md_table
    echo
    echo "Spread and where the time goes (fastest/median/slowest run and mean CPU time per run;" \
         "first object = \`--limit 1\`: open the store, read the model, one object):"
    echo
    {
        echo "case${tab}cdstore min/median/max ms${tab}sqlite3 min/median/max ms${tab}cdstore user ms${tab}cdstore sys ms${tab}sqlite3 user ms${tab}sqlite3 sys ms${tab}cdstore first object ms"
        for c in "${cases[@]}"; do
            printf '%s\t' "$c" "${min_ms[$c/cdstore]}/${median_ms[$c/cdstore]}/${max_ms[$c/cdstore]}" \
                "${min_ms[$c/sqlite3]}/${median_ms[$c/sqlite3]}/${max_ms[$c/sqlite3]}" \
                "${user_ms[$c/cdstore]}" "${sys_ms[$c/cdstore]}" "${user_ms[$c/sqlite3]}" "${sys_ms[$c/sqlite3]}"
            printf '%s\n' "${mean_ms[$c/first-object]:--}"
        done
    } | md_table
} | tee "$summary_file"
# One line per case for bench-scale.sh: case, ratio, goal, cdstore and sqlite3 min/median/max ms,
# cdstore peak RSS MiB.
for c in "${cases[@]}"; do
    printf '%s\t%s\t%s\t%s\t%s\t%s\n' "$c" "${ratio[$c]}" "${goal_of[$c]}" \
        "${min_ms[$c/cdstore]}/${median_ms[$c/cdstore]}/${max_ms[$c/cdstore]}" \
        "${min_ms[$c/sqlite3]}/${median_ms[$c/sqlite3]}/${max_ms[$c/sqlite3]}" "${rss[$c/cdstore]}"
done >"$work/dump-results.tsv"
echo
echo "summary written to ${summary_file#"$repo_root"/}; output sizes in ${sizes_file#"$repo_root"/}"

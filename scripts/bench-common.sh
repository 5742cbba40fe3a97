# shellcheck shell=bash disable=SC2034  # variables here are read by the scripts that source this
# Shared by the benchmark scripts (scripts/bench-*.sh); source it,
# don't run it. It holds the steps they share:
#
#   bench_init NAME RUNS WARMUP   knobs, checks, scratch dir in /tmp
#   bench_tools                   hyperfine and GNU time (installed when possible)
#   bench_build                   release build in .build-bench; sets $cdstore to a private copy
#   serve_url LOG PID SECONDS     the URL `cdstore serve` printed into LOG, once it has
#   bench_create_stores           Benchmarks/work/{Posts,Books}.sqlite, 1M rows each
#   bench_stores_reusable         whether the stores already there have the right rows
#   bench_check_stores            quick_check, row counts, cdstore inspect, file sizes
#   time_cases LABEL NAME CMD...  mean/stddev (and user/system) of some commands
#   time_interleaved LABEL A CMD B CMD  the same for two commands run in turn, and their ratio
#   bench_revision                what the timed binary was built from, in $revision
#   pass_miss VALUE GOAL          PASS when VALUE <= GOAL (n/a when not measured)
#
# Environment knobs read by bench_init: BENCH_ROWS, BENCH_RUNS, BENCH_WARMUP,
# BENCH_SKIP_BUILD, BENCH_NO_INSTALL, CDSTORE_CORPUS (see Benchmarks/README.md).

bench_common_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
repo_root=$(cd -- "$bench_common_dir/.." && pwd)
scratch=.build-bench
work=$repo_root/Benchmarks/work
post_db=$work/Posts.sqlite
book_db=$work/Books.sqlite
# The corpus stores the two big stores are grown from.
post_source=wibosco-migration/CoreDataMigration_Example_3.sqlite
book_source=cdplus-samplemodel2/SampleModel2_V1.sqlite

log() { printf '\n==> %s\n' "$*"; }
die() { printf '%s: %s\n' "${bench_name:-bench}" "$*" >&2; exit 1; }
sql() { sqlite3 -batch -noheader "$@"; }
size_of() { if [[ -f $1 ]]; then stat -c %s -- "$1"; else echo 0; fi; }
mib() { awk -v b="$1" 'BEGIN { printf "%.1f", b / 1048576 }'; }
q() { printf '%q' "$1"; }

# bench_init NAME DEFAULT_RUNS DEFAULT_WARMUP: reads and checks the knobs, moves
# to the repository root and makes $tmp_dir (removed on exit).
bench_init() {
    bench_name=$1
    cd "$repo_root" || die "cannot cd to $repo_root"
    rows=${BENCH_ROWS:-1000000}
    runs=${BENCH_RUNS:-$2}
    warmup=${BENCH_WARMUP:-$3}
    corpus=${CDSTORE_CORPUS:-$repo_root/../shared/corpus}

    local tool
    for tool in swift sqlite3 awk stat; do
        command -v "$tool" >/dev/null || die "$tool is required"
    done
    [[ $rows =~ ^[1-9][0-9]*$ ]] || die "BENCH_ROWS must be a positive integer"
    [[ $runs =~ ^[1-9][0-9]*$ ]] || die "BENCH_RUNS must be a positive integer"
    [[ $warmup =~ ^[0-9]+$ ]] || die "BENCH_WARMUP must be a non-negative integer"
    [[ -d $corpus ]] || die "corpus not found at $corpus (set CDSTORE_CORPUS)"
    corpus=$(cd -- "$corpus" && pwd)

    tmp_dir=$(mktemp -d "${TMPDIR:-/tmp}/cdstore-bench.XXXXXX")
    trap 'rm -rf -- "$tmp_dir"' EXIT
}

# --------------------------------------------------------------------------
# Tools: hyperfine and GNU time are optional; install them when we can.
# --------------------------------------------------------------------------
apt_install() {
    [[ ${BENCH_NO_INSTALL:-0} == 1 ]] && return 1
    [[ $(id -u) -eq 0 ]] || return 1
    command -v apt-get >/dev/null || return 1
    echo "installing $* with apt-get"
    if ! DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null 2>&1; then
        apt-get update -qq >/dev/null 2>&1 || return 1
        DEBIAN_FRONTEND=noninteractive apt-get install -y -qq "$@" >/dev/null 2>&1 || return 1
    fi
}

# Sets have_hyperfine, have_time and gnu_time.
bench_tools() {
    log "Tools"
    if ! command -v hyperfine >/dev/null; then
        apt_install hyperfine || true
    fi
    if command -v hyperfine >/dev/null; then
        have_hyperfine=1
        echo "timing with $(hyperfine --version)"
    else
        have_hyperfine=0
        echo "hyperfine unavailable: timing with a bash loop (date +%s%N)"
    fi
    gnu_time=/usr/bin/time
    if [[ ! -x $gnu_time ]]; then
        apt_install time || true
    fi
    if [[ -x $gnu_time ]] && "$gnu_time" -v true >/dev/null 2>&1; then
        have_time=1
        echo "peak RSS from $gnu_time -v"
    else
        have_time=0
        echo "GNU time unavailable: peak RSS not measured"
    fi
}

# bench_revision: sets $revision to the commit the binary (a private copy, see bench_build)
# was built from, noting uncommitted changes in Sources/, and says so.
bench_revision() {
    revision=$(git rev-parse --short HEAD 2>/dev/null || echo unknown)
    if [[ -n $(git status --porcelain -- Sources Package.swift 2>/dev/null) ]]; then
        revision="$revision + uncommitted changes in Sources/"
    fi
    echo "timing a copy of it built from $revision"
}

# pass_miss VALUE GOAL: PASS when VALUE <= GOAL; n/a when VALUE was not measured.
pass_miss() {
    awk -v v="$1" -v g="$2" 'BEGIN { if (v == "n/a" || v == "") print "n/a"; else print (v + 0 <= g + 0) ? "PASS" : "MISS" }'
}

# --------------------------------------------------------------------------
# serve_url LOG PID SECONDS: waits until `cdstore serve` (process PID) has printed its URL into
# LOG, at most SECONDS; prints the URL without its trailing slash.
serve_url() {
    local deadline=$((SECONDS + $3)) url
    until grep -q 'at http://' "$1"; do
        kill -0 "$2" 2>/dev/null || die "cdstore serve stopped: $(cat "$1")"
        ((SECONDS < deadline)) || die "cdstore serve printed no URL within $3 s"
        sleep 0.2
    done
    url=$(grep -o 'http://[^ ]*' "$1" | head -1)
    echo "${url%/}"
}

# Release build in a private scratch path. Sets $cdstore.
# --------------------------------------------------------------------------
bench_build() {
    log "Building cdstore (release, --scratch-path $scratch)"
    if [[ ${BENCH_SKIP_BUILD:-0} != 1 ]]; then
        if ! swift build -c release --scratch-path "$scratch" --product cdstore; then
            die "release build failed (work in progress in Sources/? retry later)"
        fi
    fi
    local bin_dir
    bin_dir=$(swift build -c release --scratch-path "$scratch" --show-bin-path)
    cdstore=$bin_dir/cdstore
    [[ -x $cdstore ]] || die "no binary at $cdstore"
    echo "binary: $cdstore"
    # Timed runs use a private copy, so a build in another shell cannot swap the binary mid-run.
    cp -- "$cdstore" "$tmp_dir/cdstore"
    cdstore=$tmp_dir/cdstore
}

# --------------------------------------------------------------------------
# Big stores: private copies of corpus stores, grown with sqlite3.
# --------------------------------------------------------------------------

# copy_store SRC DEST: the main file plus -wal/-shm when present, made writable,
# with any WAL content folded into the main file. The corpus is never opened.
copy_store() {
    local src=$1 dest=$2 suffix
    [[ -f $src ]] || die "missing corpus store $src"
    cp -- "$src" "$dest"
    for suffix in -wal -shm; do
        if [[ -f $src$suffix ]]; then cp -- "$src$suffix" "$dest$suffix"; fi
    done
    chmod u+w -- "$dest" "$dest"-wal "$dest"-shm 2>/dev/null || true
    if [[ -f $dest-wal ]]; then
        sql "$dest" 'PRAGMA wal_checkpoint(TRUNCATE);' >/dev/null
    fi
}

# entity_number DB NAME: Z_ENT of an entity, from Z_PRIMARYKEY.
entity_number() {
    local ent
    ent=$(sql "$1" "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = '$2';")
    [[ -n $ent ]] || die "entity $2 not in Z_PRIMARYKEY of $1"
    printf '%s' "$ent"
}

# next_pk DB TABLE ROOT_ENT: the first free Z_PK (above both the table and Z_MAX).
next_pk() {
    sql "$1" "SELECT MAX(IFNULL((SELECT MAX(Z_PK) FROM $2), 0),
                        IFNULL((SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = $3), 0)) + 1;"
}

# bulk_insert DB TABLE ROOT_ENT INSERT_SQL: runs INSERT_SQL in one transaction.
# Core Data's triggers call functions that only exist inside Core Data
# (NSCoreDataDATrigger...), so the table's triggers are dropped for the insert
# and recreated unchanged before the commit. Z_MAX of the root entity is set to
# the table's new largest Z_PK.
bulk_insert() {
    local db=$1 table=$2 root_ent=$3 insert=$4 script
    script=$(mktemp "$tmp_dir/insert.XXXXXX")
    {
        echo "PRAGMA foreign_keys = OFF;"
        echo "BEGIN IMMEDIATE;"
        sql "$db" "SELECT 'DROP TRIGGER \"' || replace(name, '\"', '\"\"') || '\";'
                   FROM sqlite_master WHERE type = 'trigger' AND tbl_name = '$table';"
        printf '%s\n' "$insert"
        sql "$db" "SELECT sql || ';' FROM sqlite_master WHERE type = 'trigger' AND tbl_name = '$table';"
        echo "UPDATE Z_PRIMARYKEY SET Z_MAX = (SELECT MAX(Z_PK) FROM $table) WHERE Z_ENT = $root_ent;"
        echo "COMMIT;"
        echo "PRAGMA wal_checkpoint(TRUNCATE);"
    } >"$script"
    sql -bail "$db" <"$script" >/dev/null
}

# Sets post_ent, book_ent and novel_ent from the stores in $work.
store_entities() {
    post_ent=$(entity_number "$post_db" Post)
    book_ent=$(entity_number "$book_db" Book)
    novel_ent=$(entity_number "$book_db" GraphicNovel)
}

# Recreates the two stores in $work, $rows new rows in each; other files there (the other
# scripts' stores, Datasette's environment) stay.
bench_create_stores() {
    log "Preparing $work"
    mkdir -p -- "$work"
    rm -f -- "$post_db" "$post_db"-wal "$post_db"-shm "$book_db" "$book_db"-wal "$book_db"-shm

    # Shared SQL fragment: a recursive CTE numbering the new rows 0..rows-1.
    local seq_cte="WITH RECURSIVE seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i + 1 < $rows)"
    # A random UUID string, uppercase, in Core Data's usual 8-4-4-4-12 form.
    local uuid_expr="substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-4' || substr(h, 14, 3) || '-A' || substr(h, 18, 3) || '-' || substr(h, 21, 12)"
    local start post_first book_first author_ent

    # (a) Single-entity table: ZPOST in the wibosco migration example.
    copy_store "$corpus/$post_source" "$post_db"
    post_ent=$(entity_number "$post_db" Post)
    post_first=$(next_pk "$post_db" ZPOST "$post_ent")
    log "Inserting $rows Post rows into ZPOST (Z_ENT $post_ent, Z_PK from $post_first)"
    start=$(date +%s%N)
    bulk_insert "$post_db" ZPOST "$post_ent" "
$seq_cte
INSERT INTO ZPOST (Z_PK, Z_ENT, Z_OPT, ZCOLOR, ZDATE, ZPOSTID)
SELECT $post_first + i, $post_ent, 1, NULL,
       -- seconds since 2001-01-01: spread over 2017..2024
       500000000 + (abs(random()) % 250000000) + (abs(random()) % 1000000) / 1000000.0,
       $uuid_expr
FROM (SELECT i, hex(randomblob(16)) AS h FROM seq);"
    echo "done in $(( ($(date +%s%N) - start) / 1000000 )) ms"

    # (b) Hierarchy table: ZBOOK holds Book and its subentity GraphicNovel.
    copy_store "$corpus/$book_source" "$book_db"
    book_ent=$(entity_number "$book_db" Book)
    novel_ent=$(entity_number "$book_db" GraphicNovel)
    book_first=$(next_pk "$book_db" ZBOOK "$book_ent")
    author_ent=$(sql "$book_db" "SELECT Z_ENT FROM Z_PRIMARYKEY WHERE Z_NAME = 'Author';")
    log "Inserting $rows rows into ZBOOK (every 5th a GraphicNovel, Z_ENT $novel_ent; the rest Book, Z_ENT $book_ent)"
    start=$(date +%s%N)
    # Authors (ZWRITER rows of the Author entity) are assigned round-robin.
    bulk_insert "$book_db" ZBOOK "$book_ent" "
$seq_cte,
authors(n, pk) AS (SELECT row_number() OVER (ORDER BY Z_PK) - 1, Z_PK
                   FROM ZWRITER WHERE Z_ENT = ${author_ent:-NULL}),
picked(i, author) AS (SELECT i, (SELECT pk FROM authors
                              WHERE n = i % MAX(1, (SELECT COUNT(*) FROM authors)))
                   FROM seq)
INSERT INTO ZBOOK (Z_PK, Z_ENT, Z_OPT, ZPAGESCOUNT, ZAUTHOR, ZISBLACKANDWHITE,
                   ZPUBLISHEDAT, ZPRICE, ZTITLE, ZUNIQUEID, ZCOVER)
SELECT $book_first + i,
       CASE WHEN i % 5 = 4 THEN $novel_ent ELSE $book_ent END,
       1,
       0,  -- no ZPAGE rows point at the new books
       author,
       CASE WHEN i % 5 = 4 THEN i % 2 ELSE NULL END,
       500000000 + (abs(random()) % 250000000) + (abs(random()) % 1000000) / 1000000.0,
       round(2 + (abs(random()) % 4800) / 100.0, 2),
       'title ' || ($book_first + i) || ' - author ' || IFNULL(author, 0),
       randomblob(16),
       NULL
FROM picked;"
    echo "done in $(( ($(date +%s%N) - start) / 1000000 )) ms"
}

# bench_stores_reusable: true when both stores exist in $work and hold exactly
# the rows bench_create_stores would give them: the corpus store's rows (counted
# on a copy in $tmp_dir) plus $rows, every fifth new ZBOOK row a GraphicNovel,
# and Z_MAX at the largest Z_PK. Sets reuse_note to the evidence or the reason.
bench_stores_reusable() {
    reuse_note=""
    local db
    for db in "$post_db" "$book_db"; do
        if [[ ! -f $db ]]; then
            reuse_note="no ${db#"$repo_root"/}"
            return 1
        fi
    done
    store_entities

    local base_posts=$tmp_dir/base-posts.sqlite base_books=$tmp_dir/base-books.sqlite
    copy_store "$corpus/$post_source" "$base_posts"
    copy_store "$corpus/$book_source" "$base_books"
    local novels=$((rows / 5))
    local -a checks=(
        # label | store | query | expected count
        "Post|$post_db|SELECT COUNT(*) FROM ZPOST WHERE Z_ENT = $post_ent|$(( $(sql "$base_posts" "SELECT COUNT(*) FROM ZPOST WHERE Z_ENT = $post_ent;") + rows ))"
        "Book|$book_db|SELECT COUNT(*) FROM ZBOOK WHERE Z_ENT = $book_ent|$(( $(sql "$base_books" "SELECT COUNT(*) FROM ZBOOK WHERE Z_ENT = $book_ent;") + rows - novels ))"
        "GraphicNovel|$book_db|SELECT COUNT(*) FROM ZBOOK WHERE Z_ENT = $novel_ent|$(( $(sql "$base_books" "SELECT COUNT(*) FROM ZBOOK WHERE Z_ENT = $novel_ent;") + novels ))"
    )
    local check label store query want have notes=()
    for check in "${checks[@]}"; do
        IFS='|' read -r label store query want <<<"$check"
        have=$(sql "$store" "$query;" 2>/dev/null) || have="unreadable"
        if [[ $have != "$want" ]]; then
            reuse_note="$label rows in ${store#"$repo_root"/}: $have, expected $want for BENCH_ROWS=$rows"
            return 1
        fi
        notes+=("$label $have")
    done
    local table ent
    for check in "ZPOST $post_ent $post_db" "ZBOOK $book_ent $book_db"; do
        read -r table ent db <<<"$check"
        if [[ $(sql "$db" "SELECT (SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = $ent) = (SELECT MAX(Z_PK) FROM $table);") != 1 ]]; then
            reuse_note="Z_MAX of $table in ${db#"$repo_root"/} is not its largest Z_PK"
            return 1
        fi
    done
    printf -v reuse_note '%s, ' "${notes[@]}"
    reuse_note="row counts as BENCH_ROWS=$rows gives them (${reuse_note%, }), Z_MAX consistent"
}

# bench_prepare_stores: reuses the stores in Benchmarks/work when their row
# counts fit (bench_stores_reusable), else rebuilds them; BENCH_FRESH_STORES=1
# always rebuilds.
bench_prepare_stores() {
    if [[ ${BENCH_FRESH_STORES:-0} == 1 ]]; then
        log "Rebuilding the stores (BENCH_FRESH_STORES=1)"
        bench_create_stores
    elif bench_stores_reusable; then
        log "Reusing the stores already in ${work#"$repo_root"/}"
        echo "$reuse_note"
    else
        log "Stores in ${work#"$repo_root"/} not reusable: $reuse_note"
        bench_create_stores
    fi
}

# bench_check_stores: quick_check, the row counts, a clean `cdstore inspect`,
# and the file sizes.
bench_check_stores() {
    log "Sanity checks"
    local db check report f
    for db in "$post_db" "$book_db"; do
        check=$(sql "$db" 'PRAGMA quick_check;')
        [[ $check == ok ]] || die "quick_check failed on $db: $check"
    done
    sql -header -column "$post_db" \
        "SELECT Z_NAME AS entity, Z_ENT, Z_MAX, (SELECT COUNT(*) FROM ZPOST WHERE Z_ENT = p.Z_ENT) AS rows
         FROM Z_PRIMARYKEY p WHERE Z_ENT = $post_ent;"
    sql -header -column "$book_db" \
        "SELECT Z_NAME AS entity, Z_ENT, Z_MAX, (SELECT COUNT(*) FROM ZBOOK WHERE Z_ENT = p.Z_ENT) AS rows
         FROM Z_PRIMARYKEY p WHERE Z_ENT IN ($book_ent, $novel_ent);"
    for db in "$post_db" "$book_db"; do
        report=$("$cdstore" inspect "$db") || die "cdstore inspect failed on $db"
        if grep -q 'Z_MAX is' <<<"$report"; then
            die "cdstore reports a Z_MAX inconsistency in $db"
        fi
        "$cdstore" inspect --json "$db" >/dev/null || die "cdstore inspect --json failed on $db"
    done
    echo "quick_check ok; cdstore inspect runs cleanly on both stores"

    log "Store files"
    for db in "$post_db" "$book_db"; do
        for f in "$db" "$db"-wal "$db"-shm; do
            if [[ -f $f ]]; then
                printf '  %-32s %12s bytes  (%s MiB)\n' "${f#"$repo_root"/}" "$(size_of "$f")" "$(mib "$(size_of "$f")")"
            fi
        done
    done
}

# --------------------------------------------------------------------------
# Timing.
# --------------------------------------------------------------------------
declare -A mean_ms=()   # key: "<label>/<case>" -> mean milliseconds
declare -A sd_ms=()
declare -A user_ms=()   # mean user and system CPU time (hyperfine or time_interleaved; n/a otherwise)
declare -A sys_ms=()
declare -A min_ms=()    # fastest, median and slowest run
declare -A median_ms=()
declare -A max_ms=()

# summarize DIVISOR FORMAT: reads one number a line and prints their mean, sample standard
# deviation, minimum, median and maximum, each divided by DIVISOR and printed with FORMAT.
summarize() {
    sort -g | awk -v d="$1" -v f="$2" '
        { t[NR] = $1 / d; s += t[NR]; q += t[NR] * t[NR] }
        END { m = s / NR; v = (NR > 1) ? (q - NR * m * m) / (NR - 1) : 0; if (v < 0) v = 0
              med = (NR % 2) ? t[(NR + 1) / 2] : (t[NR / 2] + t[NR / 2 + 1]) / 2
              printf f " " f " " f " " f " " f "\n", m, sqrt(v), t[1], med, t[NR] }'
}

# time_cases LABEL NAME CMD [NAME CMD ...]: mean and stddev of each command (with hyperfine also
# CPU times; min, median and max either way).
time_cases() {
    local label=$1; shift
    local names=() cmds=()
    while (($#)); do names+=("$1"); cmds+=("$2"); shift 2; done
    if ((have_hyperfine)); then
        local csv=$tmp_dir/$label.csv args=() k name mean sd user system
        for k in "${!names[@]}"; do args+=(--command-name "$label ${names[k]}" "${cmds[k]}"); done
        hyperfine --style basic --warmup "$warmup" --runs "$runs" --export-csv "$csv" "${args[@]}"
        # CSV columns: command,mean,stddev,median,user,system,min,max (seconds)
        while IFS=, read -r name mean sd median user system min max; do
            [[ $name == command ]] && continue
            name=${name#"$label "}
            mean_ms[$label/$name]=$(awk -v s="$mean" 'BEGIN { printf "%.1f", s * 1000 }')
            sd_ms[$label/$name]=$(awk -v s="$sd" 'BEGIN { printf "%.1f", s * 1000 }')
            user_ms[$label/$name]=$(awk -v s="$user" 'BEGIN { printf "%.1f", s * 1000 }')
            sys_ms[$label/$name]=$(awk -v s="$system" 'BEGIN { printf "%.1f", s * 1000 }')
            min_ms[$label/$name]=$(awk -v s="$min" 'BEGIN { printf "%.1f", s * 1000 }')
            median_ms[$label/$name]=$(awk -v s="$median" 'BEGIN { printf "%.1f", s * 1000 }')
            max_ms[$label/$name]=$(awk -v s="$max" 'BEGIN { printf "%.1f", s * 1000 }')
        done <"$csv"
    else
        local k r t0 t1 samples
        for k in "${!names[@]}"; do
            for ((r = 0; r < warmup; r++)); do eval "${cmds[k]}" >/dev/null 2>&1; done
            samples=()
            for ((r = 0; r < runs; r++)); do
                t0=$(date +%s%N)
                eval "${cmds[k]}" >/dev/null 2>&1
                t1=$(date +%s%N)
                samples+=($(( t1 - t0 )))
            done
            read -r "mean_ms[$label/${names[k]}]" "sd_ms[$label/${names[k]}]" "min_ms[$label/${names[k]}]" \
                "median_ms[$label/${names[k]}]" "max_ms[$label/${names[k]}]" < <(printf '%s\n' "${samples[@]}" | summarize 1e6 %.1f)
            user_ms[$label/${names[k]}]=n/a
            sys_ms[$label/${names[k]}]=n/a
            printf '  %-28s %8s ms ± %s ms  (%d runs)\n' "$label ${names[k]}" \
                "${mean_ms[$label/${names[k]}]}" "${sd_ms[$label/${names[k]}]}" "$runs"
        done
    fi
}

declare -A ratio_of=()  # key: label -> median over rounds of first command's time / second's

# cpu_delta BEFORE AFTER: user and system CPU milliseconds between two outputs of `times`
# (its second line: this shell's finished children, e.g. "0m1.234s 0m0.045s"). `times` must
# run in this shell itself: in a command substitution it would report the subshell's children.
cpu_delta() {
    tail -q -n 1 "$1" "$2" | awk '{ for (i = 1; i <= 2; i++) { split($i, p, "m"); sub("s", "", p[2]); t[NR, i] = (p[1] * 60 + p[2]) * 1000 } }
        END { printf "%.1f %.1f\n", t[2, 1] - t[1, 1], t[2, 2] - t[1, 2] }'
}

# time_interleaved LABEL NAME1 CMD1 NAME2 CMD2: runs the two commands in turn, $warmup untimed
# rounds then $runs timed ones. On a shared machine whose speed drifts from one second to the
# next, running them alternately slows both alike, so the ratio is taken per round:
# ratio_of[LABEL] is the median over the rounds of CMD1's time over CMD2's. Fills the arrays of
# time_cases (mean, σ, min/median/max, mean user and system CPU) for both names.
time_interleaved() {
    local label=$1 names=("$2" "$4") cmds=("$3" "$5") r k t0 t1 u s
    local -a wall0=() wall1=() user0=() user1=() sys0=() sys1=()
    for ((r = 0; r < warmup; r++)); do
        for k in 0 1; do eval "${cmds[k]}" >/dev/null 2>&1; done
    done
    for ((r = 0; r < runs; r++)); do
        for k in 0 1; do
            times >"$tmp_dir/times.before"
            t0=$(date +%s%N)
            eval "${cmds[k]}" >/dev/null 2>&1 || die "failed: ${cmds[k]}"
            t1=$(date +%s%N)
            times >"$tmp_dir/times.after"
            read -r u s < <(cpu_delta "$tmp_dir/times.before" "$tmp_dir/times.after")
            if ((k == 0)); then wall0+=($(( t1 - t0 ))); user0+=("$u"); sys0+=("$s")
            else wall1+=($(( t1 - t0 ))); user1+=("$u"); sys1+=("$s"); fi
        done
    done
    local rest
    for k in 0 1; do
        local -n wall=wall$k user=user$k sys=sys$k
        read -r "mean_ms[$label/${names[k]}]" "sd_ms[$label/${names[k]}]" "min_ms[$label/${names[k]}]" \
            "median_ms[$label/${names[k]}]" "max_ms[$label/${names[k]}]" < <(printf '%s\n' "${wall[@]}" | summarize 1e6 %.1f)
        read -r "user_ms[$label/${names[k]}]" rest < <(printf '%s\n' "${user[@]}" | summarize 1 %.1f)
        read -r "sys_ms[$label/${names[k]}]" rest < <(printf '%s\n' "${sys[@]}" | summarize 1 %.1f)
        unset -n wall user sys
        printf '  %-28s %8s ms ± %s ms  (min %s, median %s, max %s; %d runs)\n' "$label ${names[k]}" \
            "${mean_ms[$label/${names[k]}]}" "${sd_ms[$label/${names[k]}]}" "${min_ms[$label/${names[k]}]}" \
            "${median_ms[$label/${names[k]}]}" "${max_ms[$label/${names[k]}]}" "$runs"
    done
    read -r rest rest rest "ratio_of[$label]" rest < <(for ((r = 0; r < runs; r++)); do echo "${wall0[r]} ${wall1[r]}"; done \
        | awk '{ print $1 / $2 }' | summarize 1 %.2f)
    echo "  $label ${names[0]}/${names[1]}: median of per-round ratios ${ratio_of[$label]}"
}

# bench_serve_store DB ROWS: DB is a copy of the wibosco Post store whose ZPOST is grown to ROWS
# rows as Core Data would write them (the next Z_PKs, Z_ENT of Post, Z_OPT 1, Z_PRIMARYKEY.Z_MAX
# moved along); an existing DB with those rows is reused. Sets post_ent.
bench_serve_store() {
    local serve_db=$1 serve_rows=$2 reuse_note first added start uuid_expr check
    serve_store_reusable() {
        [[ -f $serve_db ]] || { reuse_note="no ${serve_db#"$repo_root"/}"; return 1; }
        local have
        have=$(sql "$serve_db" "SELECT COUNT(*) FROM ZPOST;" 2>/dev/null) || have=unreadable
        if [[ $have != "$serve_rows" ]]; then
            reuse_note="its ZPOST holds $have rows, not $serve_rows"
            return 1
        fi
        post_ent=$(entity_number "$serve_db" Post)
        if [[ $(sql "$serve_db" "SELECT (SELECT Z_MAX FROM Z_PRIMARYKEY WHERE Z_ENT = $post_ent) = (SELECT MAX(Z_PK) FROM ZPOST);") != 1 ]]; then
            reuse_note="Z_MAX of Post is not ZPOST's largest Z_PK"
            return 1
        fi
        reuse_note="ZPOST holds $have rows, Z_MAX consistent"
    }

    if serve_store_reusable; then
        log "Reusing ${serve_db#"$repo_root"/}: $reuse_note"
    else
        log "Building ${serve_db#"$repo_root"/} ($reuse_note)"
        mkdir -p -- "$work"
        rm -f -- "$serve_db" "$serve_db-wal" "$serve_db-shm"
        copy_store "$corpus/$post_source" "$serve_db"
        post_ent=$(entity_number "$serve_db" Post)
        first=$(next_pk "$serve_db" ZPOST "$post_ent")
        added=$((serve_rows - $(sql "$serve_db" "SELECT COUNT(*) FROM ZPOST;")))
        ((added >= 0)) || die "the corpus store already holds more than $serve_rows Post rows"
        echo "inserting $added Post rows (Z_ENT $post_ent, Z_PK from $first)"
        start=$(date +%s%N)
        uuid_expr="substr(h, 1, 8) || '-' || substr(h, 9, 4) || '-4' || substr(h, 14, 3) || '-A' || substr(h, 18, 3) || '-' || substr(h, 21, 12)"
        bulk_insert "$serve_db" ZPOST "$post_ent" "
    WITH RECURSIVE seq(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM seq WHERE i + 1 < $added)
    INSERT INTO ZPOST (Z_PK, Z_ENT, Z_OPT, ZCOLOR, ZDATE, ZPOSTID)
    SELECT $first + i, $post_ent, 1, NULL,
           500000000 + (abs(random()) % 250000000) + (abs(random()) % 1000000) / 1000000.0,
           $uuid_expr
    FROM (SELECT i, hex(randomblob(16)) AS h FROM seq);"
        echo "done in $(( ($(date +%s%N) - start) / 1000000 )) ms"
        check=$(sql "$serve_db" 'PRAGMA quick_check;')
        [[ $check == ok ]] || die "quick_check failed on $serve_db: $check"
        serve_store_reusable || die "the new store is not as expected: $reuse_note"
    fi
}

#!/usr/bin/env bash
# Issue 26's speed goal in one run: `cdstore trace` on a large generated SQLDebug log against
# `grep -c 'CoreData: sql:'` on the same file (interleaved runs, median of per-round ratios), and
# trace's peak memory on the whole log and on a quarter of it (flat memory: the two are close).
#
#   scripts/bench-trace.sh [SIZE_MIB]     default 256; the issue's 1 GB is scripts/bench-trace.sh 1024
#
# The log is generated with a fixed seed from the shapes of reference/sqldebug.md §8: fetches
# with and without NSLog's prefix, binds, timings, to-many fault storms, object faults, saves,
# level-3 row dumps and lines of the app's own output. As a check, trace's statement count must
# equal grep's count of `CoreData: sql:` lines (every statement of the log is one such line).
#
# Environment knobs (all optional), besides those of bench-common.sh: BENCH_RUNS=3, BENCH_WARMUP=1.
# Goal (PASS/MISS; a MISS does not change the exit status): trace within 5x of grep.
set -euo pipefail

script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/bench-common.sh
source "$script_dir/bench-common.sh"

size_mib=${1:-256}
[[ $size_mib =~ ^[1-9][0-9]*$ ]] || die "SIZE_MIB must be a positive integer, not $size_mib"

bench_init bench-trace 3 1
bench_tools
bench_build

# generate FILE MIB: the seeded log, MIB mebibytes.
generate() {
    python3 - "$1" "$2" <<'PY'
import random, sys
path, mib = sys.argv[1], int(sys.argv[2])
random.seed(26)
def t(): return "%.4f" % (random.randint(0, 60) / 10000)
def wrap(line):
    r = random.random()
    if r < 0.3: return "2024-05-31 10:00:00.123 My App[123:4567] " + line
    if r < 0.4: return "2024-01-10 11:14:38.831786-0800 0x724d65  Debug  0x0  18248  14  App: (CoreData) [com.apple.coredata:sql] " + line
    return line
def chunk():
    out = []
    while sum(len(l) for l in out) < 1 << 20:
        k = random.random(); n = random.randint(1, 9)
        if k < 0.4:
            out.append(wrap("CoreData: sql: SELECT 0, t0.Z_PK, t0.Z_OPT, t0.ZNAME, t0.ZAGE, t0.ZCREATED FROM ZPERSON%d t0 WHERE  t0.ZAGE > ? ORDER BY t0.ZNAME" % n))
            out.append(wrap("CoreData: details: SQLite bind[0] = %d" % random.randint(0, 99)))
            out.append(wrap("CoreData: annotation: sql connection fetch time: %ss" % t()))
            out.append(wrap("CoreData: annotation: total fetch execution time: %ss for %d rows." % (t(), random.randint(0, 3000))))
        elif k < 0.6:
            for p in range(random.randint(1, 30)):
                out.append(wrap("CoreData: sql: SELECT 0, t0.Z_PK FROM Z_%dTAGS t1 JOIN ZTAG t0 ON t0.Z_PK = t1.Z_9TAGS WHERE t1.Z_%dITEMS = ?" % (n, n)))
                out.append(wrap("CoreData: annotation: sql connection fetch time: %ss" % t()))
                out.append(wrap("CoreData: annotation: total fetch execution time: %ss for 0 rows." % t()))
                out.append(wrap('CoreData: annotation: to-many relationship fault "tags" for objectID 0xa7ab2d44ebb9106e <x-coredata://0783522F-1851-4BC7-AE0D-AB4C83489E8B/Item%d/p%d> fulfilled from database.  Got 0 rows' % (n, p)))
        elif k < 0.7:
            out += [wrap("CoreData: sql: BEGIN EXCLUSIVE")]
            for _ in range(random.randint(1, 5)):
                out.append(wrap("CoreData: sql: INSERT INTO ZPERSON%d(Z_PK, Z_ENT, Z_OPT, ZNAME, ZAGE) VALUES(?, ?, ?, ?, ?)" % n))
            out.append(wrap("CoreData: sql: UPDATE ZPERSON%d SET ZNAME = ?, Z_OPT = ? WHERE Z_PK = ? AND Z_OPT = ?" % n))
            out.append(wrap("CoreData: annotation: sql execution time: %ss" % t()))
            out.append(wrap("CoreData: sql: COMMIT"))
        elif k < 0.8:
            out.append(wrap("CoreData: sql: SELECT COUNT(*) FROM ZPERSON%d t0 WHERE  t0.ZNAME = ?" % n))
            out.append(wrap("CoreData: annotation: total count request execution time: %ss for count of %d." % (t(), random.randint(0, 500))))
        elif k < 0.9:
            out.append(wrap("CoreData: annotation: fetch using NSSQLiteStatement <0x60800008bf40> on entity 'Person' with sql text 'SELECT 0, t0.Z_PK FROM ZPERSON%d t0' returned 3 rows with values: (" % n))
            for p in range(3):
                out.append('    "<Person: 0x60400009847%d> (entity: Person; id: 0xd000000000%d0000 <x-coredata://0783522F/Person/p%d>; data: <fault>)",' % (p, p, p))
            out.append(")")
        else:
            out.append("2024-05-31 10:00:00.124 My App[123:4567] loaded page %d of the feed" % random.randint(0, 999))
    return "\n".join(out) + "\n"
chunks = [chunk() for _ in range(16)]
written = 0
with open(path, "w") as f:
    while written < mib << 20:
        c = random.choice(chunks); f.write(c); written += len(c)
PY
}

log "Generating a ${size_mib} MiB log and a quarter of it (seed 26)"
big=$tmp_dir/app.log
quarter=$tmp_dir/quarter.log
generate "$big" "$size_mib"
generate "$quarter" $(( (size_mib + 3) / 4 ))
echo "log: $(mib "$(size_of "$big")") MiB, quarter: $(mib "$(size_of "$quarter")") MiB"

log "Check: trace's statements = grep's CoreData: sql: lines"
lines=$(grep -c 'CoreData: sql:' "$big")
statements=$("$cdstore" trace "$big" --json --top 0 | python3 -c 'import json, sys; print(json.load(sys.stdin)["input"]["statements"])')
echo "grep: $lines lines, trace: $statements statements"
[[ $lines == "$statements" ]] || die "trace counted $statements statements where grep counts $lines lines"

log "Timing (${runs} interleaved runs, ${warmup} warm-up)"
declare -A mean_ms sd_ms min_ms median_ms max_ms user_ms sys_ms ratio_of
# Both write to a file: GNU grep stops at the first match when its output is /dev/null.
time_interleaved "log" trace "$(q "$cdstore") trace $(q "$big") --top 0 > $(q "$tmp_dir/trace.out")" \
    grep "grep -c 'CoreData: sql:' $(q "$big") > $(q "$tmp_dir/grep.out")"

log "Peak memory"
peak() { "$gnu_time" -f %M "$@" 2>&1 >/dev/null | tail -1; }
if [[ $have_time == 1 ]]; then
    rss_big=$(peak "$cdstore" trace "$big" --top 0)
    rss_quarter=$(peak "$cdstore" trace "$quarter" --top 0)
    rss_grep=$("$gnu_time" -f %M sh -c 'grep -c "CoreData: sql:" "$1" > "$2"' sh "$big" "$tmp_dir/grep.out" 2>&1 | tail -1)
else
    rss_big=n/a rss_quarter=n/a rss_grep=n/a
fi

ratio=${ratio_of[log]}
verdict=$(awk -v r="$ratio" 'BEGIN { print (r <= 5 ? "PASS" : "MISS") }')
commit=$(git -C "$repo_root" rev-parse --short HEAD 2>/dev/null || echo unknown)
echo
echo "| log | grep -c (median) | trace (median) | trace/grep | goal | trace peak RSS (whole / quarter) | grep peak RSS |"
echo "|---|---|---|---|---|---|---|"
echo "| $(mib "$(size_of "$big")") MiB, $lines statements | ${median_ms[log/grep]} ms | ${median_ms[log/trace]} ms | ${ratio}× | ≤ 5× $verdict | ${rss_big} KiB / ${rss_quarter} KiB | ${rss_grep} KiB |"
echo "commit $commit, $(nproc) cores"

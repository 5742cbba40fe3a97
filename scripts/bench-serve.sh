#!/usr/bin/env bash
# Issue 25's speed goals for `cdstore serve`, side by side with Datasette in one run, on a store
# whose Post table holds 22,000,000 rows, then issue 35's mixed load:
#
#   - latency: the server time (curl's time_starttransfer, median over the rounds) of an entity's
#     first page and of page 10,000 (a keyset page: its `after` token names the last object of
#     page 9,999), as JSON and as HTML; goal <= 50 ms each;
#   - throughput: `wrk` on the entity's JSON page (50 objects) of cdstore, then on Datasette's
#     fastest URL for the same table of the same file (`datasette -i`, immutable, with
#     `?_size=50&_nocount=1&_nofacet=1&_nosuggest=1`); goal: cdstore >= 5x Datasette's requests/s;
#   - memory: cdstore serve's RSS, read from /proc each second under a longer `wrk` run over many
#     pages (JSON and HTML); flat = the last sample within 10% (or 4 MiB) of the sample at 5 s;
#   - mixed load (scripts/bench-serve-mix.py), one server after the other: for BENCH_MIX_SECONDS,
#     8 clients loop a slow filter (cdstore: postID MATCHES ".*(a|b)(c|d).*N.*", which no postID
#     matches, so every row is read; Datasette: ZPOSTID__contains, a LIKE '%…%', under its default
#     time limit), 8 clients loop plain pages (entity pages near and far, object pages, JSON and
#     HTML) and 4 listeners hold cdstore's event stream; goals for cdstore: plain-page p99
#     <= 100 ms, no answer but 200/304/503/504, the event stream's longest silence (time between
#     two of its messages: heartbeats, the `: watching` comment, events) <= 15 s + 1 s, RSS flat
#     (as above) and open descriptors back to where they were.
#
#   scripts/bench-serve.sh
#
# Environment knobs (all optional), besides BENCH_SKIP_BUILD, BENCH_NO_INSTALL and
# CDSTORE_CORPUS of bench-common.sh:
#   BENCH_SERVE_ROWS=22000000  rows in the Post table of Benchmarks/work/Serve.sqlite
#   BENCH_SERVE_PAGE=10000     the far page of the latency cases
#   BENCH_RUNS=10              latency rounds (after BENCH_WARMUP=2 untimed ones)
#   BENCH_WRK_THREADS=2, BENCH_WRK_CONNECTIONS=8, BENCH_WRK_SECONDS=20   the throughput runs
#   BENCH_RSS_SECONDS=60       the wrk run under which RSS is sampled
#   BENCH_MIX_SECONDS=60       the mixed load, per server
#
# Datasette comes from PyPI into a virtual environment in Benchmarks/work/datasette-venv; when it
# cannot be installed its rows say so and the cdstore rows are still measured. A MISS does not
# change the exit status; a failed request, build or check does.
set -euo pipefail

script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/bench-common.sh
source "$script_dir/bench-common.sh"

bench_init bench-serve 10 2
serve_rows=${BENCH_SERVE_ROWS:-22000000}
far_page=${BENCH_SERVE_PAGE:-10000}
wrk_threads=${BENCH_WRK_THREADS:-2}
wrk_connections=${BENCH_WRK_CONNECTIONS:-8}
wrk_seconds=${BENCH_WRK_SECONDS:-20}
rss_seconds=${BENCH_RSS_SECONDS:-60}
mix_seconds=${BENCH_MIX_SECONDS:-60}
page_size=50
for knob in serve_rows far_page wrk_threads wrk_connections wrk_seconds rss_seconds mix_seconds; do
    [[ ${!knob} =~ ^[1-9][0-9]*$ ]] || die "$knob (see the knobs at the top of $0) must be a positive integer"
done
((rss_seconds > 5)) || die "BENCH_RSS_SECONDS must be more than 5"
(((far_page - 1) * page_size < serve_rows)) || die "page $far_page is past the end of $serve_rows rows"

serve_db=$work/Serve.sqlite
venv=$work/datasette-venv
server_pids=()
wrk_pid=""

# Every server, wrk and temporary file goes on every way out.
stop_everything() {
    local pid
    if [[ -n $wrk_pid ]]; then kill -- "$wrk_pid" 2>/dev/null || true; wait "$wrk_pid" 2>/dev/null || true; fi
    for pid in "${server_pids[@]}"; do
        kill -- "$pid" 2>/dev/null || true
        wait "$pid" 2>/dev/null || true
    done
    rm -rf -- "$tmp_dir"
}
trap stop_everything EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

for tool in curl python3; do
    command -v "$tool" >/dev/null || die "$tool is required"
done
if ! command -v wrk >/dev/null; then
    apt_install wrk || true
fi
command -v wrk >/dev/null || die "wrk is required (Debian: apt-get install wrk)"

bench_build

# --------------------------------------------------------------------------
# The store: a copy of the wibosco Post store, its ZPOST grown to $serve_rows rows as Core Data
# would write them (the next Z_PKs, Z_ENT of Post, Z_OPT 1, Z_PRIMARYKEY.Z_MAX moved along).
# --------------------------------------------------------------------------
bench_serve_store "$serve_db" "$serve_rows"
report=$("$cdstore" inspect "$serve_db") || die "cdstore inspect failed on $serve_db"
if grep -q 'Z_MAX is' <<<"$report"; then die "cdstore reports a Z_MAX inconsistency in $serve_db"; fi
grep -E '^ *Post\b' <<<"$report" | head -1 || true
store_mib=$(mib "$(size_of "$serve_db")")
echo "${serve_db#"$repo_root"/}: $store_mib MiB, cdstore inspect clean"

# --------------------------------------------------------------------------
# Servers.
# --------------------------------------------------------------------------
free_port() {
    python3 -c 'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1]); s.close()'
}

# wait_for URL SECONDS: until URL answers 200.
wait_for() {
    local deadline=$((SECONDS + $2))
    until [[ $(curl -s -o /dev/null -w '%{http_code}' -- "$1" 2>/dev/null) == 200 ]]; do
        ((SECONDS < deadline)) || return 1
        sleep 0.2
    done
}

log "Datasette"
datasette=""
datasette_note=""
if [[ ! -x $venv/bin/datasette ]]; then
    rm -rf -- "$venv"
    if python3 -m venv "$venv" >"$tmp_dir/venv.log" 2>&1 && "$venv/bin/pip" install -q datasette >>"$tmp_dir/venv.log" 2>&1; then
        echo "installed into ${venv#"$repo_root"/}"
    else
        datasette_note="Datasette could not be installed from PyPI ($(tail -1 "$tmp_dir/venv.log"))"
        rm -rf -- "$venv"
    fi
fi
if [[ -x $venv/bin/datasette ]]; then
    datasette_version=$("$venv/bin/datasette" --version | awk '{ print $NF }')
    datasette_port=$(free_port)
    "$venv/bin/datasette" serve -i "$serve_db" -h 127.0.0.1 -p "$datasette_port" >"$tmp_dir/datasette.log" 2>&1 &
    server_pids+=($!)
    datasette_pid=$!
    datasette=http://127.0.0.1:$datasette_port
    wait_for "$datasette/-/versions.json" 60 || die "Datasette did not start: $(tail -3 "$tmp_dir/datasette.log")"
    echo "Datasette $datasette_version at $datasette (immutable), pid $datasette_pid"
else
    echo "SKIPPED: ${datasette_note:-no datasette in $venv}"
fi

log "cdstore serve"
"$cdstore" serve "$serve_db" --port 0 >"$tmp_dir/serve.log" 2>&1 &
server_pids+=($!)
serve_pid=$!
cdstore_url=$(serve_url "$tmp_dir/serve.log" "$serve_pid" 60)
echo "cdstore serve at $cdstore_url, pid $serve_pid"

# --------------------------------------------------------------------------
# The pages. cdstore's `after` token of the default sort is base64url of `v1|||<Z_PK>`
# (Sources/CDServe/PageToken.swift): the script builds the token of page 2 that way and checks it
# against page 1's `next` link, then builds page $far_page's and checks its first object.
# --------------------------------------------------------------------------
entity_path=/stores/Serve/entities/Post
datasette_path=/Serve/ZPOST
fast_query="_size=$page_size&_nocount=1&_nofacet=1&_nosuggest=1"
# pk_at N: the Z_PK of the Nth Post (from 0) in Z_PK order.
pk_at() { sql "$serve_db" "SELECT Z_PK FROM ZPOST WHERE Z_ENT = $post_ent ORDER BY Z_PK LIMIT 1 OFFSET $1;"; }
token() { printf 'v1|||%s' "$1" | base64 -w0 | tr '+/' '-_' | tr -d '='; }
# json_field EXPRESSION: prints EXPRESSION of the JSON document on stdin, `d`.
json_field() { python3 -c "import json, sys; d = json.load(sys.stdin); print($1)"; }

log "Checking the pages"
cold_start=$(date +%s%N)
page1_json=$(curl -sf -- "$cdstore_url$entity_path.json") || die "cdstore's first page failed"
cold_ms=$(( ($(date +%s%N) - cold_start) / 1000000 ))
echo "first request (counts the store once for this snapshot): $cold_ms ms"
count=$(json_field 'd["count"]' <<<"$page1_json")
[[ $count == "$(sql "$serve_db" "SELECT COUNT(*) FROM ZPOST WHERE Z_ENT = $post_ent;")" ]] || die "cdstore's count $count is not the table's"
next=$(json_field 'd["next"]' <<<"$page1_json")
want_next="$entity_path.json?after=$(token "$(pk_at $((page_size - 1)))")"
[[ $next == "$want_next" ]] || die "page 1's next link is $next, the script would build $want_next"
far_after=$(token "$(pk_at $(((far_page - 1) * page_size - 1)))")
far_first=$(pk_at $(((far_page - 1) * page_size)))
far_json=$(curl -sf -- "$cdstore_url$entity_path.json?after=$far_after") || die "cdstore's page $far_page failed"
got=$(json_field 'len(d["objects"]), d["objects"][0]["_id"].rsplit("/p", 1)[1]' <<<"$far_json")
[[ $got == "$page_size $far_first" ]] || die "page $far_page has (objects, first Z_PK) $got, expected $page_size $far_first"
echo "page 1's next link is the token the script builds; page $far_page holds $page_size objects from Z_PK $far_first"
if [[ -n $datasette ]]; then
    rows=$(curl -sf -- "$datasette$datasette_path.json?$fast_query&_shape=array" | json_field 'len(d), d[0]["Z_PK"]') \
        || die "Datasette's page failed"
    [[ $rows == "$page_size $(pk_at 0)" ]] || die "Datasette's first page has (rows, first Z_PK) $rows"
    datasette_far_query="$fast_query&_next=$(pk_at $(((far_page - 1) * page_size - 1)))"
    rows=$(curl -sf -- "$datasette$datasette_path.json?$datasette_far_query&_shape=array" | json_field 'len(d), d[0]["Z_PK"]') \
        || die "Datasette's page $far_page failed"
    [[ $rows == "$page_size $far_first" ]] || die "Datasette's page $far_page has (rows, first Z_PK) $rows"
    echo "Datasette serves the same rows (page 1 and page $far_page via _next)"
fi

# --------------------------------------------------------------------------
# Latency: each round requests every case once, in turn.
# --------------------------------------------------------------------------
cases=(
    "cdstore first page, JSON|$cdstore_url$entity_path.json"
    "cdstore page $far_page, JSON|$cdstore_url$entity_path.json?after=$far_after"
    "cdstore first page, HTML|$cdstore_url$entity_path"
    "cdstore page $far_page, HTML|$cdstore_url$entity_path?after=$far_after"
)
if [[ -n $datasette ]]; then
    cases+=(
        "Datasette first page, JSON|$datasette$datasette_path.json?$fast_query"
        "Datasette page $far_page, JSON|$datasette$datasette_path.json?$datasette_far_query"
    )
fi
load_before=$(cut -d' ' -f1-3 /proc/loadavg)
log "Latency: $warmup warmup and $runs timed rounds (load $load_before)"
declare -A samples=()
for ((round = 0; round < warmup + runs; round++)); do
    for entry in "${cases[@]}"; do
        name=${entry%%|*}
        read -r code seconds < <(curl -s -o /dev/null -w '%{http_code} %{time_starttransfer}\n' -- "${entry#*|}")
        [[ $code == 200 ]] || die "$name answered $code"
        ((round < warmup)) || samples[$name]+="$seconds "
    done
done
declare -A latency=()
for entry in "${cases[@]}"; do
    name=${entry%%|*}
    # shellcheck disable=SC2086  # one number a word
    read -r _ _ lo med hi < <(printf '%s\n' ${samples[$name]} | summarize 0.001 %.1f)
    latency[$name]="$med $lo $hi"
    printf '  %-32s median %7s ms (min %s, max %s)\n' "$name" "$med" "$lo" "$hi"
done

# --------------------------------------------------------------------------
# Throughput, one server after the other.
# --------------------------------------------------------------------------
# run_wrk URL: requests/s, mean latency and non-2xx count of one wrk run, on one line.
run_wrk() {
    wrk -t"$wrk_threads" -c"$wrk_connections" -d"${wrk_seconds}s" -- "$1" >"$tmp_dir/wrk.out" 2>&1 || die "wrk failed: $(cat "$tmp_dir/wrk.out")"
    awk '/Requests\/sec:/ { rps = $2 } /^ *Latency/ { lat = $2 } /Non-2xx/ { bad = $NF } /Socket errors/ { err = $0 }
         END { printf "%s %s %s\n", rps, lat, bad + 0 }' "$tmp_dir/wrk.out"
}
log "Throughput: wrk -t$wrk_threads -c$wrk_connections -d${wrk_seconds}s"
read -r cdstore_rps cdstore_wrk_latency cdstore_bad < <(run_wrk "$cdstore_url$entity_path.json")
echo "  cdstore:   $cdstore_rps requests/s (mean latency $cdstore_wrk_latency, $cdstore_bad non-2xx)"
((cdstore_bad == 0)) || die "cdstore answered $cdstore_bad requests with an error under wrk"
ratio=n/a
datasette_rps=n/a datasette_wrk_latency=n/a
if [[ -n $datasette ]]; then
    read -r datasette_rps datasette_wrk_latency datasette_bad < <(run_wrk "$datasette$datasette_path.json?$fast_query")
    echo "  Datasette: $datasette_rps requests/s (mean latency $datasette_wrk_latency, $datasette_bad non-2xx)"
    ((datasette_bad == 0)) || die "Datasette answered $datasette_bad requests with an error under wrk"
    ratio=$(awk -v a="$cdstore_rps" -v b="$datasette_rps" 'BEGIN { printf "%.2f", a / b }')
    echo "  ratio: ${ratio}x"
fi

# --------------------------------------------------------------------------
# RSS under a longer run over 200 pages spread over the table, JSON and HTML in turn.
# --------------------------------------------------------------------------
log "RSS of cdstore serve under wrk for ${rss_seconds}s"
first_pk=$(pk_at 0)
{
    echo "local paths = {"
    for ((k = 0; k < 200; k++)); do
        page=$(( (k * 7919) % (serve_rows / page_size) ))
        suffix=""; ((k % 2)) || suffix=.json
        if ((page == 0)); then echo "  \"$entity_path$suffix\","
        else echo "  \"$entity_path$suffix?after=$(token $((first_pk + page * page_size - 1)))\","; fi
    done
    echo "}"
    echo "local i = 0"
    echo "request = function() i = i % #paths + 1; return wrk.format(nil, paths[i]) end"
} >"$tmp_dir/pages.lua"
rss_kib() { awk '/^VmRSS:/ { print $2 }' "/proc/$serve_pid/status"; }
wrk -t"$wrk_threads" -c"$wrk_connections" -d"${rss_seconds}s" -s "$tmp_dir/pages.lua" -- "$cdstore_url" >"$tmp_dir/wrk-rss.out" 2>&1 &
wrk_pid=$!
rss=()
for ((s = 1; s <= rss_seconds; s++)); do
    sleep 1
    rss+=("$(rss_kib)")
done
wait "$wrk_pid" || die "wrk failed: $(cat "$tmp_dir/wrk-rss.out")"
wrk_pid=""
rss_bad=$(awk '/Non-2xx/ { print $NF }' "$tmp_dir/wrk-rss.out")
[[ -z $rss_bad ]] || die "cdstore answered $rss_bad requests with an error in the RSS run"
rss_rps=$(awk '/Requests\/sec:/ { print $2 }' "$tmp_dir/wrk-rss.out")
to_mib() { awk -v k="$1" 'BEGIN { printf "%.1f", k / 1024 }'; }
rss_first=$(to_mib "${rss[0]}")
rss_base=$(to_mib "${rss[4]}")
rss_last=$(to_mib "${rss[-1]}")
rss_max=$(to_mib "$(printf '%s\n' "${rss[@]}" | sort -n | tail -1)")
rss_flat=$(awk -v b="$rss_base" -v l="$rss_last" 'BEGIN { d = l - b; if (d < 0) d = -d; t = b * 0.1; if (t < 4) t = 4; print (d <= t) ? "PASS" : "MISS" }')
echo "  RSS MiB: first $rss_first, at 5 s $rss_base, max $rss_max, last $rss_last ($rss_rps requests/s over 200 pages)"
echo "  every second (KiB): ${rss[*]}"

# --------------------------------------------------------------------------
# Mixed load: slow filters, plain pages and event listeners at once, one server after the other.
# --------------------------------------------------------------------------
log "Mixed load, ${mix_seconds}s per server"
urlencode() { python3 -c 'import sys, urllib.parse; print(urllib.parse.quote(sys.argv[1], safe=""))' "$1"; }
mix_pks=()
for ((k = 0; k < 50; k++)); do mix_pks+=("$(pk_at $(( (k * 104729) % serve_rows )))"); done
{
    echo "$entity_path"
    echo "$entity_path.json"
    echo "$entity_path?after=$far_after"
    echo "$entity_path.json?after=$far_after"
    for pk in "${mix_pks[@]}"; do echo "$entity_path/$pk"; echo "$entity_path/$pk.json"; done
} >"$tmp_dir/mix-cdstore.txt"
cdstore_slow="$entity_path.json?where=$(urlencode 'postID MATCHES ".*(a|b)(c|d).*N.*"')"
# run_mix NAME URL PID PATHS SLOW EVENTS: the mix's JSON document, saved as $tmp_dir/mix-NAME.json.
run_mix() {
    python3 "$script_dir/bench-serve-mix.py" "$2" "$3" "$4" "$5" "$6" "$mix_seconds" >"$tmp_dir/mix-$1.json" \
        || die "the mixed load against $1 failed"
    python3 - "$tmp_dir/mix-$1.json" <<'PY'
import json, sys
d = json.load(open(sys.argv[1]))
p, s = d["plain"], d["slow"]
print(f"  plain pages: {p['count']} answers, p50 {p['p50_ms']} ms, p99 {p['p99_ms']} ms, max {p['max_ms']} ms, statuses {p['statuses']}")
print(f"  slow filters: {s['count']} answers, statuses {s['statuses']}")
if d["silence_gaps_s"]: print(f"  event-stream silences (s): {d['silence_gaps_s']}")
print(f"  RSS KiB every second: {d['rss_kib']}")
print(f"  open descriptors: {d['fds_before']} before, {d['fds_after']} after")
for e in d["errors"]: print(f"  error: {e}")
PY
}
echo "cdstore serve (slow: postID MATCHES, --query-timeout 10 s)"
run_mix cdstore "$cdstore_url" "$serve_pid" "$tmp_dir/mix-cdstore.txt" "$cdstore_slow" /stores/Serve/events
if [[ -n $datasette ]]; then
    {
        echo "$datasette_path?$fast_query"
        echo "$datasette_path.json?$fast_query"
        echo "$datasette_path?$datasette_far_query"
        echo "$datasette_path.json?$datasette_far_query"
        for pk in "${mix_pks[@]}"; do echo "$datasette_path/$pk"; echo "$datasette_path/$pk.json"; done
    } >"$tmp_dir/mix-datasette.txt"
    echo "Datasette (slow: ZPOSTID__contains=zz, LIKE '%zz%', default time limit)"
    run_mix datasette "$datasette" "$datasette_pid" "$tmp_dir/mix-datasette.txt" "$datasette_path.json?ZPOSTID__contains=zz" -
fi
# mix_row NAME: the table's row of one server's mix.
mix_row() {
    python3 - "$tmp_dir/mix-$1.json" "$1" <<'PY'
import json, sys
d, name = json.load(open(sys.argv[1])), sys.argv[2]
p, s, rss, gaps = d["plain"], d["slow"], d["rss_kib"], d["silence_gaps_s"]
statuses = lambda t: ", ".join(f"{k}: {v}" for k, v in sorted(t.items()))
allowed = {"200", "304", "503", "504"}
ok_status = set(p["statuses"]) <= allowed and set(s["statuses"]) <= allowed
base, last = rss[min(4, len(rss) - 1)], rss[-1]
flat = abs(last - base) <= max(base * 0.1, 4096)
gap = max(gaps) if gaps else None
if name == "cdstore":
    verdict = lambda ok: "PASS" if ok else "MISS"
    goals = [verdict(p["p99_ms"] is not None and p["p99_ms"] <= 100), verdict(ok_status), verdict(gap is not None and gap <= 16),
             verdict(flat), verdict(d["fds_after"] <= d["fds_before"])]
else:
    goals = ["", "", "", "", ""]
print(f"| {name}: plain pages ({p['count']}) p50 / p99 / max | {p['p50_ms']} / {p['p99_ms']} / {p['max_ms']} ms | p99 ≤ 100 ms | {goals[0]} |")
print(f"| {name}: answers, plain ({statuses(p['statuses'])}); slow ({statuses(s['statuses'])}) | {s['count']} slow | 200/304/503/504 only | {goals[1]} |")
print(f"| {name}: longest silence on the event stream (heartbeat gap), 4 listeners | {gap if gap is not None else 'n/a (no event stream)'} s | ≤ 16 s | {goals[2]} |")
print(f"| {name}: RSS first / at 5 s / max / last | {rss[0] // 1024} / {base // 1024} / {max(rss) // 1024} / {last // 1024} MiB | last within 10% of 5 s | {goals[3]} |")
print(f"| {name}: open descriptors before / after | {d['fds_before']} / {d['fds_after']} | back to before | {goals[4]} |")
PY
}
load_after=$(cut -d' ' -f1-3 /proc/loadavg)

# --------------------------------------------------------------------------
# Summary.
# --------------------------------------------------------------------------
bench_revision >/dev/null
goal_row() {
    local name=$1 med lo hi
    read -r med lo hi <<<"${latency[$name]}"
    echo "| $name | $med ms | $lo/$med/$hi | ≤ 50 ms | $(pass_miss "$med" 50) |"
}
datasette_row() {
    local name=$1 med lo hi
    [[ -n ${latency[$name]:-} ]] || return 0
    read -r med lo hi <<<"${latency[$name]}"
    echo "| $name (for comparison) | $med ms | $lo/$med/$hi | | |"
}
throughput_verdict=n/a
[[ $ratio != n/a ]] && throughput_verdict=$(awk -v r="$ratio" 'BEGIN { print (r + 0 >= 5) ? "PASS" : "MISS" }')
log "Summary"
{
    echo "## Issue 25's speed table ($(date -u +%Y-%m-%d), cdstore $revision, $(nproc) cores, ${datasette_version:+Datasette $datasette_version, }SQLite $(sqlite3 --version | cut -d' ' -f1), load $load_before before, $load_after after)"
    echo
    echo "Store: $(printf "%'d" "$count") Post objects in ZPOST, $store_mib MiB. Latency: curl's time to first byte on loopback, $runs rounds after $warmup warmup; the first request after start, which counts the store once for its snapshot, took $cold_ms ms."
    echo
    echo "| case | now | min/median/max | goal | |"
    echo "|---|---|---|---|---|"
    goal_row "cdstore first page, JSON"
    goal_row "cdstore page $far_page, JSON"
    goal_row "cdstore first page, HTML"
    goal_row "cdstore page $far_page, HTML"
    datasette_row "Datasette first page, JSON"
    datasette_row "Datasette page $far_page, JSON"
    if [[ -n $datasette ]]; then
        echo "| throughput, JSON page of $page_size (\`wrk -t$wrk_threads -c$wrk_connections -d${wrk_seconds}s\`): cdstore $cdstore_rps req/s, Datasette $datasette_rps req/s | ${ratio}× | mean latency $cdstore_wrk_latency; $datasette_wrk_latency | ≥ 5× | $throughput_verdict |"
    else
        echo "| throughput, JSON page of $page_size: cdstore $cdstore_rps req/s; Datasette not measured (${datasette_note:-not installed}) | n/a | mean latency $cdstore_wrk_latency | ≥ 5× | n/a |"
    fi
    echo "| RSS of cdstore serve under ${rss_seconds}s of wrk over 200 pages ($rss_rps req/s): first/at 5 s/max/last | $rss_last MiB | $rss_first/$rss_base/$rss_max/$rss_last MiB | last within 10% (or 4 MiB) of 5 s | $rss_flat |"
    echo
    echo "Issue 35's mixed load, ${mix_seconds}s per server: 8 clients looping a slow filter, 8 looping plain pages (entity pages near and far, $((${#mix_pks[@]} * 2)) object pages, JSON and HTML), 4 event-stream listeners (cdstore only; Datasette has none)."
    echo
    echo "| mixed load | now | goal | |"
    echo "|---|---|---|---|"
    mix_row cdstore
    [[ -z $datasette ]] || mix_row datasette
} | tee "$work/serve-summary.md"
echo
echo "table saved to Benchmarks/work/serve-summary.md"

#!/usr/bin/env bash
# Issue 35's `serve --find` at scale: 200 stores found under one folder (copies of the corpus's
# real stores, each in a folder of its own), served by `cdstore serve --find`:
#
#   - the store list (`/` and `/.json`) answers in <= 50 ms (curl's time_total, median and max
#     over the rounds), before any store is visited and after all were;
#   - stores are opened when first visited: RSS after start, then after a visit to every store's
#     page (`/stores/N.json`, which opens it), and its peak; goal <= 100 MiB throughout;
#   - idle stores are closed: after the idle time (60 s) one request sweeps them, and RSS is read
#     again.
#
#   scripts/bench-serve-find.sh
#
# Environment knobs (all optional), besides BENCH_SKIP_BUILD, BENCH_NO_INSTALL and
# CDSTORE_CORPUS of bench-common.sh:
#   BENCH_FIND_STORES=200   stores found
#   BENCH_RUNS=20           timed rounds of the store list (after BENCH_WARMUP=2)
#   BENCH_FIND_IDLE=65      seconds to wait before the sweep (serve closes stores idle for 60 s)
set -euo pipefail

script_dir=$(cd -- "$(dirname -- "${BASH_SOURCE[0]}")" && pwd)
# shellcheck source=scripts/bench-common.sh
source "$script_dir/bench-common.sh"

bench_init bench-serve-find 20 2
store_count=${BENCH_FIND_STORES:-200}
idle_wait=${BENCH_FIND_IDLE:-65}
for knob in store_count idle_wait; do
    [[ ${!knob} =~ ^[1-9][0-9]*$ ]] || die "$knob (see the knobs at the top of $0) must be a positive integer"
done
command -v curl >/dev/null || die "curl is required"
found=$tmp_dir/found
mkdir -p -- "$work"
serve_pid=""
stop_server() {
    if [[ -n $serve_pid ]]; then kill -- "$serve_pid" 2>/dev/null || true; wait "$serve_pid" 2>/dev/null || true; fi
    rm -rf -- "$tmp_dir"
}
trap stop_server EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

bench_build

log "Copying $store_count corpus stores into a folder of their own each"
mapfile -t sources < <(cd "$corpus" && find . -name '*.sqlite' | sed 's|^\./||' | sort)
((${#sources[@]} > 0)) || die "no .sqlite store in $corpus"
for ((k = 0; k < store_count; k++)); do
    source_store=${sources[k % ${#sources[@]}]}
    mkdir -p -- "$found/$k"
    copy_store "$corpus/$source_store" "$found/$k/$(basename -- "$source_store")"
done
echo "$store_count stores from ${#sources[@]} corpus stores, $(du -sm -- "$found" | cut -f1) MiB"

log "cdstore serve --find"
"$cdstore" serve --find "$found" --port 0 >"$tmp_dir/serve.log" 2>&1 &
serve_pid=$!
url=$(serve_url "$tmp_dir/serve.log" "$serve_pid" 120)
head -1 "$tmp_dir/serve.log"
rss_mib() { awk '/^VmRSS:/ { printf "%.1f", $2 / 1024 }' "/proc/$serve_pid/status"; }
served=$(curl -sf -- "$url/.json" | python3 -c 'import json, sys; print(len(json.load(sys.stdin)["stores"]))') || die "the store list failed"
[[ $served == "$store_count" ]] || die "serve found $served stores, not $store_count"
rss_start=$(rss_mib)
echo "serves $served stores; RSS $rss_start MiB"

# list_times LABEL: median and max time of / and /.json over the rounds, in ms.
list_times() {
    local round path samples=()
    for ((round = 0; round < warmup + runs; round++)); do
        for path in / /.json; do
            read -r code seconds < <(curl -s -o /dev/null -w '%{http_code} %{time_total}\n' -- "$url$path")
            [[ $code == 200 ]] || die "$path answered $code"
            ((round < warmup)) || samples+=("$seconds")
        done
    done
    read -r _ _ _ med hi < <(printf '%s\n' "${samples[@]}" | summarize 0.001 %.1f)
    echo "$med $hi"
}

log "The store list before any store is opened"
read -r cold_med cold_max < <(list_times)
echo "median $cold_med ms, max $cold_max ms"

log "Visiting every store"
rss_peak=$rss_start
for ((n = 1; n <= store_count; n++)); do
    code=$(curl -s -o /dev/null -w '%{http_code}' -- "$url/stores/$n.json")
    # A store without a model cache answers 409 (it needs --model), which still opens it.
    [[ $code == 200 || $code == 409 ]] || die "/stores/$n.json answered $code"
    rss_peak=$(awk -v a="$rss_peak" -v b="$(rss_mib)" 'BEGIN { print (b > a) ? b : a }')
done
rss_visited=$(rss_mib)
echo "RSS after visiting all: $rss_visited MiB (peak $rss_peak MiB)"

log "The store list with every store visited"
read -r warm_med warm_max < <(list_times)
echo "median $warm_med ms, max $warm_max ms"

log "Waiting ${idle_wait}s for the stores to go idle"
sleep "$idle_wait"
curl -sf -o /dev/null -- "$url/" || die "the store list failed after the wait"
rss_idle=$(rss_mib)
echo "RSS after the sweep: $rss_idle MiB"

bench_revision >/dev/null
list_goal() { awk -v v="$1" 'BEGIN { print (v + 0 <= 50) ? "PASS" : "MISS" }'; }
rss_goal() { awk -v v="$1" 'BEGIN { print (v + 0 <= 100) ? "PASS" : "MISS" }'; }
log "Summary"
{
    echo "## Issue 35's serve --find at scale ($(date -u +%Y-%m-%d), cdstore $revision, $(nproc) cores)"
    echo
    echo "$store_count stores found (copies of the corpus's ${#sources[@]} .sqlite stores, each in its own folder); store list timed with curl's time_total over $runs rounds of / and /.json after $warmup warmup."
    echo
    echo "| case | now | goal | |"
    echo "|---|---|---|---|"
    echo "| store list, no store opened: median / max | $cold_med / $cold_max ms | ≤ 50 ms | $(list_goal "$cold_max") |"
    echo "| store list, every store visited: median / max | $warm_med / $warm_max ms | ≤ 50 ms | $(list_goal "$warm_max") |"
    echo "| RSS after start | $rss_start MiB | ≤ 100 MiB | $(rss_goal "$rss_start") |"
    echo "| RSS after visiting all $store_count stores (peak) | $rss_visited MiB ($rss_peak) | ≤ 100 MiB | $(rss_goal "$rss_peak") |"
    echo "| RSS after the idle sweep | $rss_idle MiB | ≤ 100 MiB | $(rss_goal "$rss_idle") |"
} | tee "$work/serve-find-summary.md"

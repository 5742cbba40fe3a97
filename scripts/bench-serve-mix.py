#!/usr/bin/env python3
"""The mixed load of scripts/bench-serve.sh (issue 35), against one server at a time.

For SECONDS, at once: SLOW clients each loop a slow filter (a 503 is retried after its
Retry-After, as a client should); PLAIN clients each loop plain pages (entity pages and object
pages, in turn from a list); LISTENERS hold the server's event stream open and time the gaps
between its messages (a heartbeat, the `: watching` comment that says the first snapshot is read,
an event): the silences a client or a proxy sees. A sampler reads the server's RSS every second.
Open file descriptors are counted before the load and again once every client has gone. Prints
one JSON document:

  {"plain": {"count", "p50_ms", "p99_ms", "max_ms", "statuses"}, "slow": {"count", "statuses"},
   "silence_gaps_s": [...], "rss_kib": [...], "fds_before", "fds_after", "errors": [...]}

Usage: bench-serve-mix.py BASE_URL PID PLAIN_PATHS_FILE SLOW_PATH EVENTS_PATH|- SECONDS
       [SLOW PLAIN LISTENERS]
"""

import http.client
import json
import os
import socket
import sys
import threading
import time
import urllib.parse


def connection(base):
    parts = urllib.parse.urlsplit(base)
    return http.client.HTTPConnection(parts.hostname, parts.port, timeout=120)


def get(conn_holder, base, path):
    """GETs path on a kept-alive connection, reading the whole body; reconnects once when the
    server closed the connection (cdstore closes it after a heavy page)."""
    for attempt in range(2):
        if conn_holder[0] is None:
            conn_holder[0] = connection(base)
        conn = conn_holder[0]
        try:
            conn.request("GET", path, headers={"Accept": "*/*"})
            response = conn.getresponse()
            response.read()
            if response.getheader("Connection", "").lower() == "close":
                conn.close()
                conn_holder[0] = None
            return response.status, response.getheader("Retry-After")
        except (http.client.HTTPException, OSError):
            conn.close()
            conn_holder[0] = None
            if attempt == 1:
                raise
    raise RuntimeError("unreachable")


def fd_count(pid):
    return len(os.listdir(f"/proc/{pid}/fd"))


def rss_kib(pid):
    with open(f"/proc/{pid}/status") as status:
        for line in status:
            if line.startswith("VmRSS:"):
                return int(line.split()[1])
    return 0


def main():
    base, pid, plain_file, slow_path, events_path, seconds = sys.argv[1:7]
    slow_n, plain_n, listeners_n = (int(x) for x in (sys.argv[7:10] or [8, 8, 4]))
    pid, seconds = int(pid), float(seconds)
    with open(plain_file) as f:
        plain_paths = [line.strip() for line in f if line.strip()]
    if events_path == "-":
        listeners_n = 0

    fds_before = fd_count(pid)
    lock = threading.Lock()
    latencies, plain_statuses, slow_statuses, gaps, rss, errors = [], {}, {}, [], [], []
    end = time.monotonic() + seconds

    def count(table, key):
        with lock:
            table[key] = table.get(key, 0) + 1

    def plain_client(index):
        holder = [None]
        i = index
        while time.monotonic() < end:
            path = plain_paths[i % len(plain_paths)]
            i += plain_n
            start = time.monotonic()
            try:
                status, _ = get(holder, base, path)
            except Exception as error:  # noqa: BLE001 - every failure is a result here
                count(plain_statuses, "error")
                with lock:
                    errors.append(f"plain {path}: {error}")
                continue
            with lock:
                latencies.append((time.monotonic() - start) * 1000)
            count(plain_statuses, str(status))
        if holder[0]:
            holder[0].close()

    def slow_client():
        holder = [None]
        while time.monotonic() < end:
            try:
                status, retry_after = get(holder, base, slow_path)
            except Exception as error:  # noqa: BLE001
                count(slow_statuses, "error")
                with lock:
                    errors.append(f"slow: {error}")
                continue
            count(slow_statuses, str(status))
            if status == 503:
                time.sleep(min(float(retry_after or 1), max(0.0, end - time.monotonic())))
        if holder[0]:
            holder[0].close()

    def listener():
        conn = connection(base)
        try:
            conn.request("GET", events_path, headers={"Accept": "text/event-stream"})
            response = conn.getresponse()
            if response.status != 200:
                with lock:
                    errors.append(f"events: {response.status}")
                return
            # Blocking reads, ended by a timer that shuts the socket at the end of the run: a
            # read that timed out leaves Python's socket file unreadable from then on.
            timer = threading.Timer(max(0.0, end - time.monotonic()), lambda: conn.sock and conn.sock.shutdown(socket.SHUT_RDWR))
            timer.start()
            last = time.monotonic()
            try:
                while True:
                    try:
                        line = response.fp.readline()
                    except OSError:
                        break
                    if not line:
                        if time.monotonic() < end - 0.5:
                            with lock:
                                errors.append("events: the stream ended")
                        break
                    # The blank line that ends every message (comment or event); the socket is
                    # read raw, so the chunked encoding's "\r\n" lines are not messages.
                    if line == b"\n":
                        now = time.monotonic()
                        with lock:
                            gaps.append(round(now - last, 2))
                        last = now
            finally:
                timer.cancel()
            with lock:
                gaps.append(round(min(time.monotonic(), end) - last, 2))
        finally:
            conn.close()

    def sampler():
        while time.monotonic() < end:
            time.sleep(1)
            rss.append(rss_kib(pid))

    threads = [threading.Thread(target=plain_client, args=(i,)) for i in range(plain_n)]
    threads += [threading.Thread(target=slow_client) for _ in range(slow_n)]
    threads += [threading.Thread(target=listener) for _ in range(listeners_n)]
    threads.append(threading.Thread(target=sampler))
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    # The server closes what the clients left; give it a moment.
    fds_after = fd_count(pid)
    for _ in range(50):
        if fds_after <= fds_before:
            break
        time.sleep(0.2)
        fds_after = fd_count(pid)

    latencies.sort()

    def percentile(p):
        if not latencies:
            return None
        return round(latencies[min(len(latencies) - 1, int(p * len(latencies)))], 1)

    print(json.dumps({
        "plain": {"count": len(latencies), "p50_ms": percentile(0.50), "p99_ms": percentile(0.99),
                  "max_ms": round(latencies[-1], 1) if latencies else None, "statuses": plain_statuses},
        "slow": {"count": sum(slow_statuses.values()), "statuses": slow_statuses},
        "silence_gaps_s": gaps, "rss_kib": rss, "fds_before": fds_before, "fds_after": fds_after,
        "errors": errors[:20],
    }))


if __name__ == "__main__":
    main()

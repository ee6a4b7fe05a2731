#!/usr/bin/env bash
# Fleet benchmarks against a throwaway PostgreSQL (docs/store.md#benchmarks):
#
#   bash Tests/Postgres/fleet-bench.sh [--quick] [BIN_DIR] [RUNS]
#
# 1. Durable runs/s: RUNS commission-device runs (each on a structure of its own, the built-in simulated home,
#    virtual time) queued in the store and run by 1, 2 and 4 `matterflow worker` processes (--concurrency 32, the
#    worker's default) until the queue is empty; next to the same runs made by as many `matterflow-bench
#    --worker-baseline` processes (the worker's runs without the store, 32 at a time each), with a file journal and
#    not durable; and the same store runs again with commits that do not wait for the disk (synchronous_commit
#    off: what durability itself costs, beside the cost of keeping records). One table, per number of processes:
#    runs/s of each, the store's share of not durable, the store's records per transaction, and the machine's
#    1-minute load average after the row (/proc/loadavg: the figures mean little on a busy machine).
#    Then the CPU each durable run cost the server (its processes, from /proc) and the workers, and each run without
#    a record cost its process: CPU time, unlike runs/s, hardly depends on what else the machine is running.
# 2. Takeover time: a worker is SIGKILLed while commissioning (lease 2 s); the time until another worker has settled
#    the run (lease + settle).
#
# BIN_DIR holds matterflow and matterflow-bench (default .build/release: swift build -c release --product matterflow,
# then --product matterflow-bench). --quick (CI): RUNS defaults to 24 instead of 400. The script fails only when a run
# does not succeed or a command fails, never on slow figures. The server is started in a temporary directory and
# stopped on every way out; every process it starts is stopped by its PID, and every wait is bounded.
set -euo pipefail
cd "$(dirname "$0")/../.."
quick=0
if [ "${1:-}" = "--quick" ]; then quick=1; shift; fi
bindir="${1:-.build/release}"
runs="${2:-$([ "$quick" = 1 ] && echo 24 || echo 400)}"
bin="$bindir/matterflow"
bench="$bindir/matterflow-bench"
for b in "$bin" "$bench"; do
    [ -x "$b" ] || { echo "no $b; build them: swift build -c release --product matterflow && swift build -c release --product matterflow-bench" >&2; exit 64; }
done
command -v psql >/dev/null 2>&1 || { echo "psql is needed (Debian package postgresql-client)" >&2; exit 3; }

work="$(mktemp -d /tmp/matterflow-bench.XXXXXX)"
chmod 755 "$work"
pids=()
cleanup() {
    for pid in "${pids[@]}" $(cat "$work/measured-pids" 2>/dev/null); do kill -9 "$pid" 2>/dev/null || true; done
    bash Tests/Postgres/pg-server.sh stop "$work/pg" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
# A server that writes as a production one does (fsync on): the store's runs are durable on disk, as the file
# journal's are.
server="$(PG_DURABLE=1 bash Tests/Postgres/pg-server.sh start "$work/pg")"
echo "server: fsync $(psql "$server" -qtAc 'SHOW fsync'), full_page_writes $(psql "$server" -qtAc 'SHOW full_page_writes'), synchronous_commit $(psql "$server" -qtAc 'SHOW synchronous_commit')"
payload="MT:Y.K9042C00KA0648G00"
concurrency=32  # runs at once per process, the worker's default
workflow="$PWD/Workflows/commission-device.json"
now() { date +%s.%N; }
# Starts "$@" in a subshell that records the command's PID (for cleanup) and, when it ends, the CPU seconds (user
# + system) it used in $work/cpu-$1; the subshell's PID is in $!.
start_measured() {
    local tag="$1"; shift
    ( "$@" & echo $! >>"$work/measured-pids"; wait $!; status=$?
      times >"$work/times-$tag"  # not in a pipeline: its own process would have no children
      awk 'NR == 2 { split($1, u, /[ms]/); split($2, s, /[ms]/); print u[1] * 60 + u[2] + s[1] * 60 + s[2] }' "$work/times-$tag" >"$work/cpu-$tag"
      exit $status ) &
}
# The CPU seconds of the server's processes so far: the postmaster's own and its ended children's, and the live
# children's (backends, writers).
server_cpu() {
    local postmaster ticks=0 fields
    postmaster="$(head -1 "$work/pg/data/postmaster.pid")"
    read -r -a fields <"/proc/$postmaster/stat"
    ticks=$(( fields[13] + fields[14] + fields[15] + fields[16] ))
    for stat in /proc/[0-9]*/stat; do
        read -r -a fields 2>/dev/null <"$stat" || continue
        [ "${fields[3]}" = "$postmaster" ] && ticks=$(( ticks + fields[13] + fields[14] ))
    done
    awk -v t="$ticks" -v hz="$(getconf CLK_TCK)" 'BEGIN { printf "%.3f", t / hz }'
}
# Milliseconds per run of the CPU seconds in the files $work/cpu-PREFIX*.
cpu_per_run() { cat "$work"/cpu-"$1"* | awk -v n="$runs" '{ s += $1 } END { printf "%.2f", 1000 * s / n }'; }
rate() { awk -v n="$1" -v s="$2" -v e="$3" 'BEGIN { printf "%.1f", n / (e - s) }'; }
# Waits for the given PIDs, at most $1 seconds in all; fails (and kills them) after that.
wait_bounded() {
    local limit="$1"; shift
    local deadline=$(( $(date +%s) + limit ))
    for pid in "$@"; do
        while kill -0 "$pid" 2>/dev/null; do
            if [ "$(date +%s)" -ge "$deadline" ]; then
                echo "fleet-bench: gave up after ${limit} s" >&2
                for p in "$@"; do kill -9 "$p" 2>/dev/null || true; done
                return 1
            fi
            sleep 0.02
        done
        wait "$pid" || { echo "fleet-bench: process $pid failed" >&2; return 1; }
    done
}

# A fresh database with RUNS queued runs (bulk-inserted; their secrets in a directory).
fresh() {
    local name="bench_$1"
    psql "$server" -qtAc "CREATE DATABASE $name" >/dev/null
    db="${server/dbname=postgres/dbname=$name}"
    "$bin" store migrate --store "$db" >/dev/null
    secrets="$work/secrets-$1"
    mkdir -p -m 700 "$secrets"
    for i in $(seq 1 "$runs"); do printf '{"onboardingPayload":"%s"}' "$payload" >"$secrets/bench-$i.secrets"; done
    psql "$db" -qtAc "INSERT INTO matterflow_runs (run_id, workflow, workflow_file, structure_id, inputs, secret_inputs, status)
        SELECT 'bench-' || i, 'commission-device', '$workflow', 'home-' || i,
               '{\"onboardingPayload\":\"<redacted>\",\"deviceName\":\"Lamp\",\"roomName\":\"Kitchen\"}', '{onboardingPayload}', 'queued'
        FROM generate_series(1, $runs) AS i" >/dev/null
}

echo "fleet-bench: $runs commission-device runs per figure (built-in simulated home, virtual time), binaries in $bindir"
load() { cut -d' ' -f1 /proc/loadavg 2>/dev/null || echo "?"; }
echo "load average before: $(cat /proc/loadavg 2>/dev/null || echo unknown) ($(nproc 2>/dev/null || echo ?) cores)"
# Runs the queued runs of database $db with $1 workers (tag $2), its conninfo $3; sets store_rate, store_cpu
# ("total (server + workers)" ms per run) and per_tx.
store_pass() {
    local workers="$1" tag="$2" conninfo="$3" server_before start end server_ms succeeded
    server_before="$(server_cpu)"
    start="$(now)"
    wpids=()
    for w in $(seq 1 "$workers"); do
        start_measured "$tag-$workers-$w" \
            "$bin" worker --store "$conninfo" --secrets "$secrets" --exit-when-idle --concurrency "$concurrency" --worker-id "w$w" 2>"$work/$tag-$workers-$w.log"
        wpids+=($!)
        pids+=($!)
    done
    wait_bounded 300 "${wpids[@]}"
    end="$(now)"
    store_rate="$(rate "$runs" "$start" "$end")"
    sleep 0.2  # the server's backends of the workers' connections end
    server_ms="$(awk -v a="$server_before" -v b="$(server_cpu)" -v n="$runs" 'BEGIN { printf "%.2f", 1000 * (b - a) / n }')"
    store_cpu="$(awk -v s="$server_ms" -v w="$(cpu_per_run "$tag-$workers-")" 'BEGIN { printf "%.2f (%.2f + %.2f)", s + w, s, w }')"
    succeeded="$(psql "$db" -qtAc "SELECT count(*) FROM matterflow_runs WHERE status = 'succeeded'")"
    [ "$succeeded" = "$runs" ] || { echo "fleet-bench: only $succeeded of $runs store runs succeeded" >&2; cat "$work"/$tag-$workers-*.log >&2; exit 1; }
    per_tx="$(cat "$work"/$tag-$workers-*.log | sed -n 's/.*; \([0-9]*\) records in \([0-9]*\) transactions$/\1 \2/p' \
        | awk '{ r += $1; t += $2 } END { if (t > 0) printf "%.1f (%d in %d)", r / t, r, t; else print "?" }')"
}

printf '%-9s | %-14s | %-16s | %-14s | %-16s | %-16s | %-24s | %-5s | %-35s | %s\n' processes "store runs/s" "not flushed runs/s" \
    "journal runs/s" "no record runs/s" "store/no record" "records per transaction" "load" "store CPU ms/run (server + workers)" \
    "no record CPU ms/run"
for workers in 1 2 4; do
    # The same runs twice through the store: as the fleet runs (each commit waits for its WAL to reach the disk),
    # then with commits that do not wait (synchronous_commit off): the difference is what durability itself costs.
    fresh "w$workers"
    store_pass "$workers" store "$db"
    durable=("$store_rate" "$store_cpu" "$per_tx")
    fresh "a$workers"
    store_pass "$workers" unflushed "$db options='-c synchronous_commit=off'"
    unflushed_rate="$store_rate"

    declare -A baseline=()
    for mode in journal none; do
        share=$(( runs / workers ))
        start="$(now)"
        bpids=()
        for w in $(seq 1 "$workers"); do
            count=$share
            [ "$w" = "$workers" ] && count=$(( runs - share * (workers - 1) ))
            mkdir -p "$work/journal-$workers-$w"
            start_measured "$mode-$workers-$w" "$bench" --worker-baseline "$mode" "$count" "$concurrency" "$work/journal-$workers-$w" >/dev/null
            bpids+=($!)
            pids+=($!)
        done
        wait_bounded 300 "${bpids[@]}"
        end="$(now)"
        baseline[$mode]="$(rate "$runs" "$start" "$end")"
    done
    share_of="$(awk -v a="${durable[0]}" -v b="${baseline[none]}" 'BEGIN { printf "%.0f%%", 100 * a / b }')"
    printf '%-9s | %-14s | %-16s | %-14s | %-16s | %-16s | %-24s | %-5s | %-35s | %s\n' "$workers" "${durable[0]}" "$unflushed_rate" \
        "${baseline[journal]}" "${baseline[none]}" "$share_of" "${durable[2]}" "$(load)" "${durable[1]}" "$(cpu_per_run "none-$workers-")"
done

# Takeover: a worker killed while the hub commissions (30 s of real time), another one settling the run.
psql "$server" -qtAc "CREATE DATABASE bench_takeover" >/dev/null
db="${server/dbname=postgres/dbname=bench_takeover}"
"$bin" store migrate --store "$db" >/dev/null
sed 's/"commissionDevice": *[0-9.]*/"commissionDevice": 30/' Examples/default-home.json >"$work/slow-home.json"
grep -q '"commissionDevice": 30' "$work/slow-home.json" || { echo "fleet-bench: could not slow down commissionDevice" >&2; exit 1; }
mkdir -p -m 700 "$work/secrets-t"
run="$("$bin" submit "$workflow" --store "$db" --secrets "$work/secrets-t" --structure home-t \
    --input onboardingPayload="$payload" --input deviceName=Lamp)"
"$bin" worker --store "$db" --secrets "$work/secrets-t" --home "$work/slow-home.json" --state "$work/homes" --clock real --lease 2 2>/dev/null &
victim=$!
pids+=($victim)
for _ in $(seq 1 600); do
    [ "$(psql "$db" -qtAc "SELECT count(*) FROM matterflow_records WHERE run_id = '$run' AND payload::jsonb->>'operation' = 'commissionDevice'")" != 0 ] && break
    sleep 0.05
done
{ kill -9 "$victim"; wait "$victim"; } 2>/dev/null || true  # reaped here, so the shell prints no "Killed" line
killed="$(now)"
"$bin" worker --store "$db" --secrets "$work/secrets-t" --home "$work/slow-home.json" --state "$work/homes" --clock real --lease 2 --exit-when-idle 2>/dev/null &
rescuer=$!
pids+=($rescuer)
for _ in $(seq 1 1200); do
    [ "$(psql "$db" -qtAc "SELECT status FROM matterflow_runs WHERE run_id = '$run'")" != running ] && break
    sleep 0.05
done
settled="$(now)"
status="$(psql "$db" -qtAc "SELECT status FROM matterflow_runs WHERE run_id = '$run'")"
echo "takeover after SIGKILL (lease 2 s): $(awk -v s="$killed" -v e="$settled" 'BEGIN { printf "%.2f", e - s }') s until the run was settled ($status)"
wait_bounded 60 "$rescuer"
[ "$status" = cancelled ] || { echo "fleet-bench: the taken-over run ended $status, not cancelled" >&2; exit 1; }

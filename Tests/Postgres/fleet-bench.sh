#!/usr/bin/env bash
# Fleet benchmarks against a throwaway PostgreSQL (docs/store.md#benchmarks):
#
#   bash Tests/Postgres/fleet-bench.sh [MATTERFLOW_BINARY] [RUNS]
#
# 1. Durable runs/s: RUNS commission-device runs (each on a structure of its own, simulated home, virtual time) queued
#    in the store and run by 1, 2 and 4 `matterflow worker` processes until the queue is empty.
# 2. The same runs as `matterflow run` processes, 4 at a time, with --journal (file journal) and without (not
#    durable): the same work with a process per run, for scale.
# 3. Takeover time: a worker is SIGKILLed while commissioning (lease 2 s); the time until another worker has settled
#    the run (lease + settle).
#
# Default binary: .build/release/matterflow (build it with `swift build -c release --product matterflow`).
# The server is started in a temporary directory and stopped on every way out.
set -euo pipefail
cd "$(dirname "$0")/../.."
bin="${1:-.build/release/matterflow}"
runs="${2:-200}"
[ -x "$bin" ] || { echo "no matterflow binary at $bin; build it: swift build -c release --product matterflow" >&2; exit 64; }
command -v psql >/dev/null 2>&1 || { echo "psql is needed (Debian package postgresql-client)" >&2; exit 3; }

work="$(mktemp -d /tmp/matterflow-bench.XXXXXX)"
chmod 755 "$work"
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill -9 "$pid" 2>/dev/null || true; done
    bash Tests/Postgres/pg-server.sh stop "$work/pg" >/dev/null 2>&1 || true
    rm -rf "$work"
}
trap cleanup EXIT
server="$(bash Tests/Postgres/pg-server.sh start "$work/pg")"
payload="MT:Y.K9042C00KA0648G00"
workflow="$PWD/Workflows/commission-device.json"
now() { date +%s.%N; }
rate() { awk -v n="$1" -v s="$2" -v e="$3" 'BEGIN { printf "%.1f", n / (e - s) }'; }

# A fresh database with RUNS queued runs (bulk-inserted; their secrets in a directory).
fresh() {
    local name="bench_$1"
    psql "$server" -qtAc "CREATE DATABASE $name" >/dev/null
    db="${server/dbname=postgres/dbname=$name}"
    "$bin" store migrate --store "$db" >/dev/null
    secrets="$work/secrets-$1"
    mkdir -p "$secrets"
    for i in $(seq 1 "$runs"); do printf '{"onboardingPayload":"%s"}' "$payload" >"$secrets/bench-$i.secrets"; done
    psql "$db" -qtAc "INSERT INTO matterflow_runs (run_id, workflow, workflow_file, structure_id, inputs, secret_inputs, status)
        SELECT 'bench-' || i, 'commission-device', '$workflow', 'home-' || i,
               '{\"onboardingPayload\":\"<redacted>\",\"deviceName\":\"Lamp\",\"roomName\":\"Kitchen\"}', '{onboardingPayload}', 'queued'
        FROM generate_series(1, $runs) AS i" >/dev/null
}

echo "runs per measurement: $runs (commission-device, simulated home, virtual time)"
for workers in 1 2 4; do
    fresh "w$workers"
    start="$(now)"
    wpids=()
    for w in $(seq 1 "$workers"); do
        "$bin" worker --store "$db" --secrets "$secrets" --exit-when-idle --concurrency 8 --worker-id "w$w" 2>/dev/null &
        wpids+=($!)
        pids+=($!)
    done
    for pid in "${wpids[@]}"; do wait "$pid"; done
    end="$(now)"
    done_runs="$(psql "$db" -qtAc "SELECT count(*) FROM matterflow_runs WHERE status = 'succeeded'")"
    echo "store, $workers worker(s): $(rate "$runs" "$start" "$end") runs/s ($done_runs succeeded)"
done

for mode in journal none; do
    start="$(now)"
    for i in $(seq 1 "$runs"); do
        extra=()
        [ "$mode" = journal ] && extra=(--journal "$work/journal")
        "$bin" run "$workflow" --trace none "${extra[@]}" --input onboardingPayload="$payload" --input deviceName=Lamp >/dev/null 2>&1 &
        if (( i % 4 == 0 )); then wait; fi
    done
    wait
    end="$(now)"
    label="file journal"; [ "$mode" = none ] && label="not durable"
    echo "$label, a process per run, 4 at a time: $(rate "$runs" "$start" "$end") runs/s"
done

# Takeover: a worker killed while the hub commissions (30 s of real time), another one settling the run.
psql "$server" -qtAc "CREATE DATABASE bench_takeover" >/dev/null
db="${server/dbname=postgres/dbname=bench_takeover}"
"$bin" store migrate --store "$db" >/dev/null
sed 's/"seed": *[0-9]*/&, "simulation": { "latencySeconds": { "commissionDevice": 30 } }/' Examples/default-home.json >"$work/slow-home.json"
mkdir -p "$work/secrets-t"
run="$("$bin" submit "$workflow" --store "$db" --secrets "$work/secrets-t" --structure home-t \
    --input onboardingPayload="$payload" --input deviceName=Lamp)"
"$bin" worker --store "$db" --secrets "$work/secrets-t" --home "$work/slow-home.json" --state "$work/homes" --clock real --lease 2 2>/dev/null &
victim=$!
pids+=($victim)
for _ in $(seq 1 300); do
    [ "$(psql "$db" -qtAc "SELECT count(*) FROM matterflow_records WHERE run_id = '$run' AND payload->>'operation' = 'commissionDevice'")" != 0 ] && break
    sleep 0.1
done
kill -9 "$victim"
killed="$(now)"
"$bin" worker --store "$db" --secrets "$work/secrets-t" --home "$work/slow-home.json" --state "$work/homes" --clock real --lease 2 --exit-when-idle 2>/dev/null &
pids+=($!)
until [ "$(psql "$db" -qtAc "SELECT status FROM matterflow_runs WHERE run_id = '$run'")" != running ]; do sleep 0.05; done
settled="$(now)"
echo "takeover after SIGKILL (lease 2 s): $(awk -v s="$killed" -v e="$settled" 'BEGIN { printf "%.2f", e - s }') s to $(psql "$db" -qtAc "SELECT status FROM matterflow_runs WHERE run_id = '$run'")"
wait

#!/usr/bin/env bash
# End to end with real pieces: MatterFlow's shipped workflows commission a real Matter device (CircuitMatter) through
# the Matter Server bridge and the Open Home Foundation Matter Server, all inside a network namespace of its own.
#
#   bash Tests/RealHub/run-e2e.sh [MATTERFLOW]    (root; MATTERFLOW defaults to .build/debug/matterflow)
#
# Installs what it needs (apt packages; Python virtual environments with pinned versions, cached in
# $MATTERFLOW_REALHUB_CACHE or ~/.cache/matterflow-realhub). Prints each step with its time, one PASS/FAIL line per
# check, and closes with "realhub: N passed, N failed". Exit status: 0 when every check passed, or when the
# machine cannot run it (no root or no network namespaces: a "SKIP" line says why); 1 when a check failed.
# Everything it starts is stopped by PID, and the namespace deleted, also when a step fails.
set -uo pipefail

REPO=$(cd "$(dirname "$0")/../.." && pwd)
MATTERFLOW=${1:-$REPO/.build/debug/matterflow}
RH_CACHE=${MATTERFLOW_REALHUB_CACHE:-$HOME/.cache/matterflow-realhub}
TIMING_ROUNDS=${MATTERFLOW_REALHUB_TIMING_ROUNDS:-3}
RH_WORK=$(mktemp -d "${TMPDIR:-/tmp}/matterflow-realhub.XXXXXX")
# shellcheck source=Tests/RealHub/realhub-env.sh
source "$REPO/Tests/RealHub/realhub-env.sh"

START_NS=$(date +%s%N)
PASSED=0
FAILED=0
FAILURES=()
CHECK_START=$START_NS

elapsed() { awk -v a="$1" -v b="$(date +%s%N)" 'BEGIN { printf "%.1f", (b - a) / 1e9 }'; }
step() { printf '[realhub %6ss] %s\n' "$(elapsed "$START_NS")" "$*"; }
begin_check() { CHECK_START=$(date +%s%N); step "check: $*"; }
pass() { PASSED=$((PASSED + 1)); printf 'PASS %s (%ss)\n' "$1" "$(elapsed "$CHECK_START")"; }
fail() {
    FAILED=$((FAILED + 1)); FAILURES+=("$1")
    printf 'FAIL %s (%ss): %s\n' "$1" "$(elapsed "$CHECK_START")" "$2"
}

finish() {
    local status=$?
    trap - EXIT INT TERM
    if [ "${SKIPPED:-0}" = 1 ]; then rm -rf "$RH_WORK"; exit 0; fi   # nothing was started
    step "tearing down"
    rh_teardown
    if [ -n "${PG_PARENT:-}" ]; then
        bash "$REPO/Tests/Postgres/pg-server.sh" stop "$PG_PARENT/pg" >/dev/null 2>&1
        rm -rf "$PG_PARENT"
    fi
    if [ "${KEEP_WORK:-0}" = 1 ] || [ "$FAILED" -gt 0 ]; then
        step "logs and state kept in $RH_WORK"
    else
        rm -rf "$RH_WORK"
    fi
    [ "$status" -ne 0 ] && [ "$FAILED" -eq 0 ] && FAILED=1 && FAILURES+=("the script itself (exit $status)")
    step "done in $(elapsed "$START_NS")s"
    [ ${#FAILURES[@]} -gt 0 ] && printf 'failed: %s\n' "${FAILURES[@]}"
    echo "realhub: $PASSED passed, $FAILED failed"
    [ "$FAILED" -eq 0 ]
    exit $?
}
trap finish EXIT
trap 'exit 130' INT
trap 'exit 143' TERM

skip() { SKIPPED=1; echo "realhub: SKIP: $1"; exit 0; }
abort() { FAILED=$((FAILED + 1)); FAILURES+=("set-up: $1"); echo "FAIL set-up: $1" >&2; exit 1; }

# MARK: - Set-up

[ "$(id -u)" -eq 0 ] || skip "needs root (network and mount namespaces, a private avahi-daemon)"
step "installing apt packages (when missing): ${RH_APT_PACKAGES[*]}"
rh_install_apt || abort "apt-get install ${RH_APT_PACKAGES[*]} failed"
reason=$(rh_unsupported_reason)
[ -z "$reason" ] || skip "$reason"
PYTHON=$(rh_find_python) || skip "no Python >= 3.12 for the Matter Server (set RH_PYTHON to one)"
[ -x "$MATTERFLOW" ] || abort "$MATTERFLOW is missing: run 'swift build --product matterflow' first"

step "Python environments in $RH_CACHE (Python: $PYTHON)"
SERVER_VENV=$(rh_venv server "$PYTHON" "${RH_SERVER_PACKAGES[@]}") || abort "cannot install ${RH_SERVER_PACKAGES[*]}"
DEVICE_VENV=$(rh_venv device "$PYTHON" "${RH_DEVICE_PACKAGES[@]}") || abort "cannot install ${RH_DEVICE_PACKAGES[*]}"
SERVER_PY=$SERVER_VENV/bin/python
DEVICE_PY=$DEVICE_VENV/bin/python

begin_check "the bridge's own tests (a scripted Matter Server on loopback)"
if "$SERVER_PY" -m unittest discover -s "$REPO/Tests/RealHub" -p 'test_*.py' >"$RH_WORK/bridge-tests.txt" 2>&1; then
    pass "bridge tests: $(grep -o 'Ran [0-9]* tests' "$RH_WORK/bridge-tests.txt")"
else
    fail "bridge tests" "$(tail -n 30 "$RH_WORK/bridge-tests.txt")"
fi

step "network namespace $RH_NS, D-Bus, avahi"
rh_start_network || abort "cannot set up the network namespace"
rh_start_dbus || abort "the private D-Bus did not start (see $RH_WORK/dbus.log)"
rh_start_avahi || abort "avahi-daemon did not start (see $RH_WORK/avahi.log)"
rh_trust_store "$RH_WORK/paa" "$REPO" || abort "cannot convert the test PAA certificate"

step "Matter Server"
rh_start_server "$SERVER_VENV" || abort "the Matter Server is not listening after 60 s (see $RH_WORK/server.log)"

QR=MT:MNOA55UM00KA0648G00
MANUAL=34970112332
WRONG_QR=$("$MATTERFLOW" payload generate --vendor-id 0xFFF4 --product-id 0x1234 --discriminator 3840 \
    --passcode 20202022 --discovery on-network --json | "$SERVER_PY" -c 'import json,sys; print(json.load(sys.stdin)["qrCode"])') \
    || abort "matterflow payload generate failed"
BRIDGE_STATE=$RH_WORK/bridge-state.json
BRIDGE="$SERVER_PY $REPO/Examples/hubs/matter-server-bridge/matter_server_bridge.py --server ws://[::1]:5580/ws --state $BRIDGE_STATE --structure home"
DEVICE_COUNT=0

server() { rh_in_ns "$SERVER_PY" "$REPO/Tests/RealHub/matter_server_client.py" "$@"; }
nodes() { server nodes; }
# The bridge state's session of structure "home" as JSON ("null" when none).
bridge_session() {
    "$SERVER_PY" -c 'import json,sys; s=json.load(open(sys.argv[1])); print(json.dumps(s["structures"][0]["session"]))' \
        "$BRIDGE_STATE" 2>/dev/null || echo null
}
fresh_device() {
    DEVICE_COUNT=$((DEVICE_COUNT + 1))
    rh_stop_device
    rh_start_device "device$DEVICE_COUNT" "$DEVICE_PY" "$REPO" "$@" \
        || abort "device $DEVICE_COUNT did not advertise within 45 s (see $RH_WORK/device$DEVICE_COUNT.log)"
}
# matterflow run NAME ARGS...: in the namespace, trace to NAME.trace, result to NAME.json; sets RUN_STATUS.
run_workflow() {
    local name=$1; shift
    rh_in_ns timeout -k 10 120 "$MATTERFLOW" run "$REPO/Workflows/commission-device.json" --hub "$BRIDGE" \
        --trace jsonl --journal "$RH_WORK/journal" "$@" >"$RH_WORK/$name.json" 2>"$RH_WORK/$name.trace"
    RUN_STATUS=$?
}
result_field() { "$SERVER_PY" -c 'import json,sys; r=json.load(open(sys.argv[1])); print(json.dumps(eval(sys.argv[2], {}, {"r": r})))' "$@" 2>/dev/null; }
commission_call_seconds() {
    "$SERVER_PY" -c '
import json, sys
for line in open(sys.argv[1]):
    try: event = json.loads(line)
    except ValueError: continue
    if event.get("event") == "hubCallFinished" and event.get("operation") == "commissionDevice":
        print(event["durationSeconds"])' "$1"
}
# Starts a run in the background and waits until it is inside commissionDevice; sets RUN_PID.
start_run_until_commissioning() {
    local name=$1; shift
    ip netns exec "$RH_NS" "$MATTERFLOW" run "$REPO/Workflows/commission-device.json" --hub "$BRIDGE" \
        --trace jsonl --journal "$RH_WORK/journal-$name" "$@" >"$RH_WORK/$name.json" 2>"$RH_WORK/$name.trace" &
    RUN_PID=$!
    RH_PIDS+=("$RUN_PID")
    local started='"event":"hubCallStarted".*"operation":"commissionDevice"'
    rh_wait_for 60 sh -c "grep -q '$started' '$RH_WORK/$name.trace' || ! kill -0 $RUN_PID"
    grep -q "$started" "$RH_WORK/$name.trace" && kill -0 "$RUN_PID" 2>/dev/null
}
# Waits at most SECONDS for PID (a child of this shell) to exit; sets EXIT_STATUS (or "timeout").
wait_exit() {
    local pid=$1 seconds=$2
    if rh_wait_for "$seconds" sh -c "! kill -0 $pid"; then wait "$pid"; EXIT_STATUS=$?; else EXIT_STATUS=timeout; fi
}
secrets_leaked() { grep -l -F -e "$QR" -e "$WRONG_QR" -e "$MANUAL" -e 20202021 -e 20202022 "$@" 2>/dev/null; }

# MARK: - Checks

begin_check "matterflow hub check passes against the bridge"
if rh_in_ns timeout -k 10 120 "$MATTERFLOW" hub check "$BRIDGE" >"$RH_WORK/hub-check.txt" 2>&1; then
    pass "hub check"
else
    fail "hub check" "$(tail -n 15 "$RH_WORK/hub-check.txt")"
fi

begin_check "commission-device.json with the QR code"
fresh_device
before=$(nodes)
run_workflow qr --input onboardingPayload="$QR" --input deviceName="Hall Light" --input roomName=Kitchen
device=$(result_field "$RH_WORK/qr.json" 'r["output"]["deviceIDs"][0]' | tr -d '"')
after=$(nodes)
if [ "$RUN_STATUS" -ne 0 ]; then
    fail "QR commissioning" "exit $RUN_STATUS: $(head -c 600 "$RH_WORK/qr.json") $(tail -n 5 "$RH_WORK/qr.trace")"
elif ! "$SERVER_PY" -c 'import json,sys; sys.exit(0 if int(sys.argv[1]) in json.loads(sys.argv[2]) and int(sys.argv[1]) not in json.loads(sys.argv[3]) else 1)' "$device" "$after" "$before"; then
    fail "QR commissioning" "device ID '$device' is not a new node of the Matter Server (before: $before, after: $after)"
else
    info=$(server read "$device" 0/40/1 0/40/5)
    stored=$("$SERVER_PY" -c 'import json,sys; s=json.load(open(sys.argv[1])); print(json.dumps(s["structures"][0]["devices"]))' "$BRIDGE_STATE")
    if [ "$(result_field /dev/stdin 'r["0/40/1"]' <<<"$info")" != '"CircuitMatter"' ]; then
        fail "QR commissioning" "Basic Information VendorName is not CircuitMatter: $info"
    elif [ "$(result_field /dev/stdin 'r["0/40/5"]' <<<"$info")" != '"Hall Light"' ]; then
        fail "QR commissioning" "the node label is not the name given: $info"
    elif ! grep -q "\"deviceID\": \"$device\", \"name\": \"Hall Light\", \"roomName\": \"Kitchen\"" <<<"$stored"; then
        fail "QR commissioning" "the bridge did not record name and room: $stored"
    elif [ "$(bridge_session)" != null ]; then
        fail "QR commissioning" "a session is left in the bridge: $(bridge_session)"
    elif leaked=$(secrets_leaked "$RH_WORK/qr.trace" "$RH_WORK/journal"/*); then
        fail "QR commissioning" "the onboarding payload appears in $leaked"
    else
        pass "QR commissioning: node $device, VendorName CircuitMatter, named and in a room"
    fi
fi

begin_check "a wrong passcode fails with a clear error and leaves no node and no session"
fresh_device
before=$(nodes)
run_workflow wrong --input onboardingPayload="$WRONG_QR" --input deviceName=Lamp
cause=$(result_field "$RH_WORK/wrong.json" 'r["error"]["cause"]')
after=$(nodes)
if [ "$RUN_STATUS" -ne 1 ]; then
    fail "wrong passcode" "exit $RUN_STATUS, not 1: $(head -c 600 "$RH_WORK/wrong.json")"
elif [ "$cause" != '"commissioningFailed"' ]; then
    fail "wrong passcode" "error cause $cause, not commissioningFailed: $(head -c 600 "$RH_WORK/wrong.json")"
elif ! grep -q "wrong setup passcode" "$RH_WORK/wrong.json"; then
    fail "wrong passcode" "the error does not tell what to check: $(head -c 600 "$RH_WORK/wrong.json")"
elif [ "$before" != "$after" ]; then
    fail "wrong passcode" "nodes changed: before $before, after $after"
elif [ "$(bridge_session)" != null ]; then
    fail "wrong passcode" "a session is left in the bridge: $(bridge_session)"
elif leaked=$(secrets_leaked "$RH_WORK/wrong.json" "$RH_WORK/wrong.trace"); then
    fail "wrong passcode" "the onboarding payload or passcode appears in $leaked"
else
    pass "wrong passcode: commissioningFailed, no node, session released"
fi

begin_check "SIGINT during commissioning takes the cancel path"
fresh_device
before=$(nodes)
if ! start_run_until_commissioning sigint --input onboardingPayload="$QR" --input deviceName=Lamp; then
    fail "SIGINT" "the run never reached commissionDevice: $(tail -n 5 "$RH_WORK/sigint.trace")"
else
    kill -INT "$RUN_PID"
    wait_exit "$RUN_PID" 150
    after=$(nodes)
    if [ "$EXIT_STATUS" != 130 ]; then
        fail "SIGINT" "exit $EXIT_STATUS, not 130: $(tail -n 5 "$RH_WORK/sigint.trace")"
    elif ! grep -q '"operation":"cancelCommissioning"' "$RH_WORK/sigint.trace"; then
        fail "SIGINT" "the cancel path did not call cancelCommissioning"
    elif [ "$before" != "$after" ]; then
        fail "SIGINT" "a node is left: before $before, after $after"
    elif [ "$(bridge_session)" != null ]; then
        fail "SIGINT" "a session is left in the bridge: $(bridge_session)"
    else
        pass "SIGINT: exit 130, cancel path taken, no node, no session"
    fi
fi

begin_check "a run killed during commissioning is settled by matterflow recover --hub"
fresh_device
before=$(nodes)
if ! start_run_until_commissioning killed --input onboardingPayload="$QR" --input deviceName=Lamp; then
    fail "kill and recover" "the run never reached commissionDevice: $(tail -n 5 "$RH_WORK/killed.trace")"
else
    bridge_pid=$(pgrep -P "$RUN_PID" | head -n 1)
    kill -KILL "$RUN_PID"
    wait "$RUN_PID" 2>/dev/null
    # The bridge sees its standard input close, waits for the Matter Server's answer, records it and exits.
    [ -n "$bridge_pid" ] && RH_PIDS+=("$bridge_pid") && rh_wait_for 130 sh -c "! kill -0 $bridge_pid"
    # The node the killed run's commissioning added, for recover to remove (none would prove nothing).
    left=$(nodes)
    rh_in_ns timeout -k 10 150 "$MATTERFLOW" recover --journal "$RH_WORK/journal-killed" --hub "$BRIDGE" \
        >"$RH_WORK/recover.txt" 2>&1
    status=$?
    after=$(nodes)
    if [ "$left" = "$before" ]; then
        fail "kill and recover" "the killed run's commissioning added no node, so recover had nothing to remove: $(bridge_session)"
    elif [ "$status" -ne 0 ]; then
        fail "kill and recover" "recover exited $status: $(tail -n 10 "$RH_WORK/recover.txt")"
    elif [ "$before" != "$after" ]; then
        fail "kill and recover" "a node is left: before $before, after $after"
    elif [ "$(bridge_session)" != null ]; then
        fail "kill and recover" "a session is left in the bridge: $(bridge_session)"
    else
        pass "kill and recover: the killed run's session and node are gone"
    fi
fi

begin_check "the manual pairing code works too"
fresh_device
before=$(nodes)
run_workflow manual --input onboardingPayload="$MANUAL" --input deviceName="Desk Lamp" --input roomName=Bedroom
device=$(result_field "$RH_WORK/manual.json" 'r["output"]["deviceIDs"][0]' | tr -d '"')
after=$(nodes)
if [ "$RUN_STATUS" -ne 0 ]; then
    fail "manual code" "exit $RUN_STATUS: $(head -c 600 "$RH_WORK/manual.json") $(tail -n 5 "$RH_WORK/manual.trace")"
elif ! "$SERVER_PY" -c 'import json,sys; sys.exit(0 if int(sys.argv[1]) in json.loads(sys.argv[2]) and int(sys.argv[1]) not in json.loads(sys.argv[3]) else 1)' "$device" "$after" "$before"; then
    fail "manual code" "device ID '$device' is not a new node (before: $before, after: $after)"
else
    pass "manual code: node $device"
fi

# MARK: - A fleet: runs queued in PostgreSQL, run by `matterflow worker --hub` processes against the real device

# A throwaway PostgreSQL server on a Unix socket (reachable from inside the namespace), in a directory its
# unprivileged server user can enter.
PG_PARENT=$(mktemp -d /tmp/matterflow-realhub-pg.XXXXXX) && chmod 755 "$PG_PARENT"
if ! bash "$REPO/Tests/Postgres/pg-server.sh" available >/dev/null 2>&1; then
    fail "fleet" "no PostgreSQL server binary (install postgresql)"
elif ! PG=$(bash "$REPO/Tests/Postgres/pg-server.sh" start "$PG_PARENT/pg" 2>"$RH_WORK/pg-start.txt") \
    || ! "$MATTERFLOW" store migrate --store "$PG" >"$RH_WORK/migrate.txt" 2>&1; then
    fail "fleet" "PostgreSQL did not start or migrate: $(tail -n 5 "$RH_WORK/pg-start.txt" "$RH_WORK/migrate.txt")"
    PG=""
fi
SECRETS=$RH_WORK/secrets
mkdir -p "$SECRETS" && chmod 700 "$SECRETS"
pg_value() { psql "$PG" -qtAc "$1" 2>/dev/null; }
# submit NAME ARGS...: queues commission-device for structure "home"; sets RUN_ID.
submit_run() {
    RUN_ID=$("$MATTERFLOW" submit "$REPO/Workflows/commission-device.json" --store "$PG" --secrets "$SECRETS" --structure home \
        "$@" 2>"$RH_WORK/submit.txt")
}
# The arguments of a worker in the namespace on the bridge, named $1, with the rest of the arguments.
worker_args() {
    local name=$1; shift
    WORKER=(ip netns exec "$RH_NS" "$MATTERFLOW" worker --store "$PG" --hub "$BRIDGE" --secrets "$SECRETS" --worker-id "$name" "$@")
}
# Starts worker NAME ARGS... in the background (log in NAME.log, PID in WORKER_PID) and waits until the run RUN_ID is
# inside commissionDevice: its intent is committed before the hub is called. Fails when it never gets there.
start_worker_until_commissioning() {
    local name=$1; shift
    worker_args "$name" "$@"
    "${WORKER[@]}" >"$RH_WORK/$name.log" 2>&1 &
    WORKER_PID=$!
    RH_PIDS+=("$WORKER_PID")
    [ -n "$RUN_ID" ] || return 1
    commissioning() {
        [ "$(pg_value "SELECT count(*) FROM matterflow_record_batches WHERE run_id = '$RUN_ID' AND records LIKE '%\"intent\"%commissionDevice%'")" != 0 ] \
            || ! kill -0 "$WORKER_PID" 2>/dev/null
    }
    rh_wait_for 60 commissioning && kill -0 "$WORKER_PID" 2>/dev/null
}
# Empty when neither the bridge nor the store holds a session; otherwise what holds one.
sessions_left() {
    local store
    store=$(pg_value 'SELECT count(*) FROM matterflow_sessions')
    [ "$(bridge_session)" = null ] && [ "$store" = 0 ] || echo "bridge $(bridge_session), store $store"
}
fleet_leaks() {
    pg_value "SELECT (SELECT count(*) FROM matterflow_record_batches WHERE records LIKE '%$QR%')
                   + (SELECT count(*) FROM matterflow_runs WHERE inputs::text LIKE '%$QR%')"
}

# The files of runs left in the secrets directory: all but the key of the runs' secret digests, which stays.
secrets_left() {
    ls -A "$SECRETS" | grep -vx 'digest\.key' || true
}

if [ -n "${PG:-}" ]; then
    begin_check "fleet: a run submitted to PostgreSQL is commissioned into the real device by matterflow worker --hub"
    fresh_device
    before=$(nodes)
    submit_run --input onboardingPayload="$QR" --input deviceName="Fleet Lamp" --input roomName=Kitchen
    worker_args fleet1 --exit-when-idle
    timeout -k 10 150 "${WORKER[@]}" >"$RH_WORK/fleet1.log" 2>&1
    status=$?
    device=$(pg_value "SELECT output->'deviceIDs'->>0 FROM matterflow_runs WHERE run_id = '$RUN_ID'")
    after=$(nodes)
    if [ -z "$RUN_ID" ]; then
        fail "fleet run" "submit failed: $(cat "$RH_WORK/submit.txt")"
    elif [ "$status" -ne 0 ] || [ "$(pg_value "SELECT status FROM matterflow_runs WHERE run_id = '$RUN_ID'")" != succeeded ]; then
        fail "fleet run" "worker exit $status, run $(pg_value "SELECT status || ' ' || coalesce(error::text, '') FROM matterflow_runs WHERE run_id = '$RUN_ID'"): $(tail -n 8 "$RH_WORK/fleet1.log")"
    elif ! "$SERVER_PY" -c 'import json,sys; sys.exit(0 if int(sys.argv[1]) in json.loads(sys.argv[2]) and int(sys.argv[1]) not in json.loads(sys.argv[3]) else 1)' "$device" "$after" "$before"; then
        fail "fleet run" "device ID '$device' is not a new node of the Matter Server (before: $before, after: $after)"
    elif [ "$(result_field /dev/stdin 'r["0/40/5"]' <<<"$(server read "$device" 0/40/5)")" != '"Fleet Lamp"' ]; then
        fail "fleet run" "the node label is not the name given"
    elif [ -n "$(sessions_left)" ]; then
        fail "fleet run" "a session is left: $(sessions_left)"
    elif [ "$(fleet_leaks)" != 0 ] || [ -n "$(secrets_left)" ]; then
        fail "fleet run" "the onboarding payload reached the store, or the secrets file stayed: $(fleet_leaks), $(secrets_left)"
    else
        pass "fleet run: node $device, named, no session in the bridge or the store, no secret in the store"
    fi

    begin_check "fleet: matterflow cancel during commissioning; the worker takes the run's cancel path, leaving no node and no session"
    fresh_device
    before=$(nodes)
    submit_run --input onboardingPayload="$QR" --input deviceName="Cancelled Lamp"
    if ! start_worker_until_commissioning cancelled --exit-when-idle; then
        fail "fleet cancel" "the run '$RUN_ID' never reached commissionDevice: $(cat "$RH_WORK/submit.txt") $(tail -n 5 "$RH_WORK/cancelled.log")"
    else
        asked=$("$MATTERFLOW" cancel "$RUN_ID" --store "$PG" 2>&1)
        wait_exit "$WORKER_PID" 150
        final=$(pg_value "SELECT status FROM matterflow_runs WHERE run_id = '$RUN_ID'")
        after=$(nodes)
        if [ "$asked" != cancelling ]; then
            fail "fleet cancel" "matterflow cancel said '$asked', not cancelling"
        elif [ "$EXIT_STATUS" != 0 ] || [ "$final" != cancelled ]; then
            fail "fleet cancel" "worker exit $EXIT_STATUS, run '$final': $(tail -n 8 "$RH_WORK/cancelled.log")"
        elif ! grep -q "cancel asked for; taking its cancel path" "$RH_WORK/cancelled.log"; then
            fail "fleet cancel" "the worker did not say it took the cancel path: $(tail -n 8 "$RH_WORK/cancelled.log")"
        elif [ "$before" != "$after" ]; then
            fail "fleet cancel" "a node is left: before $before, after $after"
        elif [ -n "$(sessions_left)" ]; then
            fail "fleet cancel" "a session is left: $(sessions_left)"
        else
            pass "fleet cancel: cancelled during commissioning from another process; no node, no session"
        fi
    fi

    begin_check "fleet: a worker killed during commissioning; another settles its run after the lease, leaving no node and no session"
    fresh_device
    before=$(nodes)
    submit_run --input onboardingPayload="$QR" --input deviceName="Doomed Lamp"
    if ! start_worker_until_commissioning doomed --lease 3; then
        fail "fleet takeover" "the run '$RUN_ID' never reached commissionDevice: $(cat "$RH_WORK/submit.txt") $(tail -n 5 "$RH_WORK/doomed.log")"
    else
        doomed=$WORKER_PID
        bridge_pid=$(pgrep -P "$doomed" | head -n 1)
        killed_at=$(date +%s%N)
        kill -KILL "$doomed"
        wait "$doomed" 2>/dev/null
        # The bridge sees its standard input close, waits for the Matter Server's answer, records it and exits.
        [ -n "$bridge_pid" ] && RH_PIDS+=("$bridge_pid") && rh_wait_for 130 sh -c "! kill -0 $bridge_pid"
        left=$(nodes)
        worker_args heir --lease 3 --exit-when-idle
        timeout -k 10 150 "${WORKER[@]}" >"$RH_WORK/heir.log" 2>&1
        status=$?
        final=$(pg_value "SELECT status || ' ' || recovered FROM matterflow_runs WHERE run_id = '$RUN_ID'")
        after=$(nodes)
        if [ "$left" = "$before" ]; then
            fail "fleet takeover" "the killed worker's commissioning added no node, so the takeover had nothing to remove"
        elif [ "$status" -ne 0 ]; then
            fail "fleet takeover" "the second worker exited $status: $(tail -n 8 "$RH_WORK/heir.log")"
        elif [ "$final" != "cancelled true" ]; then
            fail "fleet takeover" "the run is '$final', not cancelled by recovery: $(tail -n 8 "$RH_WORK/heir.log")"
        elif [ "$before" != "$after" ]; then
            fail "fleet takeover" "a node is left: before $before, after $after"
        elif [ -n "$(sessions_left)" ]; then
            fail "fleet takeover" "a session is left: $(sessions_left)"
        elif [ "$(fleet_leaks)" != 0 ] || [ -n "$(secrets_left)" ]; then
            fail "fleet takeover" "the onboarding payload reached the store, or the secrets file stayed: $(secrets_left)"
        else
            pass "fleet takeover: settled on its cancel path by the second worker $(elapsed "$killed_at") s after the kill; no node, no session"
        fi
    fi
fi

# MARK: - Timing: commission_with_code straight to the Matter Server vs through MatterFlow, side by side

begin_check "timing, $TIMING_ROUNDS rounds: the bare commission_with_code vs matterflow run --hub"
direct=() engine=() handled=() bridge=() whole=()
for round in $(seq "$TIMING_ROUNDS"); do
    fresh_device
    answer=$(server commission "$QR") || { fail "timing" "direct commission_with_code failed in round $round"; break; }
    direct+=("$(result_field /dev/stdin 'r["seconds"]' <<<"$answer")")
    server remove "$(result_field /dev/stdin 'r["nodeID"]' <<<"$answer")"
    fresh_device
    t0=$(date +%s%N)
    run_workflow "timing$round" --input onboardingPayload="$QR" --input deviceName="Lamp $round"
    whole+=("$(elapsed "$t0")")
    [ "$RUN_STATUS" -eq 0 ] || { fail "timing" "matterflow run failed in round $round"; break; }
    engine+=("$(commission_call_seconds "$RH_WORK/timing$round.trace")")
    bridge+=("$(grep -o 'commission_with_code answered in [0-9.]*' "$RH_WORK/timing$round.trace" | awk '{print $4}')")
    handled+=("$(grep -o 'commissionDevice handled in [0-9.]*' "$RH_WORK/timing$round.trace" | awk '{print $4}')")
done
if [ ${#engine[@]} -eq "$TIMING_ROUNDS" ]; then
    "$SERVER_PY" - "${direct[*]}" "${engine[*]}" "${bridge[*]}" "${whole[*]}" "${handled[*]}" <<'EOF' | tee "$RH_WORK/timing.txt"
import statistics, sys
direct, engine, bridge, whole, handled = ([float(x) for x in arg.split()] for arg in sys.argv[1:6])
d, e, b = statistics.median(direct), statistics.median(engine), statistics.median(bridge)
# Per run, so that one commissioning's own duration cancels out.
engine_part = statistics.median(x - h for x, h in zip(engine, handled))
bridge_part = statistics.median(h - y for h, y in zip(handled, bridge))
print(f"timing: commission_with_code straight to the Matter Server: median {d:.3f} s ({', '.join(f'{x:.3f}' for x in direct)})")
print(f"timing: commissionDevice as the engine timed it (matterflow run --hub): median {e:.3f} s ({', '.join(f'{x:.3f}' for x in engine)})")
print(f"timing: the same call's commission_with_code inside the bridge: median {b:.3f} s")
total = statistics.median(x - y for x, y in zip(engine, bridge))
print(f"timing: engine + protocol + bridge overhead on the call: {1000 * total:.1f} ms ({100 * total / b:.2f}%)")
print(f"timing:   of which the engine and the hub protocol (call timed by the engine minus the bridge's handling): {1000 * engine_part:.1f} ms ({100 * engine_part / b:.2f}%)")
print(f"timing:   of which the bridge's bookkeeping (node list, state file writes with fsync): {1000 * bridge_part:.1f} ms")
print(f"timing: difference to the bare call in another commissioning: {100 * (e - d) / d:+.1f}% (device-to-device variation included)")
print(f"timing: whole matterflow run (process start, handshake, all phases): median {statistics.median(whole):.2f} s")
EOF
    pass "timing (figures above)"
fi

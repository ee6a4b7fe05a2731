#!/usr/bin/env bash
# A fleet worker whose PostgreSQL server vanishes without closing its connections, and comes back at another address
# (a failover that moved it, a host that lost power and was replaced): the worker must notice the dead connections
# within its time limits and reconnect to the server where it now is, then claim what was queued meanwhile.
#
#   bash Tests/Postgres/vanished-server.sh [BIN_DIR]      BIN_DIR holds matterflow (default .build/debug)
#
# The server runs in one network namespace and the worker in another, joined by a veth pair; nothing else is on that
# link. The server listens at 10.231.0.1 and 10.231.0.3, and the worker's --store names both
# (host=10.231.0.1,10.231.0.3: libpq tries them in order). Run 1 shows the worker works over the link. Then the
# server's first address is removed: the worker's packets to it are dropped without an answer, no connection is
# closed and no error comes back. Run 2 is queued through the server's Unix socket. With the worker's connection
# defaults (keepalives, tcp_user_timeout 30 s, connect_timeout 10 s: PostgresConnection.networkDefaults) the worker
# drops its dead connections after about 30 s, reconnects at the second address, and run 2 succeeds in about 50 s,
# well within the limit below (150 s); connections without them wait on TCP's retransmissions to the vanished
# address for about 15 minutes. Needs root and network namespaces; elsewhere it prints a SKIP line and exits 0. Every process it starts is
# stopped by PID, also on failure, and every wait is bounded.
set -euo pipefail
cd "$(dirname "$0")/../.."
bindir="${1:-.build/debug}"
bin="$bindir/matterflow"
limit=150

skip() { echo "vanished-server: SKIP: $*"; exit 0; }
[ -x "$bin" ] || { echo "vanished-server: no $bin; build it: swift build --product matterflow" >&2; exit 64; }
[ "$(id -u)" -eq 0 ] || skip "network namespaces need root"
command -v ip >/dev/null 2>&1 || skip "no ip command (iproute2)"
command -v psql >/dev/null 2>&1 || skip "no psql (Debian package postgresql-client)"
bash Tests/Postgres/pg-server.sh available >/dev/null 2>&1 || skip "no PostgreSQL server binary"

# Namespaces an earlier invocation left when it was killed with SIGKILL (its trap never ran): named after its PID,
# which no longer runs. Their processes died with it (the server's watchdog, the worker's --pdeathsig).
for stale in $(ip netns list 2>/dev/null | sed -n 's/^\(mfv\([0-9][0-9]*\)-[sw]\)\( .*\)\{0,1\}$/\1 \2/p' | tr ' ' ':'); do
    kill -0 "${stale#*:}" 2>/dev/null || ip netns delete "${stale%%:*}" 2>/dev/null || true
done
tag="mfv$$"
ns_server="$tag-s"
ns_worker="$tag-w"
work="$(mktemp -d /tmp/matterflow-vanished.XXXXXX)"
chmod 755 "$work"
worker_pid=""
cleanup() {
    [ -n "$worker_pid" ] && kill -9 "$worker_pid" 2>/dev/null || true
    bash Tests/Postgres/pg-server.sh stop "$work/pg" >/dev/null 2>&1 || true
    ip netns delete "$ns_server" 2>/dev/null || true
    ip netns delete "$ns_worker" 2>/dev/null || true
    rm -rf "$work"
}
trap cleanup EXIT
fail() {
    echo "vanished-server: FAIL: $*" >&2
    echo "--- worker's log (last 30 lines):" >&2
    tail -n 30 "$work/worker.log" >&2 || true
    exit 1
}

# What the machine allows is tried once, on a pair of namespaces of its own: a failure there is a SKIP that says
# why; a failure after it is a failure.
probe="$tag-p"
if ! out="$(ip netns add "$probe" 2>&1 && ip link add "${tag}p" netns "$probe" type veth peer name "${tag}q" netns "$probe" 2>&1)"; then
    ip netns delete "$probe" 2>/dev/null || true
    skip "network namespaces joined by a veth pair are not permitted here ($out)"
fi
ip netns delete "$probe"
ip netns add "$ns_server"
ip netns add "$ns_worker"
ip link add "${tag}s" netns "$ns_server" type veth peer name "${tag}w" netns "$ns_worker"
# The server's host has an address of its own on the link (.10) and the two the server is reached at (.1, .3).
ip -n "$ns_server" addr add 10.231.0.10/24 dev "${tag}s"
ip -n "$ns_server" addr add 10.231.0.1/32 dev "${tag}s"
ip -n "$ns_server" addr add 10.231.0.3/32 dev "${tag}s"
ip -n "$ns_worker" addr add 10.231.0.2/24 dev "${tag}w"
for ns in "$ns_server" "$ns_worker"; do ip -n "$ns" link set lo up; done
ip -n "$ns_server" link set "${tag}s" up
ip -n "$ns_worker" link set "${tag}w" up

export PG_LISTEN=10.231.0.1,10.231.0.3 PG_CLIENTS=10.231.0.2/32
local_store="$(ip netns exec "$ns_server" bash Tests/Postgres/pg-server.sh start "$work/pg" $$)"
remote_store="host=10.231.0.1,10.231.0.3 port=5432 user=matterflow dbname=postgres"
"$bin" store migrate --store "$local_store" >/dev/null
secrets="$work/secrets"
mkdir -m 700 "$secrets"

# The worker dies with this script, even when it is killed with SIGKILL and cannot clean up.
ip netns exec "$ns_worker" setpriv --pdeathsig KILL -- "$bin" worker --store "$remote_store" --secrets "$secrets" \
    --worker-id far-worker >"$work/worker.log" 2>&1 &
worker_pid=$!
disown "$worker_pid"

submit() {
    "$bin" submit Workflows/commission-device.json --store "$local_store" --secrets "$secrets" --structure "$1" \
        --input onboardingPayload=MT:Y.K9042C00KA0648G00 --input deviceName=Lamp --input roomName=Kitchen
}
# Waits up to $2 seconds for run $1 to succeed.
succeeds_within() {
    local tries=0
    until [ "$(psql "$local_store" -qtAc "SELECT status FROM matterflow_runs WHERE run_id = '$1'")" = succeeded ]; do
        tries=$((tries + 1))
        [ "$tries" -le $(($2 * 4)) ] || return 1
        kill -0 "$worker_pid" 2>/dev/null || fail "the worker exited"
        sleep 0.25
    done
}

first="$(submit home-1)"
succeeds_within "$first" 30 || fail "run $first did not succeed over the link within 30 s"

ip -n "$ns_server" addr del 10.231.0.1/32 dev "${tag}s"
moved="$(date +%s%N)"
second="$(submit home-2)"
succeeds_within "$second" "$limit" || fail "run $second, queued after the server's first address vanished, did not succeed within ${limit} s: the worker's connections did not notice"
took=$((($(date +%s%N) - moved) / 1000000))
echo "vanished-server: the server's first address vanished; run $second succeeded at its second one ${took} ms later"

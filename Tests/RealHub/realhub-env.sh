# shellcheck shell=bash
# The real-hub test environment: a network namespace with a private D-Bus and avahi, a CircuitMatter device and
# the Open Home Foundation Matter Server. Sourced by run-e2e.sh; every process is started here and stopped by PID.
#
# Needs root (network and mount namespaces). Variables the caller sets before sourcing:
#   RH_WORK   a fresh scratch directory (state files, logs, sockets)
#   RH_CACHE  where the Python virtual environments are kept between runs

RH_SERVER_PACKAGES=("python-matter-server[server]==8.1.2" "home-assistant-chip-core==2025.7.0"
    "home-assistant-chip-clusters==2025.7.0")
RH_DEVICE_PACKAGES=("circuitmatter==0.4.1")
RH_APT_PACKAGES=(avahi-daemon avahi-utils dbus libglib2.0-0 libnl-route-3-200 iproute2 openssl)
RH_NS="mfrh$$"
RH_VETH_A="mfrh$$a"
RH_VETH_B="mfrh$$b"
RH_WS_URL="ws://[::1]:5580/ws"
RH_PIDS=()             # every process started, stopped in reverse order by rh_teardown
RH_DEVICE_PID=""
RH_CREATED_DATA=false
RH_CREATED_AVAHI_RUN=false
RH_HAD_CHIP_KVS=true   # set to false by rh_start_server when /tmp/chip_kvs is not there yet (then removed after)

rh_log() { printf '%s\n' "$*" >&2; }

# Waits until COMMAND succeeds, at most SECONDS; 1 when it never did.
rh_wait_for() {
    local seconds=$1; shift
    local deadline=$((SECONDS + seconds))
    until "$@" >/dev/null 2>&1; do
        [ "$SECONDS" -ge "$deadline" ] && return 1
        sleep 0.1
    done
}

# Why this machine cannot run the real-hub test (empty when it can).
rh_unsupported_reason() {
    [ "$(uname -s)" = Linux ] || { echo "network namespaces need Linux"; return; }
    [ "$(id -u)" -eq 0 ] || { echo "creating network namespaces needs root"; return; }
    command -v ip >/dev/null 2>&1 || command -v apt-get >/dev/null 2>&1 \
        || { echo "neither iproute2 nor apt-get is available"; return; }
    local probe="mfrhprobe$$" out
    command -v ip >/dev/null 2>&1 || return 0
    if ! out=$(ip netns add "$probe" 2>&1); then
        echo "network namespaces are not permitted here (ip netns add: ${out})"; return
    fi
    if ! out=$(ip netns exec "$probe" unshare -m true 2>&1); then
        ip netns delete "$probe" 2>/dev/null
        echo "mount namespaces are not permitted here (unshare -m: ${out})"; return
    fi
    ip netns delete "$probe" 2>/dev/null
}

# A Python >= 3.12 for the Matter Server: $RH_PYTHON, then pyenv's, then python3.12+ on PATH.
rh_find_python() {
    local candidate
    for candidate in "${RH_PYTHON:-}" "$HOME"/.pyenv/versions/3.1[2-9]*/bin/python3 /root/.pyenv/versions/3.1[2-9]*/bin/python3 \
        python3.13 python3.12 python3; do
        [ -n "$candidate" ] || continue
        command -v "$candidate" >/dev/null 2>&1 || continue
        if "$candidate" -c 'import sys, venv; sys.exit(0 if sys.version_info >= (3, 12) else 1)' 2>/dev/null; then
            command -v "$candidate"; return 0
        fi
    done
    return 1
}

rh_install_apt() {
    local need=() package
    for package in "${RH_APT_PACKAGES[@]}"; do dpkg -s "$package" >/dev/null 2>&1 || need+=("$package"); done
    [ ${#need[@]} -eq 0 ] && return 0
    rh_log "installing ${need[*]}"
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null
}

# Creates (once per set of pinned versions) a virtual environment; prints its directory.
rh_venv() {
    local name=$1 python=$2; shift 2
    local key dir
    key=$(printf '%s\n' "$("$python" -c 'import sys; print(sys.version)')" "$@" | sha256sum | cut -c1-12)
    dir="$RH_CACHE/$name-$key"
    if [ ! -f "$dir/.complete" ]; then
        rm -rf "$dir"
        "$python" -m venv "$dir" >&2 || return 1
        "$dir/bin/pip" install -q --disable-pip-version-check "$@" >&2 || return 1
        touch "$dir/.complete"
    fi
    echo "$dir"
}

# The public test PAA as DER in a trust-store directory, from ../shared when present, else the committed copy.
rh_trust_store() {
    local dir=$1 repo=$2 pem
    pem="$repo/../shared/reference/real-hub/Chip-Test-PAA-NoVID-Cert.pem"
    [ -f "$pem" ] || pem="$repo/Tests/RealHub/certs/Chip-Test-PAA-NoVID-Cert.pem"
    mkdir -p "$dir"
    openssl x509 -in "$pem" -outform der -out "$dir/Chip-Test-PAA-NoVID-Cert.der"
    touch "$dir/.version"   # the server then trusts the folder as it is instead of fetching from the DCL
}

rh_in_ns() { ip netns exec "$RH_NS" "$@"; }

rh_start_network() {
    ip netns add "$RH_NS" || return 1
    rh_in_ns ip link set lo up
    rh_in_ns ip link add "$RH_VETH_A" type veth peer name "$RH_VETH_B" || return 1
    rh_in_ns ip -6 addr add fd12::1/64 dev "$RH_VETH_A" nodad
    rh_in_ns ip -6 addr add fd12::2/64 dev "$RH_VETH_B" nodad
    rh_in_ns ip link set "$RH_VETH_A" up
    rh_in_ns ip link set "$RH_VETH_B" up
}

rh_start_dbus() {
    local conf="$RH_WORK/dbus.conf"
    export DBUS_SYSTEM_BUS_ADDRESS="unix:path=$RH_WORK/dbus.sock"
    sed -e '/<user>/d' -e '/<pidfile>/d' -e '/<fork\/>/d' -e '/<syslog\/>/d' \
        -e "s|<listen>.*</listen>|<listen>${DBUS_SYSTEM_BUS_ADDRESS}</listen>|" \
        -e 's|<includedir>system.d</includedir>|<includedir>/usr/share/dbus-1/system.d</includedir>|' \
        -e '/<includedir>\/etc\/dbus-1\/system.d<\/includedir>/d' -e '/<include .*system-local.conf/d' \
        /usr/share/dbus-1/system.conf >"$conf"
    dbus-daemon --config-file="$conf" --nofork --nopidfile >"$RH_WORK/dbus.log" 2>&1 &
    RH_PIDS+=($!)
    rh_wait_for 10 test -S "$RH_WORK/dbus.sock"
}

rh_start_avahi() {
    local conf="$RH_WORK/avahi.conf"
    printf '[server]\nuse-ipv4=no\nuse-ipv6=yes\nallow-interfaces=%s\nenable-dbus=yes\nratelimit-burst=1000\n[publish]\npublish-hinfo=no\npublish-workstation=no\n' \
        "$RH_VETH_A" >"$conf"
    # avahi keeps its PID file and socket in /run/avahi-daemon: give it a private one in its own mount namespace.
    # With that, its own D-Bus socket and its own network namespace, an avahi-daemon or system D-Bus already running
    # on the machine neither blocks this one nor sees its adverts.
    if [ ! -d /run/avahi-daemon ]; then mkdir -p /run/avahi-daemon; RH_CREATED_AVAHI_RUN=true; fi
    mkdir -p "$RH_WORK/avahi-run"
    ip netns exec "$RH_NS" unshare -m sh -c "mount --make-rprivate / && mount --bind '$RH_WORK/avahi-run' /run/avahi-daemon \
        && exec avahi-daemon -f '$conf' --no-rlimits --no-chroot --no-drop-root --no-proc-title" \
        >"$RH_WORK/avahi.log" 2>&1 &
    RH_PIDS+=($!)
    rh_wait_for 10 grep -q "Server startup complete" "$RH_WORK/avahi.log"
}

# Starts a fresh device (new state file) and waits until it advertises; its PID is RH_DEVICE_PID.
rh_start_device() {
    local name=$1 device_python=$2 repo=$3
    shift 3
    rm -f "$RH_WORK/$name.ready"
    DBUS_SYSTEM_BUS_ADDRESS="unix:path=$RH_WORK/dbus.sock" ip netns exec "$RH_NS" \
        "$device_python" "$repo/Tests/RealHub/circuitmatter_device.py" --state "$RH_WORK/$name.json" \
        --ready-file "$RH_WORK/$name.ready" "$@" >"$RH_WORK/$name.log" 2>&1 &
    RH_DEVICE_PID=$!
    RH_PIDS+=("$RH_DEVICE_PID")
    rh_wait_for 30 test -f "$RH_WORK/$name.ready" || return 1
    # The commissionable advert is published by avahi-publish-service children: wait until avahi has it.
    rh_wait_for 15 sh -c "DBUS_SYSTEM_BUS_ADDRESS='unix:path=$RH_WORK/dbus.sock' ip netns exec '$RH_NS' \
        avahi-browse -ptr _matterc._udp --terminate 2>/dev/null | grep -q '^='"
}

# Stops the current device and its avahi-publish-service children.
rh_stop_device() {
    [ -n "$RH_DEVICE_PID" ] || return 0
    rh_stop_pid "$RH_DEVICE_PID"
    RH_DEVICE_PID=""
}

rh_start_server() {
    local server_venv=$1
    mkdir -p "$RH_WORK/server-data" "$RH_WORK/server-storage"
    if [ ! -d /data ]; then mkdir /data; RH_CREATED_DATA=true; fi
    [ -e /tmp/chip_kvs ] || RH_HAD_CHIP_KVS=false
    ip netns exec "$RH_NS" unshare -m sh -c "mount --make-rprivate / && mount --bind '$RH_WORK/server-data' /data && exec \
        '$server_venv/bin/matter-server' --storage-path '$RH_WORK/server-storage' \
        --paa-root-cert-dir '$RH_WORK/paa' --port 5580 --listen-address ::1" >"$RH_WORK/server.log" 2>&1 &
    RH_PIDS+=($!)
    rh_wait_for 60 rh_in_ns "$server_venv/bin/python" -c \
        "import socket; socket.create_connection(('::1', 5580), timeout=1).close()"
}

# SIGTERM, then SIGKILL after 5 s; also stops the process's children (the device's avahi-publish-service).
rh_stop_pid() {
    local pid=$1 child i
    kill -0 "$pid" 2>/dev/null || return 0
    for child in $(pgrep -P "$pid" 2>/dev/null); do rh_stop_pid "$child"; done
    kill -TERM "$pid" 2>/dev/null
    for i in $(seq 50); do kill -0 "$pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$pid" 2>/dev/null
    for child in $(pgrep -P "$pid" 2>/dev/null); do kill -KILL "$child" 2>/dev/null; done
    wait "$pid" 2>/dev/null
    return 0
}

rh_any_alive() {
    local pid
    for pid in "$@"; do kill -0 "$pid" 2>/dev/null && return 0; done
    return 1
}

rh_teardown() {
    local pid all=() i
    # Every process and its children get SIGTERM at once; whatever is still running 5 s later gets SIGKILL.
    for pid in "${RH_PIDS[@]}"; do
        kill -0 "$pid" 2>/dev/null || continue
        all+=("$pid" $(pgrep -P "$pid" 2>/dev/null))
    done
    [ ${#all[@]} -gt 0 ] && kill -TERM "${all[@]}" 2>/dev/null
    for i in $(seq 50); do
        rh_any_alive "${all[@]}" || break
        sleep 0.1
    done
    for pid in "${all[@]}"; do kill -KILL "$pid" 2>/dev/null; done
    for pid in "${RH_PIDS[@]}"; do wait "$pid" 2>/dev/null; done
    RH_PIDS=()
    ip netns delete "$RH_NS" 2>/dev/null
    [ "$RH_CREATED_DATA" = true ] && rmdir /data 2>/dev/null
    [ "$RH_CREATED_AVAHI_RUN" = true ] && rmdir /run/avahi-daemon 2>/dev/null
    [ "$RH_HAD_CHIP_KVS" = false ] && rm -f /tmp/chip_kvs
    return 0
}

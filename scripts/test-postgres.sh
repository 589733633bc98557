#!/usr/bin/env bash
# Start a throwaway PostgreSQL server on loopback for the test suite and print its URL.
# Usage: eval "$(scripts/test-postgres.sh start DIR)"   (sets HANAMIKOJI_TEST_POSTGRES)
#        scripts/test-postgres.sh stop DIR
set -euo pipefail
action=${1:?usage: test-postgres.sh start|stop DIR}
dir=${2:?usage: test-postgres.sh start|stop DIR}
port=${HANAMIKOJI_TEST_POSTGRES_PORT:-$(python3 -c \
  'import socket; s = socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')}
bindir=$(ls -d /usr/lib/postgresql/*/bin 2>/dev/null | sort -V | tail -1)
if [ -z "$bindir" ]; then
  echo "test-postgres.sh: PostgreSQL is not installed (Debian: apt-get install postgresql)" >&2
  exit 1
fi
as_owner() {
  # PostgreSQL refuses to run as root: run it as the postgres user the Debian package creates.
  if [ "$(id -u)" = 0 ]; then runuser -u postgres -- "$@"; else "$@"; fi
}
case "$action" in
  start)
    mkdir -p "$dir"
    if [ "$(id -u)" = 0 ]; then chown postgres "$dir"; fi
    as_owner "$bindir/initdb" -D "$dir/data" -U postgres -A trust --no-sync >"$dir/initdb.log" 2>&1
    as_owner "$bindir/pg_ctl" -D "$dir/data" -l "$dir/server.log" -w -o \
      "-h 127.0.0.1 -p $port -k $dir -c fsync=off -c max_connections=200" start >/dev/null
    echo "export HANAMIKOJI_TEST_POSTGRES=postgresql://postgres@127.0.0.1:$port/postgres"
    ;;
  stop)
    as_owner "$bindir/pg_ctl" -D "$dir/data" -m fast stop >/dev/null || true
    ;;
  *)
    echo "usage: test-postgres.sh start|stop DIR" >&2
    exit 2
    ;;
esac

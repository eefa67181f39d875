#!/bin/bash
# Run inside `unshare -m`: the daemon's state on a 1 MiB tmpfs that a filler file then fills.
# Usage: disk-full.sh WORKDIR SCREENTIMED POLICY. Prints what it saw; exits non-zero on a failure.
set -u
work=$1 bin=$2 policy=$3
state=$work/disk
as_child() { setpriv --reuid=65534 --regid=65534 --clear-groups "$@"; }
wait_for() {  # wait_for PATTERN: until the daemon's log says it (10 s at most)
    for _ in $(seq 100); do grep -q "$1" "$work/daemon.log" && return 0; sleep 0.1; done
    echo "the daemon never said: $1"; cat "$work/daemon.log"; return 1
}
mkdir -p "$state" && mount -t tmpfs -o size=1m,mode=0777 tmpfs "$state" || { echo "cannot mount a tmpfs"; exit 2; }
mkdir "$state/child" && chown 65534:65534 "$state/child"
mkdir -p "$work/run" && chown 65534:65534 "$work/run"
setpriv --reuid=65534 --regid=65534 --clear-groups \
    "$bin" --policy "$policy" --state-dir "$state/child" --socket "$work/run/control.sock" --sample-every 100ms 2> "$work/daemon.log" &
daemon=$!   # setpriv execs the daemon: this is its pid
# Activity: short-lived processes of the child, so that there is something to save.
( for _ in $(seq 600); do as_child /bin/sleep 0.02; done ) &
activity=$!
wait_for "watching uid" || exit 1
sleep 1
dd if=/dev/zero of="$state/filler" bs=64k 2>/dev/null
wait_for "cannot save" || exit 1
kill -0 $daemon || { echo "the daemon died on a full disk"; exit 1; }
# A parent's adjustment cannot be saved: it is refused and changes nothing.
stctl=$(dirname "$bin")/stctl
"$stctl" adjust 25 --reason "full disk" --socket "$work/run/control.sock" 2>&1; echo "adjust on a full disk: exit $?"
rm "$state/filler"
wait_for "saving works again" || exit 1
echo "balance after the disk was freed: $("$stctl" status --json --socket "$work/run/control.sock" | python3 -c 'import json,sys; print(json.load(sys.stdin)["balance"])')"
"$stctl" adjust 7 --reason "room again" --socket "$work/run/control.sock" >/dev/null; echo "adjust with room: exit $?"
kill $activity 2>/dev/null; wait $activity 2>/dev/null
kill -TERM $daemon; wait $daemon; status=$?
[ $status = 0 ] || { echo "the daemon exited $status after SIGTERM"; exit 1; }
as_child "$bin" check --state-dir "$state/child" || exit 1
echo "events saved: $(sqlite3 "$state/child/screentime.sqlite" 'SELECT count(*) FROM event')"
echo "ledger: $(sqlite3 "$state/child/screentime.sqlite" "SELECT group_concat(points || ' ' || note, '; ') FROM ledger")"
cat "$work/daemon.log"

#!/usr/bin/env bash
# A launch after a killed one under Open MPI. mpiexec (PRRTE) keeps its
# session in $TMPDIR/ompi.<its pid>; an mpiexec killed with SIGKILL (a test's
# or fti-fault's stop, a time limit) leaves that folder behind, and a later
# mpiexec that gets the same process id fails at once: "The PMIx server's
# listener thread failed to start" (seen in CI, where process ids wrap at
# 32768). The tests launch through test/mpiexec-openmpi.sh: this test kills
# one launch with SIGKILL and starts the next one with the same process id
# (set through /proc/sys/kernel/ns_last_pid, which needs root and
# CAP_SYS_ADMIN: skipped without), and requires the second to run its ranks.
source "$(dirname "$0")/lib.sh"
[ -n "${FTI_REAL_MPIEXEC:-}" ] ||
  { echo "SKIP: not an Open MPI build (MPIEXEC is not test/mpiexec-openmpi.sh)"; exit 77; }
[ "$(id -u)" -ne 0 ] || export OMPI_ALLOW_RUN_AS_ROOT=1 OMPI_ALLOW_RUN_AS_ROOT_CONFIRM=1
[ -w /proc/sys/kernel/ns_last_pid ] && echo "$(cat /proc/sys/kernel/ns_last_pid)" \
  > /proc/sys/kernel/ns_last_pid 2>/dev/null ||
  { echo "SKIP: choosing a process id needs root and CAP_SYS_ADMIN (/proc/sys/kernel/ns_last_pid)"; exit 77; }

# with_pid P COMMAND...: runs COMMAND as process P (the kernel hands out the
# id after ns_last_pid; retried while other processes take it first).
# Prints COMMAND's pid on fd 3, then waits for it; exits with its status.
with_pid() {
  python3 - "$@" <<'EOF'
import os, subprocess, sys
want, cmd = int(sys.argv[1]), sys.argv[2:]
for _ in range(50):
    with open("/proc/sys/kernel/ns_last_pid", "w") as f:
        f.write(str(want - 1))
    p = subprocess.Popen(cmd)
    if p.pid == want:
        break
    p.kill(); p.wait()
else:
    sys.exit("with_pid: process id %d was always taken first" % want)
os.write(3, b"%d\n" % p.pid)
sys.exit(p.wait())
EOF
}

# A free process id, far enough ahead that nothing takes it meanwhile, with
# no session folder of an earlier process of that id in /tmp.
max=$(cat /proc/sys/kernel/pid_max)
P=$(( ($(cat /proc/sys/kernel/ns_last_pid) + 5000) % max ))
while [ -e "/proc/$P" ] || [ -e "/tmp/ompi.$P" ]; do P=$(( (P + 1) % max )); done
trap 'rm -rf "/tmp/ompi.$P"' EXIT # where the first launch leaves it without the shim's fix

# 1: a job of two ranks, killed with SIGKILL (mpiexec and its ranks) once both run
with_pid "$P" "$MPIEXEC" -n 2 -bind-to none sleep 60 > "$T/first.log" 2>&1 3> "$T/first.pid" &
for _ in $(seq 1 300); do [ "$(pgrep -c -P "$P" sleep || true)" = 2 ] && break; sleep 0.1; done
[ "$(pgrep -c -P "$P" sleep || true)" = 2 ] || { cat "$T/first.log"; fail "the first job's ranks never ran"; }
kill -9 $(pgrep -P "$P") "$P"
wait || true
[ "$(cat "$T/first.pid")" = "$P" ] || fail "the first job did not run as process $P"

# 2: the same process id again: both ranks must run
with_pid "$P" "$MPIEXEC" -n 2 -bind-to none echo rank-ran > "$T/second.log" 2>&1 3> "$T/second.pid" ||
  { cat "$T/second.log"; fail "the launch after a killed one with the same process id failed"; }
[ "$(cat "$T/second.pid")" = "$P" ] || fail "the second job did not run as process $P"
[ "$(grep -c '^rank-ran$' "$T/second.log")" = 2 ] || { cat "$T/second.log"; fail "not two ranks ran"; }
pass "a launch after a killed mpiexec of the same process id runs (process id $P)"

#!/usr/bin/env bash
# fti-fault's online scenarios (=> online, docs/FAULTS.md) with online
# recovery under mpiexec --with-ft ulfm: examples/heatdis on 4 application
# ranks and spares; a rank killed at a random moment after a checkpoint, a
# rank killed while FTI_FAULT's delay holds it in an L2 checkpoint, a rank
# killed during the repair after a crash, two kills in a row. Each must end
# in its one launch with as many ranks replaced (the status file's
# online_recovery events) as were killed, a checkpoint restored and the
# output bit-identical to the fault-free run's.
source "$(dirname "$0")/lib.sh"
source "$(dirname "$0")/ulfmlib.sh"
ONLINE="set online_recovery=1 keep_last_ckpt=1"
out="$T/fault.out"
set +e
python3 "$FTI_SOURCE_DIR/tools/fti-fault" --config "$FTI_SOURCE_DIR/test/fault/heatdis.fti" \
  --workdir "$T/fault" --seed 5 --iters 400 --mpiexec-args=--with-ft=ulfm \
  --crash-marker 'heatdis: rank {rank}: injected crash \(SIGKILL\) at iteration {iter}' \
  --crash-args "--crash-at {iter} --crash-rank {rank}" \
  --scenario "online-kill-random $ONLINE spare_ranks=1 np=5 ckpt_l2_iter=40; kill rank=2 after=commit:2+rand:0-0.05 => online" \
  --scenario "online-kill-in-ckpt $ONLINE spare_ranks=1 np=5 ckpt_l2_iter=40; fault delay:l2_send:3@1; kill rank=1 after=delay => online" \
  --scenario "online-kill-in-repair $ONLINE spare_ranks=2 np=6 ckpt_l1_iter=40; crash rank=0 iter=100; fault delay:rejoin:1@2; kill rank=2 after=delay => online" \
  --scenario "online-two-kills $ONLINE spare_ranks=2 np=6 ckpt_l1_iter=40; kill rank=3 after=commit:2; fault delay:after_local_write:5@1; kill rank=1 after=delay => online" \
  -- "$FTI_BUILD_DIR/examples/heatdis" --config {config} --output {output} --iters 400 --rows 512 --cols 256 \
  > "$out" 2>&1
rc=$?
set -e
cat "$out"
[ "$rc" -eq 0 ] || fail "fti-fault's online scenarios failed (exit $rc; logs under $T/fault)"
[ "$(grep -c " online  *online, identical" "$out")" = 4 ] || fail "not 4 scenarios 'online, identical'"
pass "fti-fault: online scenarios (random kill, in a checkpoint, in a repair, two kills) bit-identical"

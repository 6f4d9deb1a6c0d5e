#!/usr/bin/env bash
# Several ranks sharing one FPGA with one compute unit (the XRT emulation's
# XRT_EMU_SHARED_CU lock: the 4 ranks' kernels run one after the other):
# blocking and non-blocking in-kernel checkpoints must not deadlock (in
# blocking mode a rank's kernel waits for a checkpoint while the others'
# have not started) and give the bytes of a run without checkpoints.
source "$(dirname "$0")/lib_fpga.sh"
J="$EX/fpga_jacobi"
ARGS=(--rows 12 --cols 32 --block-rows 2 --sweeps 2 --pace-us 2000)
write_config "$T/c.fti" keep_last_ckpt=0 ckpt_l1_iter=1

run_app "$T/ref.log" "$J" "$T/c.fti" "${ARGS[@]}" --mode off --out "$T/ref" || fail "reference run"
export XRT_EMU_SHARED_CU="$T/compute-unit.lock"
for mode in blocking nonblocking; do
  start=$(date +%s)
  timeout 240 bash -c "$(declare -f run_app run_nodes); NP=$NP T='$T' MPIEXEC='$MPIEXEC' \
    NODE_EXEC='$NODE_EXEC' run_app '$T/$mode.log' '$J' '$T/c.fti' ${ARGS[*]} --mode $mode \
    --out '$T/$mode'" || { tail -20 "$T/$mode.log"; fail "$mode on a shared compute unit"; }
  same_results "$T/$mode" "$T/ref"
  echo "ok: $mode, 4 ranks on one compute unit, $(( $(date +%s) - start )) s, identical results"
done
[ -e "$XRT_EMU_SHARED_CU" ] || fail "the compute unit lock was never taken"
pass "fpga shared compute unit"

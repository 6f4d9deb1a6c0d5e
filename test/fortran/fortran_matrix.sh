#!/usr/bin/env bash
# Every intrinsic type and kind at every rank 0-7 through the generic
# FTI_Protect: checkpoint, crash (no FTI_Finalize), restart, every byte and
# stored size checked. Once from L1, once from L2 with node 2 lost before the
# restart (its bytes come back from the partner copy).
source "$(dirname "$0")/lib_fortran.sh"

write_config "$T/l1.fti" restart.exec_id=matrix_l1
write_then_read test_f_matrix matrix "$T/l1.fti" 1
pass "type/kind/rank matrix through L1"

write_config "$T/l2.fti" restart.exec_id=matrix_l2
BETWEEN="lose_node 2" write_then_read test_f_matrix matrix "$T/l2.fti" 2
pass "type/kind/rank matrix through L2 with node 2 lost"

#!/usr/bin/env bash
# FTI's heads tell each application rank of their node the level of every
# checkpoint they post-processed (inline_lX = 0): one int with general_tag
# (2612) on the communicator given to FTI_Init. The library takes it at the
# next checkpoint or FTI_Finalize; FTI's cornerCases and nodeFlag programs
# receive the last one themselves, then end the heads and exit without
# FTI_Finalize. The message must come (a hang is killed by the timeout and
# fails), carry the level, and mean "committed": the restart recovers that
# checkpoint, not the one before.
source "$(dirname "$0")/lib_sem.sh"
for levels in "2" "4" "3 1 2" "2 4"; do
  fresh
  sem_config "$T/c.fti" head=1 node_size=2 group_size=2 inline_l2=0 inline_l3=0 inline_l4=0
  set -- $levels
  last=$((20 + $# - 1))
  expect_pass report "$T/w" sem "$T/c.fti" report 20 2 $levels
  expect_pass check "$T/r" sem "$T/c.fti" check $last
done
pass "heads report each post-processed level on general_tag; the checkpoint counts at once"

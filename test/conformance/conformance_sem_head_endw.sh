#!/usr/bin/env bash
# FTI's test programs (multiLevelCkpt check.c, recoverName, keepL4Ckpt, ...)
# simulate a crash with head = 1 by ending the heads themselves: each
# application rank sends FTI_ENDW with FTI's final_tag to its node's head on
# MPI_COMM_WORLD, then all ranks call MPI_Barrier(MPI_COMM_WORLD) and
# MPI_Finalize without FTI_Finalize. Our heads join that barrier and end (a
# hang is killed by the timeout and fails); the checkpoint then restores.
source "$(dirname "$0")/lib_sem.sh"
sem_config "$T/c.fti" head=1 node_size=2 group_size=2
expect_pass endw "$T/w" sem "$T/c.fti" endw 12 2
expect_pass check "$T/r" sem "$T/c.fti" check 12
pass "heads end on FTI_ENDW as FTI's test programs expect"

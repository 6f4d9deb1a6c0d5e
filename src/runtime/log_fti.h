/*
 * log_fti.h - FTI 1.6's own log lines, which job scripts and FTI's test
 * suites grep: FTI's words, prefixes and streams (stdout), at the verbosity
 * FTI prints them ("info" lines on application rank 0, "debug" lines
 * tagged with the rank in the communicator given to FTI_Init: nodeFlag on
 * the rank that says it, those every rank would say alike on application
 * rank 0 only). Every FTI wording lives here; our own lines (log.c, stderr)
 * say what FTI's do not (sizes, rates, checkpoint sequence numbers). None
 * is printed where [advanced] log_style leaves FTI's lines out (libfti).
 */
#ifndef FTI_LOG_FTI_H
#define FTI_LOG_FTI_H

/* Who this process is in FTI's prefixes: its rank in the communicator
 * given to FTI_Init, and whether it prints FTI's info lines. */
void fti_say_setup(int global_rank, int info_rank);

/* FTI_Init: "The execution ID is" (fresh start) or "This is a restart." */
void fti_say_exec_id(int restart, const char *exec_id);

/* FTI_Protect: the variable and this rank's checkpoint size so far; an
 * info line for a new variable, a debug line in FTI's words ("reseted")
 * for an update (both said by application rank 0 only, with its size). */
void fti_say_protect(int id, int is_new, int on_device, double ckpt_bytes);

/* FTI_Checkpoint returned success: user id, level, size per rank, time,
 * and its parts as FTI 1.6 splits it: waiting for the previous
 * checkpoint, the write, the rest (post-processing and commit). */
void fti_say_checkpoint(int id, int level, double bytes_per_rank, double secs, double wait,
                        double write, double post);

/* FTI_Snapshot re-planned at iteration `iter`: interval and next
 * checkpoint in iterations, and the sync interval (debug; the plan is
 * agreed, so application rank 0 says it for all). */
void fti_say_next_checkpoint(long long iter, long long interval, long long next, long long sync);

/* The one process of a node that does the node's part of a checkpoint of
 * `level` (debug): FTI's nodeFlag. */
void fti_say_node_flag(int node, int level);

#endif /* FTI_LOG_FTI_H */

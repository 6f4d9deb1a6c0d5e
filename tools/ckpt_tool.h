/*
 * ckpt_tool.h - fti-ckpt: inspect the checkpoints of a config without MPI and
 * without the application. Everything here only reads: files are opened
 * O_RDONLY and nothing is created, renamed or removed in checkpoint storage.
 * Node-local storage of other nodes is visible with --nodes DIR (node K's
 * local directory is DIR/node<K>, the layout of tools/fti-node-exec), and by
 * default with [advanced] local_test = 1 (DIR is then ckpt_dir).
 */
#ifndef FTI_CKPT_TOOL_H
#define FTI_CKPT_TOOL_H

#include <stdint.h>

#include "format/ckpt_expect.h"
#include "format/ckpt_file.h"
#include "format/config.h"
#include "format/layout.h"
#include "format/meta.h"

/* Exit codes of every command. */
enum {
    CKPT_EXIT_OK = 0,   /* done; for verify: the job is recoverable */
    CKPT_EXIT_BAD = 1,  /* the data is not good: not recoverable, checksum mismatch */
    CKPT_EXIT_USAGE = 2 /* wrong arguments, unreadable config or commit record, no such id */
};

typedef struct ckpt_opts {
    const char *cmd;
    const char *path;     /* CONFIG, or METRICS_FILE for stats and report */
    const char *nodes;    /* --nodes DIR */
    const char *exec_id;  /* --exec-id ID */
    const char *from;     /* --from FTI16_CONFIG (import) */
    const char *output;   /* -o FILE ("-": stdout) */
    const char *format;   /* --format raw|npy */
    int has_id, has_rank, has_var;
    int64_t id;
    int rank, var;
    int node_size;        /* --node-size N, 0: from the config */
    int json;             /* --json: one JSON document instead of the tables */
} ckpt_opts;

typedef struct ckpt_tool {
    fti_config cfg;
    fti_layout dirs;
    fti_meta meta;
    int have_meta;
    const char *nodes;  /* --nodes DIR, ckpt_dir under local_test, or NULL: the local node only */
    int node_size;      /* ranks per node, heads included (0: unknown) */
    int app_per_node;   /* application ranks per node (0: unknown) */
} ckpt_tool;

typedef enum {
    CK_OK,        /* present, header and every checksum good, right checkpoint */
    CK_MISSING,   /* not there (or not visible from this node) */
    CK_BAD,       /* present but damaged, truncated or from another checkpoint */
    CK_NO_CODEC,  /* present, in a form this build cannot read: zstd, HDF5 */
    CK_NA,        /* this level has no such file */
    CK_REMOVED    /* not there by design: an L4 checkpoint's own local file after the flush */
} ckpt_state;

typedef struct ckpt_file {
    ckpt_state st;
    int readable;  /* a plain checkpoint file that show/extract can read */
    char path[FTI_PATH_MAX];
    char why[FTI_PATH_MAX + 256];
} ckpt_file;

/* ---- ckpt_store.c: config, commit record, where each file lives ---------- */

/* Loads config, layout and commit record; prints the error and returns an
 * exit code on failure, CKPT_EXIT_OK otherwise. */
int ckpt_open(ckpt_tool *t, const ckpt_opts *o);

/* Prints "fti-ckpt: <message>" to stderr. */
void ckpt_error(const char *fmt, ...) __attribute__((format(printf, 1, 2)));

/* The committed checkpoints, newest first (<= 8); with has_id only those of id. */
int ckpt_commits(const ckpt_tool *t, int has_id, int64_t id, fti_commit out[8]);

/* The newest commit (of id when has_id) into *c; prints an error and returns
 * CKPT_EXIT_USAGE when there is none. */
int ckpt_pick(const ckpt_tool *t, int has_id, int64_t id, fti_commit *c);

/* Checks the rank -> node (-> group, need_groups) mapping for commit c
 * (--nodes and L2/L3 need it); returns CKPT_EXIT_USAGE, with a message
 * unless quiet, when it cannot be known from the config. */
int ckpt_check_mapping(const ckpt_tool *t, const fti_commit *c, int need_groups, int quiet);

int ckpt_node_of(const ckpt_tool *t, int rank);
/* Nodes per group for commit c: [basic] group_size, or without the key the
 * default shrunk to divide the nodes (as the library's topology does). */
int ckpt_group_size(const ckpt_tool *t, const fti_commit *c);
int ckpt_group_pos(const ckpt_tool *t, const fti_commit *c, int rank);
/* Application rank of member j of rank's group ring. */
int ckpt_member(const ckpt_tool *t, const fti_commit *c, int rank, int j);

/* Layout with node `node`'s local directory (--nodes), else the config's. */
void ckpt_node_layout(const ckpt_tool *t, int node, fti_layout *l);

/* Paths of rank's files of commit c: its own local file, its L2 partner copy
 * (on the next node of its ring), its L3 parity file. */
void ckpt_path_own(const ckpt_tool *t, const fti_commit *c, int rank, char *out);
void ckpt_path_partner(const ckpt_tool *t, const fti_commit *c, int rank, char *out);
void ckpt_path_parity(const ckpt_tool *t, const fti_commit *c, int rank, char *out);

/* Verifies a checkpoint file (header, and with full every data checksum)
 * and checks it against x, the library's rules (src/format/ckpt_expect.h) into f;
 * *hdr, when not NULL, receives the header when f->st is CK_OK (free it
 * with fti_file_header_free). */
void ckpt_check_file(const char *path, const fti_expect *x, int full, ckpt_file *f,
                     fti_file_header *hdr);

/* The first good plain copy of rank's file of commit c: its own local file,
 * else its L2 partner copy (L4 copies: ckpt_l4_check). full: verify every
 * checksum. 0 with f and *hdr filled, or -1 with each copy's reason in
 * f->why. */
int ckpt_find_copy(const ckpt_tool *t, const fti_commit *c, int rank, int full, ckpt_file *f,
                   fti_file_header *hdr);

const char *ckpt_state_name(ckpt_state s);

/* "1.5 MiB" */
void ckpt_human_bytes(uint64_t n, char *out, size_t len);

/* write(2) of all n bytes (the output may be a pipe). 0, or -1 with errno. */
int ckpt_write_all(int fd, const void *buf, size_t n);

/* ---- ckpt_l4.c: the global copies (level 4) ------------------------------- */

/* What a caller may want from an L4 copy besides its state. */
typedef struct ckpt_l4_out {
    int var_id, fd;        /* in: fd >= 0 writes variable var_id's bytes there */
    int have_hdr;          /* out: the rank's header could be read: */
    fti_file_header hdr;   /*   its variable table */
    int *var_ok;           /*   per entry of hdr, 1 when its checksum matched */
    int out_errno;         /* out: writing to fd failed with this errno */
} ckpt_l4_out;

/* The state of rank's L4 copy of commit c (every checksum is checked, in
 * whichever layout: per-rank or shared file, compressed or not). out may be
 * NULL; otherwise free it with ckpt_l4_out_free. */
void ckpt_l4_check(const ckpt_tool *t, const fti_commit *c, int rank, ckpt_file *f,
                   ckpt_l4_out *out);
void ckpt_l4_out_free(ckpt_l4_out *out);

/* ---- ckpt_stats.c: the metrics-file reader (stats and report) ------------ */

/* One line of a metrics file: a flat JSON object (string, number,
 * true/false/null values), which is all the library writes. */
enum { CKPT_MFIELDS = 64 };
typedef struct ckpt_mfield {
    char key[48];
    int is_str;
    int is_null;
    double num; /* numbers, true (1), false and null (0) */
    char str[128];
} ckpt_mfield;

typedef struct ckpt_mline {
    ckpt_mfield f[CKPT_MFIELDS];
    int n;
} ckpt_mline;

typedef struct ckpt_mcount {
    long lines;  /* read, blank ones included */
    long bad;    /* malformed: each reported as PATH:LINE on stderr */
    long events; /* well-formed, given to the callback */
} ckpt_mcount;

typedef void (*ckpt_mline_fn)(const ckpt_mline *l, long lineno, void *arg);

/* Calls fn for each well-formed line of the metrics file at path; a malformed
 * line is reported ("PATH:N: malformed metrics line (why)") and counted in
 * n->bad. CKPT_EXIT_USAGE (message printed) when the file cannot be read. */
int ckpt_metrics_read(const char *path, ckpt_mline_fn fn, void *arg, ckpt_mcount *n);
const ckpt_mfield *ckpt_mfield_of(const ckpt_mline *l, const char *key);
double ckpt_mnum(const ckpt_mline *l, const char *key); /* 0 when absent, a string or null */

/* ---- commands -------------------------------------------------------------- */
int ckpt_cmd_list(const ckpt_opts *o);
int ckpt_cmd_verify(const ckpt_opts *o);
int ckpt_cmd_show(const ckpt_opts *o);
int ckpt_cmd_extract(const ckpt_opts *o);
int ckpt_cmd_stats(const ckpt_opts *o);
int ckpt_cmd_names(const ckpt_opts *o);
int ckpt_cmd_report(const ckpt_opts *o); /* ckpt_report.c: writes -o FILE, a new file */
int ckpt_cmd_import(const ckpt_opts *o); /* ckpt_import.c: the one command that writes */

#endif /* FTI_CKPT_TOOL_H */

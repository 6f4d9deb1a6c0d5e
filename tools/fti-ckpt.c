/*
 * fti-ckpt - list, verify and inspect the checkpoints of a config, without
 * MPI and without the application. Read-only: it never creates, changes or
 * removes anything in checkpoint storage, but for `import` (ckpt_import.c),
 * which writes a new job's first checkpoint. See docs/USER_GUIDE.md.
 */
#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"
#include "ckpt_tool.h"
/* FTI_VERSION_STRING: fti.h's version, given by tools/CMakeLists.txt (fti.h
 * includes mpi.h, which this MPI-free tool is compiled without). */

static const char usage_text[] =
    "usage: fti-ckpt COMMAND ARGS [OPTIONS]\n"
    "       fti-ckpt --version\n"
    "\n"
    "  list    CONFIG                         committed checkpoints (newest first)\n"
    "  verify  CONFIG [--id N]                every checksum; per rank, which level can restore\n"
    "                                         it; exit 0 only if the job is recoverable\n"
    "  show    CONFIG [--id N] --rank R       the variable table of rank R's file\n"
    "  extract CONFIG [--id N] --rank R --var ID -o FILE [--format raw|npy]\n"
    "                                         one variable's verified bytes (- is stdout)\n"
    "  stats   METRICS_FILE                   summary of a metrics_file\n"
    "  report  METRICS_FILE -o FILE.html      a metrics_file as one self-contained HTML page\n"
    "                                         (charts and tables, no network; - is stdout)\n"
    "  import  CONFIG --from FTI16_CONFIG     the newest checkpoint an FTI 1.6 job left (its\n"
    "                                         md5s checked) becomes CONFIG's L4 checkpoint\n"
    "  names   LIST                           what each file name of LIST (one a line, - is\n"
    "                                         stdin) says: kind level slot rank tag name, \"-\"\n"
    "                                         where it has none; kind none: not ours\n"
    "\n"
    "options:\n"
    "  --id N          the checkpoint id given to FTI_Checkpoint (default: the newest)\n"
    "  --nodes DIR     node-local storage of node K is DIR/node<K>/ (tools/fti-node-exec\n"
    "                  layout, or every node's ckpt_dir mounted side by side); without it\n"
    "                  only this node's ckpt_dir is seen, or with [advanced] local_test = 1\n"
    "                  every simulated node's folder ckpt_dir/node<K>/\n"
    "  --node-size N   ranks per node, heads included (when the config says node_size = 0)\n"
    "  --exec-id ID    the run's exec_id, when the config file moved (default: [restart]\n"
    "                  exec_id, else derived from the config's absolute path)\n"
    "  --json          list, verify, show, stats: one JSON document on stdout instead of\n"
    "                  the tables (schema \"fti-ckpt/COMMAND/1\", keys in\n"
    "                  " FTI_DOC_DIR "/USER_GUIDE.md)\n"
    "\n"
    "exit status: 0 ok (verify: recoverable), 1 damaged or not recoverable, 2 usage or\n"
    "input error (bad option, unreadable config or commit record, no such checkpoint)\n";

static int usage(int rc)
{
    fputs(usage_text, rc == 0 ? stdout : stderr);
    return rc;
}

static int usage_hint(void)
{
    fputs("fti-ckpt --help lists the commands and options\n", stderr);
    return CKPT_EXIT_USAGE;
}

static int parse_int(const char *opt, const char *s, long long lo, long long hi, long long *out)
{
    char *end = NULL;
    errno = 0;
    long long v = strtoll(s, &end, 10);
    if (errno != 0 || end == s || *end != '\0' || v < lo || v > hi) {
        fprintf(stderr, "fti-ckpt: %s '%s' is not an integer in [%lld, %lld]\n", opt, s, lo, hi);
        return -1;
    }
    *out = v;
    return 0;
}

enum { O_ID = 256, O_RANK, O_VAR, O_FORMAT, O_NODES, O_NODE_SIZE, O_EXEC_ID, O_FROM, O_JSON };

static const struct option long_opts[] = {
    {"id", required_argument, NULL, O_ID},
    {"rank", required_argument, NULL, O_RANK},
    {"var", required_argument, NULL, O_VAR},
    {"output", required_argument, NULL, 'o'},
    {"format", required_argument, NULL, O_FORMAT},
    {"nodes", required_argument, NULL, O_NODES},
    {"node-size", required_argument, NULL, O_NODE_SIZE},
    {"exec-id", required_argument, NULL, O_EXEC_ID},
    {"from", required_argument, NULL, O_FROM},
    {"json", no_argument, NULL, O_JSON},
    {"help", no_argument, NULL, 'h'},
    {NULL, 0, NULL, 0},
};

static int take_option(int c, const char *arg, ckpt_opts *o)
{
    long long v = 0;
    switch (c) {
    case O_ID:
        o->has_id = 1;
        if (parse_int("--id", arg, LLONG_MIN, LLONG_MAX, &v) != 0) return -1;
        o->id = v;
        return 0;
    case O_RANK:
        o->has_rank = 1;
        if (parse_int("--rank", arg, 0, INT_MAX, &v) != 0) return -1;
        o->rank = (int)v;
        return 0;
    case O_VAR:
        o->has_var = 1;
        if (parse_int("--var", arg, INT_MIN, INT_MAX, &v) != 0) return -1;
        o->var = (int)v;
        return 0;
    case O_NODE_SIZE:
        if (parse_int("--node-size", arg, 1, 4096, &v) != 0) return -1;
        o->node_size = (int)v;
        return 0;
    case 'o': o->output = arg; return 0;
    case O_FORMAT: o->format = arg; return 0;
    case O_NODES: o->nodes = arg; return 0;
    case O_EXEC_ID: o->exec_id = arg; return 0;
    case O_FROM: o->from = arg; return 0;
    case O_JSON: o->json = 1; return 0;
    default: return -1;
    }
}

/* argv[1] is the command; options may come before or after the path. */
static int parse_args(int argc, char **argv, ckpt_opts *o)
{
    memset(o, 0, sizeof *o);
    o->cmd = argv[1];
    argv[1] = (char *)"fti-ckpt"; /* getopt names argv[0] in its messages */
    opterr = 1;
    int c;
    while ((c = getopt_long(argc - 1, argv + 1, "o:h", long_opts, NULL)) != -1) {
        if (c == 'h')
            return 1;
        if (take_option(c, optarg, o) != 0)
            return -1;
    }
    int rest = argc - 1 - optind;
    if (rest != 1) {
        fprintf(stderr, "fti-ckpt %s: expected one %s argument, got %d\n", o->cmd,
                strcmp(o->cmd, "stats") == 0 || strcmp(o->cmd, "report") == 0 ? "METRICS_FILE"
                : strcmp(o->cmd, "names") == 0 ? "LIST"
                                               : "CONFIG", rest);
        return -1;
    }
    o->path = argv[1 + optind];
    if (o->json && strcmp(o->cmd, "list") != 0 && strcmp(o->cmd, "verify") != 0 &&
        strcmp(o->cmd, "show") != 0 && strcmp(o->cmd, "stats") != 0) {
        fprintf(stderr, "fti-ckpt %s: --json is for list, verify, show and stats\n", o->cmd);
        return -1;
    }
    return 0;
}

int main(int argc, char **argv)
{
    static const struct {
        const char *name;
        int (*run)(const ckpt_opts *);
    } cmds[] = {{"list", ckpt_cmd_list},     {"verify", ckpt_cmd_verify},
                {"show", ckpt_cmd_show},     {"extract", ckpt_cmd_extract},
                {"stats", ckpt_cmd_stats},   {"names", ckpt_cmd_names},
                {"import", ckpt_cmd_import}, {"report", ckpt_cmd_report}};
    fti_log_program("fti-ckpt"); /* the library's messages name the tool, not a rank */
    if (argc >= 2 && strcmp(argv[1], "--version") == 0) {
        printf("fti-ckpt (libfti) %s\n", FTI_VERSION_STRING);
        return 0;
    }
    if (argc < 2 || strcmp(argv[1], "-h") == 0 || strcmp(argv[1], "--help") == 0 ||
        strcmp(argv[1], "help") == 0)
        return usage(argc < 2 ? CKPT_EXIT_USAGE : 0);
    for (size_t i = 0; i < sizeof cmds / sizeof cmds[0]; i++) {
        if (strcmp(argv[1], cmds[i].name) != 0)
            continue;
        ckpt_opts o;
        int rc = parse_args(argc, argv, &o);
        if (rc != 0)
            return rc > 0 ? usage(0) : usage_hint();
        return cmds[i].run(&o);
    }
    fprintf(stderr, "fti-ckpt: unknown command '%s'\n", argv[1]);
    return usage_hint();
}

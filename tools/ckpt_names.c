/*
 * ckpt_names.c - fti-ckpt names: what each file name says, read by the
 * library's own parser (layout.c's fti_name_parse), so that scripts such as
 * tools/fti-fault classify checkpoint files by the one rule that names them.
 */
#include <stdio.h>
#include <string.h>

#include "ckpt_tool.h"

/* One line: kind level slot rank tag name ("-" where the name has none). */
static void print_name(const char *name)
{
    fti_name_info n;
    fti_name_parse(name, &n);
    char level[16] = "-", slot[16] = "-", rank[16] = "-";
    if (n.level >= 0) snprintf(level, sizeof level, "%d", n.level);
    if (n.slot >= 0) snprintf(slot, sizeof slot, "%d", n.slot);
    if (n.rank >= 0) snprintf(rank, sizeof rank, "%d", n.rank);
    printf("%s %s %s %s %s %s\n", fti_name_kind_str(n.kind), level, slot, rank,
           n.tag[0] ? n.tag : "-", name);
}

int ckpt_cmd_names(const ckpt_opts *o)
{
    FILE *in = strcmp(o->path, "-") == 0 ? stdin : fopen(o->path, "r");
    if (in == NULL) {
        perror(o->path);
        return CKPT_EXIT_USAGE;
    }
    char line[4096];
    while (fgets(line, sizeof line, in) != NULL) {
        line[strcspn(line, "\n")] = '\0';
        if (strchr(line, ' ') != NULL || strchr(line, '/') != NULL) {
            fprintf(stderr, "fti-ckpt names: '%s' is not a file name (no '/' or ' ')\n", line);
            if (in != stdin) fclose(in);
            return CKPT_EXIT_USAGE;
        }
        print_name(line);
    }
    if (in != stdin)
        fclose(in);
    return CKPT_EXIT_OK;
}

#include "stores/hdf5/h5_groups.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "base/log.h"

/* The root exists from the first use on. */
static fti_err ensure_root(fti_h5_groups *h)
{
    if (h->ngroups > 0)
        return FTI_E_OK;
    h->groups = calloc(1, sizeof *h->groups);
    if (h->groups == NULL)
        return fti_fail(FTI_E_NOMEM, "HDF5 groups: out of memory");
    snprintf(h->groups[0].name, FTI_BUFS, "/");
    h->ngroups = 1;
    return FTI_E_OK;
}

/* A group name is one HDF5 link name: not empty, no '/', not "." or "..". */
static int valid_name(const char *name)
{
    return name != NULL && name[0] != '\0' && strchr(name, '/') == NULL && strlen(name) < 200 &&
           strcmp(name, ".") != 0 && strcmp(name, "..") != 0;
}

static int known(const fti_h5_groups *h, const FTIT_H5Group *g)
{
    return g->id >= 0 && g->id < h->ngroups;
}

static int has_child(const fti_h5_groups *h, const FTIT_H5Group *p, const char *name)
{
    for (int i = 0; i < p->childrenNo; i++)
        if (strcmp(h->groups[p->childrenID[i]].name, name) == 0)
            return 1;
    return 0;
}

fti_err fti_h5_group_init(fti_h5_groups *h, FTIT_H5Group *g, const char *name,
                          const FTIT_H5Group *parent)
{
    fti_err e = ensure_root(h);
    if (e != FTI_E_OK)
        return e;
    if (g == NULL || !valid_name(name))
        return fti_fail(FTI_E_ARG, "FTI_InitGroup: group is NULL or name '%s' is not a valid "
                        "HDF5 group name (not empty, no '/')", name ? name : "(null)");
    if (parent != NULL && !known(h, parent))
        return fti_fail(FTI_E_ARG, "FTI_InitGroup(%s): the parent group was not created with "
                        "FTI_InitGroup", name);
    FTIT_H5Group *p = &h->groups[parent ? parent->id : 0];
    if (has_child(h, p, name) || p->childrenNo >= FTI_BUFS)
        return fti_fail(FTI_E_ARG, "FTI_InitGroup: group %s already has a child %s (or %d)",
                        p->name, name, FTI_BUFS);
    FTIT_H5Group *grown = realloc(h->groups, (size_t)(h->ngroups + 1) * sizeof *grown);
    if (grown == NULL)
        return fti_fail(FTI_E_NOMEM, "FTI_InitGroup: out of memory");
    h->groups = grown;
    p = &h->groups[parent ? parent->id : 0];
    memset(g, 0, sizeof *g);
    g->id = h->ngroups;
    snprintf(g->name, FTI_BUFS, "%s", name);
    snprintf(g->fullName, FTI_BUFS, "%.*s/%.*s", 126, p->fullName, 126, name);
    p->childrenID[p->childrenNo++] = g->id;
    h->groups[h->ngroups++] = *g;
    return FTI_E_OK;
}

/* Rewrites the full names below group id after a rename. */
static void refresh(fti_h5_groups *h, int id)
{
    FTIT_H5Group *g = &h->groups[id];
    for (int i = 0; i < g->childrenNo; i++) {
        FTIT_H5Group *c = &h->groups[g->childrenID[i]];
        snprintf(c->fullName, FTI_BUFS, "%.*s/%.*s", 126, g->fullName, 126, c->name);
        refresh(h, c->id);
    }
}

fti_err fti_h5_group_rename(fti_h5_groups *h, FTIT_H5Group *g, const char *name)
{
    if (g == NULL || !known(h, g) || g->id == 0 || !valid_name(name))
        return fti_fail(FTI_E_ARG, "FTI_RenameGroup: unknown group, the root, or invalid name");
    FTIT_H5Group *mine = &h->groups[g->id];
    snprintf(mine->name, FTI_BUFS, "%s", name);
    char *slash = strrchr(mine->fullName, '/');
    snprintf(slash + 1, (size_t)(FTI_BUFS - (slash + 1 - mine->fullName)), "%s", name);
    refresh(h, g->id);
    *g = *mine;
    return FTI_E_OK;
}

fti_err fti_h5_groups_ready(fti_h5_groups *h)
{
    return ensure_root(h);
}

fti_err fti_h5_place_var(fti_h5_groups *h, int var_id, const FTIT_H5Group *g)
{
    fti_err e = ensure_root(h);
    if (e != FTI_E_OK)
        return e;
    if (g != NULL && !known(h, g))
        return fti_fail(FTI_E_ARG, "FTI_DefineDataset(%d): the group was not created with "
                        "FTI_InitGroup", var_id);
    for (int i = 0; i < h->nplaces; i++)
        if (h->places[i].var_id == var_id) {
            h->places[i].group = g ? g->id : 0;
            return FTI_E_OK;
        }
    fti_h5_place *grown = realloc(h->places, (size_t)(h->nplaces + 1) * sizeof *grown);
    if (grown == NULL)
        return fti_fail(FTI_E_NOMEM, "FTI_DefineDataset: out of memory");
    h->places = grown;
    h->places[h->nplaces++] = (fti_h5_place){var_id, g ? g->id : 0};
    return FTI_E_OK;
}

const char *fti_h5_var_group(const fti_h5_groups *h, int var_id)
{
    for (int i = 0; i < h->nplaces; i++)
        if (h->places[i].var_id == var_id)
            return h->groups[h->places[i].group].fullName;
    return "";
}

void fti_h5_groups_free(fti_h5_groups *h)
{
    free(h->groups);
    free(h->places);
    free(h->globals);
    free(h->subsets);
    memset(h, 0, sizeof *h);
}

void fti_h5_groups_release(fti_h5_groups **h)
{
    if (*h == NULL)
        return;
    fti_h5_groups_free(*h);
    free(*h);
    *h = NULL;
}

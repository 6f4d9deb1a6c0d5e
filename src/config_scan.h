/*
 * config_scan.h - checks on the config file that iniparser cannot make
 * (it keeps the last of two equal keys silently), and the nearest-name
 * search behind "did you mean" for unknown keys.
 */
#ifndef FTI_CONFIG_SCAN_H
#define FTI_CONFIG_SCAN_H

#include <stddef.h>

#include "error.h"

/* Reads the n bytes of the config file `path` (text, read once by the
 * caller) as iniparser does (sections and keys case-insensitive, '#' and
 * ';' comments) and fails with FTI_E_CONFIG naming the first key given
 * twice in one section and both its lines. */
fti_err fti_config_check_duplicates(const char *path, const char *text, size_t n);

/* Edit distance between a and b (insert, delete, replace one character),
 * capped at `cap`: returns cap when the distance is cap or more. */
int fti_edit_distance(const char *a, const char *b, int cap);

#endif /* FTI_CONFIG_SCAN_H */

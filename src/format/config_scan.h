/*
 * config_scan.h - the nearest-name search behind "did you mean" for
 * unknown config keys (the file itself is read by ini.h).
 */
#ifndef FTI_CONFIG_SCAN_H
#define FTI_CONFIG_SCAN_H

#include <stddef.h>

/* Edit distance between a and b (insert, delete, replace one character),
 * capped at `cap`: returns cap when the distance is cap or more. */
int fti_edit_distance(const char *a, const char *b, int cap);

#endif /* FTI_CONFIG_SCAN_H */

/*
 * ini_edit.h - sets keys of one section in an INI file in place, keeping
 * every other line (comments, blank lines, order, spacing) as it was. The
 * file is read by the one INI grammar (ini.h: sections and keys
 * case-insensitive, '#' and ';' comments, continued lines) and replaced by rename of a temporary file next to
 * it, so a reader never sees half a file.
 */
#ifndef FTI_INI_EDIT_H
#define FTI_INI_EDIT_H

#include <stddef.h>

typedef struct fti_ini_kv {
    const char *key;
    const char *value;
} fti_ini_kv;

/* Sets each key of `kv` (n entries) in `section` of `path`: an existing
 * key line gets the new value (its spacing and trailing comment kept), a
 * missing key is added after the section's last key, a missing section is
 * appended. A symbolic link is followed (the link stays). Returns 0, or -1
 * with the reason in `why` (the file is then unchanged). */
int fti_ini_set(const char *path, const char *section, const fti_ini_kv *kv, int n, char *why,
                size_t why_len);

#endif /* FTI_INI_EDIT_H */

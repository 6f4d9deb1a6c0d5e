/*
 * xxh.h - xxHash's XXH3-64, compiled into libfti from xxHash's header
 * (xxh.c), so the static archive needs no libxxhash when an application
 * links it. Its functions carry the prefix fti_ (XXH_NAMESPACE): an
 * application's own xxHash, of any version, never meets ours.
 *
 * fti_xxh3 and fti_xxh3_update pick AVX-512 or AVX2 at run time where the
 * build has those variants (xxh_avx2.c, xxh_avx512.c) and the CPU runs them;
 * the values are the same with every variant.
 */
#ifndef FTI_BASE_XXH_H
#define FTI_BASE_XXH_H

#define XXH_NAMESPACE fti_
#define XXH_STATIC_LINKING_ONLY /* XXH3_state_t and its functions */
#include <xxhash.h>

#include <stddef.h>
#include <stdint.h>

#include "base/xxh_variants.h"

/* XXH3-64 of n bytes, with the widest variant this CPU runs. */
uint64_t fti_xxh3(const void *data, size_t n);

/* XXH3_64bits_update with the widest variant; 0, or -1 on a NULL state. */
int fti_xxh3_update(XXH3_state_t *state, const void *data, size_t n);

/* Which variant fti_xxh3 uses here: "avx512", "avx2" or "baseline". */
const char *fti_xxh3_variant(void);

#endif

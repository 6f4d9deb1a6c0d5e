#include "core/levels.h"

#include <stddef.h>

const fti_level_ops *fti_level(int level)
{
    switch (level) {
    case 2: return &fti_l2_ops;
    case 3: return &fti_l3_ops;
    case 4: return &fti_l4_ops;
    default: return NULL;
    }
}

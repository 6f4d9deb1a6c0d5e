#include "levels/levels.h"

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

fti_phase fti_level_phase(int level)
{
    return level == 2 ? FTI_PHASE_L2_SEND : level == 3 ? FTI_PHASE_L3_ENCODE : FTI_PHASE_L4_FLUSH;
}

// fti-intern.h compiles as C++ too (C++ applications include it as FTI's).
#include <fti-intern.h>

int main()
{
    FTIT_double d;
    d.value = 1.0;
    FTIT_float f;
    f.value = 1.0f;
    char path[FTI_BUFS];
    snprintf(path, sizeof path, "%d %d %d", LOCAL, GLOBAL, MD5_DIGEST_LENGTH);
    return (d.byte[7] != 0 && f.byte[3] != 0 && FTI_L4 == 4) ? 0 : 1;
}

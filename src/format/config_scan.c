#include "format/config_scan.h"

#include <string.h>

#define SCAN_KEY_MAX 160

int fti_edit_distance(const char *a, const char *b, int cap)
{
    size_t la = strlen(a), lb = strlen(b);
    if (la >= SCAN_KEY_MAX || lb >= SCAN_KEY_MAX)
        return cap;
    int row[SCAN_KEY_MAX];
    for (size_t j = 0; j <= lb; j++)
        row[j] = (int)j;
    for (size_t i = 1; i <= la; i++) {
        int diag = row[0], best = row[0] = (int)i;
        for (size_t j = 1; j <= lb; j++) {
            int up = row[j];
            int sub = diag + (a[i - 1] != b[j - 1]);
            int v = up + 1 < row[j - 1] + 1 ? up + 1 : row[j - 1] + 1;
            row[j] = sub < v ? sub : v;
            diag = up;
            best = row[j] < best ? row[j] : best;
        }
        if (best >= cap)
            return cap;
    }
    return row[lb] < cap ? row[lb] : cap;
}

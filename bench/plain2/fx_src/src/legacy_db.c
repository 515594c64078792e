/* legacy flat-file backend, kept for migration */
#include <stdio.h>

int legacy_load(const char *path)
{
    FILE *f = fopen(path, "r");

    if (!f)
        return -1;
    fclose(f);
    return 0;
}

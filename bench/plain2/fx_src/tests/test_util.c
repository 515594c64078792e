#include <stdio.h>

#include "test.h"

static int failures;

void test_fail(const char *file, int line, const char *what)
{
    fprintf(stderr, "%s:%d: FAIL %s\n", file, line, what);
    failures++;
}

int test_failures(void)
{
    return failures;
}

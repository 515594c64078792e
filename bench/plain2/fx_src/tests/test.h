#ifndef TEST_H
#define TEST_H

#define ASSERT_EQ(a, b) do { if ((a) != (b)) test_fail(__FILE__, __LINE__, #a " == " #b); } while (0)

void test_fail(const char *file, int line, const char *what);
int test_failures(void);

#endif

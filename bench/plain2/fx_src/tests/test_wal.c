#include "wal.h"
#include "test.h"

static void test_append_replay(void)
{
    struct wal *w = wal_open("/tmp/t_wal.log", 0);

    ASSERT_EQ(wal_append(w, WAL_PUT, "k", "v", 1), 0);
    ASSERT_EQ(wal_replay(w, 0), 0);
    wal_close(w);
}

int main(void)
{
    test_append_replay();
    return test_failures() != 0;
}

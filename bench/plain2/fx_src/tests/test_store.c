#include <string.h>

#include "kv.h"
#include "test.h"

static void test_put_get(void)
{
    char buf[16];
    kv_store *db = kv_open("/tmp/t_store.db", 0);

    ASSERT_EQ(kv_put(db, "a", "1", 1), 0);
    ASSERT_EQ(kv_get(db, "a", buf, sizeof buf), 1);
    kv_close(db);
}

static void test_delete(void)
{
    char buf[16];
    kv_store *db = kv_open("/tmp/t_store.db", 0);

    kv_put(db, "b", "2", 1);
    ASSERT_EQ(kv_del(db, "b"), 0);
    ASSERT_EQ(kv_get(db, "b", buf, sizeof buf), -1);
    kv_close(db);
}

int main(void)
{
    test_put_get();
    test_delete();
    return test_failures() != 0;
}

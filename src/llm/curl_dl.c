/*
 * curl_dl.c: libcurl, loaded when the first client is made rather than when quarry
 * starts. libcurl and what it needs (OpenSSL, nghttp2, LDAP, Kerberos, SSH, IDN...) are
 * 30-odd shared libraries: linked in, they cost every quarry command about 3 ms of start-up
 * (measured: an empty program linked with -lcurl starts in 5.0 ms against 1.8 ms), most
 * commands never talk to a model, and `quarry lisp` promises a start under 5 ms. The
 * functions the client uses are looked up once, by name, into one table.
 *
 * Rejected: weak symbols (the loader still maps every library); a process-wide
 * curl_global_init at start (the cost is the mapping, not the init).
 */
#include "llm_int.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <string.h>

/* written once, under `once`: MCP workers and flow workers make clients on several
 * threads at once */
llm_curl_api llm_cu;
static int loaded; /* 0 not tried, 1 loaded, -1 failed */
static char load_error[300];
static pthread_once_t once = PTHREAD_ONCE_INIT;

static void load(void)
{
    static const char *const names[] = {"libcurl.so.4", "libcurl.so", NULL};
    void *h = NULL;
    for (size_t i = 0; names[i] && !h; i++)
        h = dlopen(names[i], RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(load_error, sizeof load_error,
                 "cannot load libcurl (libcurl.so.4): %s; install Debian's libcurl4",
                 e ? e : "not found");
        loaded = -1;
    } else {
        struct {
            const char *name;
            void **slot;
        } fns[] = {
            {"curl_easy_init", (void **)&llm_cu.easy_init},
            {"curl_easy_setopt", (void **)&llm_cu.easy_setopt},
            {"curl_easy_perform", (void **)&llm_cu.easy_perform},
            {"curl_easy_getinfo", (void **)&llm_cu.easy_getinfo},
            {"curl_easy_cleanup", (void **)&llm_cu.easy_cleanup},
            {"curl_easy_strerror", (void **)&llm_cu.easy_strerror},
            {"curl_slist_append", (void **)&llm_cu.slist_append},
            {"curl_slist_free_all", (void **)&llm_cu.slist_free_all},
            {"curl_multi_init", (void **)&llm_cu.multi_init},
            {"curl_multi_add_handle", (void **)&llm_cu.multi_add_handle},
            {"curl_multi_remove_handle", (void **)&llm_cu.multi_remove_handle},
            {"curl_multi_perform", (void **)&llm_cu.multi_perform},
            {"curl_multi_poll", (void **)&llm_cu.multi_poll},
            {"curl_multi_info_read", (void **)&llm_cu.multi_info_read},
            {"curl_multi_cleanup", (void **)&llm_cu.multi_cleanup},
        };
        loaded = 1;
        for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
            *fns[i].slot = dlsym(h, fns[i].name);
            if (!*fns[i].slot) {
                snprintf(load_error, sizeof load_error,
                         "cannot load libcurl: it lacks '%s'", fns[i].name);
                loaded = -1;
            }
        }
        /* the library stays loaded for the life of the process */
    }
}

int llm_curl_load(const char **why)
{
    pthread_once(&once, load);
    if (why)
        *why = load_error;
    return loaded == 1 ? QR_OK : QR_EIO;
}

/*
 * git_dl.c: libgit2, loaded with dlopen when the git source first calls it (see
 * git_dl.h for why). The library's soname comes from the build (QR_LIBGIT2_SONAME, read
 * from the library the build found), so the binary loads the libgit2 it was compiled
 * against; every function of QR_GIT_FUNCTIONS is looked up once, by name.
 *
 * Rejected: weak symbols (the loader still maps every library); lazy binding alone (it
 * defers symbol lookup, not the mapping, which is the cost); a wrapper per function (one
 * table of pointers and a macro per name do the same with no code per function).
 */
#define QR_GIT_DL_IMPL
#include "git_dl.h"

#include <dlfcn.h>
#include <pthread.h>
#include <stdio.h>
#include <stdlib.h>

#ifndef QR_LIBGIT2_SONAME
#define QR_LIBGIT2_SONAME "libgit2.so"
#endif

static qr_git_api api;
const qr_git_api *_Atomic qr__git_api_ready;
static pthread_once_t once = PTHREAD_ONCE_INIT;
static bool loaded;
static char load_error[400];

static void load(void)
{
    void *h = dlopen(QR_LIBGIT2_SONAME, RTLD_NOW | RTLD_LOCAL);
    if (!h) {
        const char *e = dlerror();
        snprintf(load_error, sizeof load_error,
                 "cannot load libgit2 (%s): %s; install Debian's libgit2 package", QR_LIBGIT2_SONAME,
                 e ? e : "not found");
        return;
    }
    struct {
        const char *name;
        void **slot;
    } fns[] = {
#define QR_GIT_SLOT(f) {#f, (void **)&api.f},
        QR_GIT_FUNCTIONS(QR_GIT_SLOT)
#undef QR_GIT_SLOT
    };
    for (size_t i = 0; i < sizeof fns / sizeof fns[0]; i++) {
        *fns[i].slot = dlsym(h, fns[i].name);
        if (!*fns[i].slot) {
            snprintf(load_error, sizeof load_error, "cannot load libgit2 (%s): it lacks '%s'",
                     QR_LIBGIT2_SONAME, fns[i].name);
            return;
        }
    }
    loaded = true; /* the library stays loaded for the life of the process */
    atomic_store_explicit(&qr__git_api_ready, &api, memory_order_release);
}

bool qr__git_load(qr_buf *err)
{
    pthread_once(&once, load);
    if (!loaded && err)
        qr_buf_puts(err, load_error);
    return loaded;
}

const qr_git_api *qr__git_api_load(void)
{
    pthread_once(&once, load);
    if (!loaded) {
        fprintf(stderr, "quarry: %s\n", load_error);
        abort();
    }
    return &api;
}

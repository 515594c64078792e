/*
 * cmd_index.c: `quarry index`: builds the statistics index of a repository for every
 * commit reachable from HEAD and any ref, or (--status) reports how complete it is.
 *
 * Design: a thin shell over qr_git_index_update and qr_git_index_status (git.h), which
 * reuse the tools' walk and numstat's parallel `git log --numstat` ranges; this file
 * owns only the options, the progress bar (cli_progress, drawn on stderr when it is a
 * terminal, as for `quarry tool`), the warning when a damaged index is moved aside, and
 * what is printed (its options and help are its record in commands.c): one summary line after a build, a few lines (or one JSON object) for
 * the status. --status never creates an index that does not exist yet. Exit codes as
 * elsewhere: 2 for bad usage and for a directory that is not a git repository, 1 when
 * the index cannot be built or read.
 *
 * Rejected: building the index as a side effect of --status (a report should not write
 * what is not there); printing per-batch lines (the progress bar says it, and a script
 * wants one line); a separate `quarry index-status` command (one command, one record in
 * the table).
 */
#include "command.h"

#include "quarry/git.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>

static double seconds_since(const struct timespec *t0)
{
    struct timespec t1;
    clock_gettime(CLOCK_MONOTONIC, &t1);
    return (double)(t1.tv_sec - t0->tv_sec) + (double)(t1.tv_nsec - t0->tv_nsec) / 1e9;
}

static void warn_rebuilt(qr_git_index *ix, bool *warned)
{
    if (*warned || !qr_git_index_rebuilt(ix))
        return;
    *warned = true;
    char msg[4200];
    snprintf(msg, sizeof msg,
             "statistics index '%s' was damaged or from another version: moved aside and "
             "rebuilt",
             qr_git_index_path(ix));
    cli_warn(NULL, msg);
}

static void human_size(int64_t bytes, char *out, size_t n)
{
    if (bytes >= 1 << 20)
        snprintf(out, n, " (%.1f MiB)", (double)bytes / (1 << 20));
    else if (bytes >= 1 << 10)
        snprintf(out, n, " (%.1f KiB)", (double)bytes / (1 << 10));
    else
        out[0] = '\0';
}

static void print_status(cli_format fmt, const char *path, bool exists,
                         const qr_git_index_state *st)
{
    if (fmt == FMT_JSON) {
        qr_buf b;
        qr_buf_init(&b);
        qr_buf_puts(&b, "{\"path\":");
        qr_buf_json_string(&b, path, strlen(path));
        qr_buf_printf(&b, ",\"exists\":%s,\"schema_version\":", exists ? "true" : "false");
        if (exists)
            qr_buf_printf(&b, "%d", QR_GIT_INDEX_SCHEMA_VERSION);
        else
            qr_buf_puts(&b, "null");
        qr_buf_printf(&b,
                      ",\"indexed\":%lld,\"reachable\":%lld,\"unstored\":%lld,\"missing\":%lld,"
                      "\"bytes\":%lld}\n",
                      (long long)st->indexed, (long long)st->reachable, (long long)st->unstored,
                      (long long)st->missing, (long long)st->bytes);
        fwrite(b.p, 1, b.len, stdout);
        qr_buf_release(&b);
        return;
    }
    char hs[32];
    human_size(st->bytes, hs, sizeof hs);
    printf("index:           %s%s\n", path, exists ? "" : " (not built yet)");
    if (exists)
        printf("schema version:  %d\n", QR_GIT_INDEX_SCHEMA_VERSION);
    else
        printf("schema version:  none\n");
    printf("commits indexed: %lld\n", (long long)st->indexed);
    printf("reachable:       %lld", (long long)st->reachable);
    if (st->unstored)
        printf(" (%lld of them merges or shallow boundaries, which carry no statistics)",
               (long long)st->unstored);
    printf("\nmissing:         %lld\n", (long long)st->missing);
    printf("size:            %lld bytes%s\n", (long long)st->bytes, hs);
}

int cli_cmd_index(const cli_args *args)
{
    cli_format fmt = !strcmp(cli_arg_str(args, "format", "text"), "json") ? FMT_JSON : FMT_DEFAULT;
    const char *repo = args->repo;
    bool status_only = cli_arg_bool(args, "status");

    int status = EXIT_OK;
    qr_git *g = NULL;
    qr_git_index *ix = NULL;
    bool warned = false;
    qr_buf err, path;
    qr_buf_init(&err);
    qr_buf_init(&path);
    struct timespec t0;
    clock_gettime(CLOCK_MONOTONIC, &t0);
    int rc = qr_git_open(repo ? repo : ".", &g, &err);
    if (rc != QR_OK) {
        cli_error(fmt, rc == QR_EINVAL ? "usage" : "error", 0, 0,
                  err.p ? err.p : "cannot open the repository");
        status = rc == QR_EINVAL ? EXIT_USAGE : EXIT_FAILED;
        goto done;
    }
    bool exists = qr_git_index_exists(qr_git_dir(g), &path);
    if (path.failed) {
        rc = QR_ENOMEM;
        goto fail;
    }
    if (!status_only || exists) {
        bool rebuilt = false;
        rc = qr_git_index_open(qr_git_dir(g), &ix, &rebuilt, &err);
        if (rc != QR_OK)
            goto fail;
        warn_rebuilt(ix, &warned);
    }
    if (status_only) {
        qr_git_index_state st;
        rc = qr_git_index_status(g, ix, &st, &err);
        if (ix)
            warn_rebuilt(ix, &warned);
        if (rc != QR_OK)
            goto fail;
        print_status(fmt, path.p, exists, &st);
        goto done;
    }
    int64_t added = 0, total = 0;
    rc = qr_git_index_update(g, ix, cli_progress, NULL, &cli_req()->stop, &added, &err);
    warn_rebuilt(ix, &warned);
    if (rc == QR_ESTOPPED) {
        /* what was finished before the stop is kept: say how much, and that a second run
         * computes only the rest */
        char msg[200];
        snprintf(msg, sizeof msg, "%s; %lld commit%s indexed before it and kept; run it again "
                 "to index the rest", err.p ? err.p : "stopped", (long long)added,
                 added == 1 ? "" : "s");
        cli_error(fmt, "error", 0, 0, msg);
        status = EXIT_FAILED;
        goto done;
    }
    if (rc == QR_OK)
        rc = qr_git_index_count(ix, &total, NULL, &err);
    if (rc != QR_OK)
        goto fail;
    double secs = seconds_since(&t0);
    if (fmt == FMT_JSON)
        printf("{\"indexed_now\":%lld,\"indexed\":%lld,\"seconds\":%.3f}\n", (long long)added,
               (long long)total, secs);
    else
        printf("indexed %lld commit%s in %.2f s; %lld in the index\n", (long long)added,
               added == 1 ? "" : "s", secs, (long long)total);
    goto done;
fail:
    if (rc == QR_ENOMEM && !err.len)
        qr_buf_puts(&err, "out of memory");
    cli_error(fmt, rc == QR_EINVAL ? "usage" : "error", 0, 0, err.p ? err.p : "failed");
    status = rc == QR_EINVAL ? EXIT_USAGE : EXIT_FAILED;
done:
    fflush(stdout);
    qr_git_index_close(ix);
    qr_git_free(g);
    qr_buf_release(&err);
    qr_buf_release(&path);
    return status;
}

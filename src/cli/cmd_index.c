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
 * --enqueue and --worker are the shared index's (quarry/git.h, src/git/shared_index.c):
 * this file connects to the team database (--store or $QUARRY_DATABASE_URL, its password
 * added to the secrets cli_write masks), and prints one line per repository a worker
 * indexed; a repository whose run fails is reported (one line), recorded in its row and
 * left for a lease, and the worker goes on with the next (exit 1 at the end); a database
 * that cannot be reached ends the worker at once. With --wait N the worker does not end
 * on an empty queue: it looks again every N seconds until interrupted. --enqueue --code
 * also puts the repository in the shared code index (code_repos), and every worker run on
 * a repository there brings its code graph to HEAD before it publishes (qr_code_refresh,
 * the worker's step: one queue, one lease, for both; docs/decisions.md). The code graph's
 * store reads QUARRY_DATABASE_URL: a --store URL is set there for this process, so both
 * halves of a run write one database.
 *
 * Rejected: building the index as a side effect of --status (a report should not write
 * what is not there); printing per-batch lines (the progress bar says it, and a script
 * wants one line); a separate `quarry index-status` command (one command, one record in
 * the table).
 */
#include "command.h"

#include "quarry/code.h"
#include "quarry/git.h"
#include "quarry/store.h"

#include <stdlib.h>
#include <string.h>
#include <time.h>
#include <unistd.h>

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

/* ---- the shared index: --enqueue and --worker ---- */

static int shared_fail(cli_format fmt, int rc, qr_buf *err)
{
    if (rc == QR_ENOMEM && !err->len)
        qr_buf_puts(err, "out of memory");
    cli_error(fmt, rc == QR_EINVAL ? "usage" : "error", 0, 0, err->p ? err->p : "failed");
    return rc == QR_EINVAL ? EXIT_USAGE : EXIT_FAILED;
}

/* Connects to the team database of --store or $QUARRY_DATABASE_URL, whose schema must be
 * this binary's. */
static int shared_open(const cli_args *args, qr_store *st, qr_buf *err)
{
    memset(st, 0, sizeof *st);
    const char *url = cli_arg_str(args, "store", NULL);
    if (!url || !*url)
        url = getenv("QUARRY_DATABASE_URL");
    if (!url || !*url) {
        qr_buf_puts(err, "the shared index needs its database: --store postgresql://... or "
                         "QUARRY_DATABASE_URL");
        return QR_EINVAL;
    }
    qr_buf pw;
    qr_buf_init(&pw);
    if (qr_store_url_password(url, &pw))
        cli_add_secret(pw.p);
    qr_buf_release(&pw);
    /* the code graph's half (--code, the worker's step) opens the same database */
    setenv("QUARRY_DATABASE_URL", url, 1);
    return qr_git_shared_open(st, url, err);
}

static int cmd_enqueue(const cli_args *args, cli_format fmt)
{
    qr_store st;
    qr_git *g = NULL;
    qr_buf err, id;
    qr_buf_init(&err);
    qr_buf_init(&id);
    int status = EXIT_OK;
    int rc = shared_open(args, &st, &err);
    if (rc == QR_OK)
        rc = qr_git_open(args->repo ? args->repo : ".", &g, &err);
    if (rc == QR_OK)
        rc = qr_git_shared_enqueue(&st, g, cli_arg_str(args, "name", NULL), &id, &err);
    bool code = cli_arg_bool(args, "code");
    if (rc == QR_OK && code) /* and its code graph, kept at HEAD by every run */
        rc = qr_code_want(args->repo ? args->repo : ".", &err);
    if (rc != QR_OK) {
        status = shared_fail(fmt, rc, &err);
    } else if (fmt == FMT_JSON) {
        qr_buf b;
        qr_buf_init(&b);
        qr_buf_puts(&b, "{\"enqueued\":");
        qr_buf_json_string(&b, id.p, id.len);
        qr_buf_printf(&b, ",\"code\":%s}\n", code ? "true" : "false");
        cli_write(&b, stdout);
        qr_buf_release(&b);
    } else {
        printf("enqueued %s%s\n", id.p, code ? ", with its code graph" : "");
    }
    qr_git_free(g);
    qr_store_close(&st);
    qr_buf_release(&err);
    qr_buf_release(&id);
    return status;
}

/* The worker's step: the claimed repository's code graph at HEAD, when it is in the shared
 * code index; *ud: whether it was done (for the run's line). */
static int code_step(void *ud, const char *location, qr_git_progress_fn keep, void *keep_ud,
                     qr_buf *err)
{
    return qr_code_refresh(location, &cli_req()->stop, keep, keep_ud, ud, err);
}

static int cmd_worker(const cli_args *args, cli_format fmt)
{
    int64_t lease = 15 * 60, batch = cli_arg_int(args, "batch", 500);
    const char *ls = cli_arg_str(args, "lease", NULL);
    qr_buf err;
    qr_buf_init(&err);
    if (ls && !cli_parse_lease(ls, &lease)) {
        qr_buf_printf(&err, "bad --lease '%s': give seconds, or a number with s, m or h, up "
                            "to 24h", ls);
        int st = shared_fail(fmt, QR_EINVAL, &err);
        qr_buf_release(&err);
        return st;
    }
    if (batch < 1 || batch > 100000) {
        qr_buf_puts(&err, "bad --batch: give 1 to 100000 commits per transaction");
        int st = shared_fail(fmt, QR_EINVAL, &err);
        qr_buf_release(&err);
        return st;
    }
    int64_t wait = cli_arg_int(args, "wait", 0);
    if (wait < 0 || wait > 3600) {
        qr_buf_puts(&err, "bad --wait: give 0 (exit when the queue is empty) to 3600 seconds");
        int st = shared_fail(fmt, QR_EINVAL, &err);
        qr_buf_release(&err);
        return st;
    }
    qr_store st;
    int status = EXIT_OK;
    int rc = shared_open(args, &st, &err);
    char holder[300], host[256] = "";
    gethostname(host, sizeof host - 1);
    snprintf(holder, sizeof holder, "%s:%ld", *host ? host : "localhost", (long)getpid());
    bool code = false;
    qr_git_worker_opts o = {.holder = holder,
                            .lease_s = lease,
                            .batch = (size_t)batch,
                            .progress = cli_progress,
                            .stop = &cli_req()->stop,
                            .step = code_step,
                            .step_ud = &code};
    bool failed = false;
    for (int64_t done = 0; rc == QR_OK; done++) {
        struct timespec t0;
        clock_gettime(CLOCK_MONOTONIC, &t0);
        qr_git_worker_run run;
        code = false;
        rc = qr_git_shared_work(&st, &o, &run, &err);
        if (rc != QR_OK && run.claimed && run.released && rc != QR_ESTOPPED) {
            /* recorded in the repository's row, which waits a lease: on to the next */
            shared_fail(fmt, rc, &err);
            fflush(stderr);
            qr_buf_reset(&err);
            failed = true;
            rc = QR_OK;
            continue;
        }
        if (rc == QR_OK && !run.claimed && wait > 0) {
            /* a worker that waits: look again after `wait` seconds, in steps short enough
               that an interrupt ends it at once */
            for (int64_t ms = 0; ms < wait * 1000 && !qr_stop_check(&cli_req()->stop);
                 ms += 100) {
                struct timespec d = {0, 100 * 1000 * 1000};
                nanosleep(&d, NULL);
            }
            if (qr_stop_check(&cli_req()->stop))
                break; /* interrupted while idle: nothing was cut short */
            done--; /* an empty look is not a run */
            continue;
        }
        if (rc != QR_OK || !run.claimed) {
            if (rc == QR_OK && !done && fmt != FMT_JSON)
                printf("nothing to index: the queue is empty\n");
            break;
        }
        double secs = seconds_since(&t0);
        if (fmt == FMT_JSON) {
            qr_buf b;
            qr_buf_init(&b);
            qr_buf_puts(&b, "{\"indexed\":");
            qr_buf_json_string(&b, run.id, strlen(run.id));
            qr_buf_printf(&b, ",\"added\":%lld,\"removed\":%lld,\"commits\":%lld,"
                              "\"code\":%s,\"seconds\":%.3f}\n",
                          (long long)run.added, (long long)run.removed, (long long)run.commits,
                          code ? "true" : "false", secs);
            cli_write(&b, stdout);
            qr_buf_release(&b);
        } else {
            printf("indexed %s: %lld commit%s written, %lld dropped, %lld in all%s, in %.2f s\n",
                   run.id, (long long)run.added, run.added == 1 ? "" : "s",
                   (long long)run.removed, (long long)run.commits,
                   code ? ", code graph at HEAD" : "", secs);
        }
        fflush(stdout);
    }
    if (rc != QR_OK)
        status = shared_fail(fmt, rc, &err);
    else if (failed)
        status = EXIT_FAILED;
    qr_store_close(&st);
    qr_buf_release(&err);
    return status;
}

/* --status --store: the shared index's repositories, one line (or JSON object) each */
static int cmd_shared_status(const cli_args *args, cli_format fmt)
{
    qr_store st;
    qr_buf err;
    qr_buf_init(&err);
    int status = EXIT_OK;
    qr_store_rows r = {0};
    int rc = shared_open(args, &st, &err);
    if (rc == QR_OK)
        rc = qr_store_pg_exec(&st,
                              "SELECT id, name, location, coalesce(head, ''), commits,"
                              " coalesce(indexed_at, 0), queued IS NOT NULL,"
                              " coalesce(holder, ''), coalesce(lease_until, 0), runs,"
                              " coalesce(error, '')"
                              " FROM git_repos ORDER BY name COLLATE \"C\", id COLLATE \"C\"",
                              0, NULL, &r, "read the repositories", NULL, &err);
    if (rc != QR_OK) {
        status = shared_fail(fmt, rc, &err);
        goto done;
    }
    qr_buf b;
    qr_buf_init(&b);
    if (fmt == FMT_JSON)
        qr_buf_puts(&b, "{\"repositories\":[");
    for (int i = 0; i < r.n; i++) {
        const char *v[11];
        for (int c = 0; c < 11; c++)
            v[c] = qr_store_rows_get(&r, i, c);
        bool queued = !strcmp(v[6], "t");
        if (fmt == FMT_JSON) {
            static const char *const keys[] = {"id", "name", "location", "head"};
            qr_buf_puts(&b, i ? ",{" : "{");
            for (int c = 0; c < 4; c++) {
                qr_buf_printf(&b, "%s\"%s\":", c ? "," : "", keys[c]);
                qr_buf_json_string(&b, v[c], strlen(v[c]));
            }
            qr_buf_printf(&b, ",\"commits\":%s,\"indexed_at\":%s,\"queued\":%s,\"holder\":",
                          v[4], v[5], queued ? "true" : "false");
            qr_buf_json_string(&b, v[7], strlen(v[7]));
            qr_buf_printf(&b, ",\"lease_until\":%s,\"runs\":%s,\"error\":", v[8], v[9]);
            if (*v[10])
                qr_buf_json_string(&b, v[10], strlen(v[10]));
            else
                qr_buf_puts(&b, "null");
            qr_buf_putc(&b, '}');
        } else {
            qr_buf_printf(&b, "%s  %s  %s commit%s", v[1], v[0], v[4], strcmp(v[4], "1") ? "s" : "");
            if (*v[3])
                qr_buf_printf(&b, " at %.12s", v[3]);
            else
                qr_buf_puts(&b, ", never indexed");
            if (queued)
                qr_buf_puts(&b, ", queued");
            if (*v[7])
                qr_buf_printf(&b, ", claimed by %s", v[7]);
            if (*v[10])
                qr_buf_printf(&b, "; last run failed: %s", v[10]);
            qr_buf_putc(&b, '\n');
        }
    }
    if (fmt == FMT_JSON)
        qr_buf_puts(&b, "]}\n");
    else if (!r.n)
        qr_buf_puts(&b, "no repositories in the shared index: add one with --enqueue\n");
    cli_write(&b, stdout);
    qr_buf_release(&b);
done:
    qr_store_rows_free(&r);
    qr_store_close(&st);
    qr_buf_release(&err);
    return status;
}

int cli_cmd_index(const cli_args *args)
{
    cli_format fmt = !strcmp(cli_arg_str(args, "format", "text"), "json") ? FMT_JSON : FMT_DEFAULT;
    const char *repo = args->repo;
    bool status_only = cli_arg_bool(args, "status");
    if (cli_arg_bool(args, "enqueue") && cli_arg_bool(args, "worker")) {
        cli_error(fmt, "usage", 0, 0, "give --enqueue or --worker, not both");
        return EXIT_USAGE;
    }
    if (cli_arg_bool(args, "enqueue"))
        return cmd_enqueue(args, fmt);
    if (cli_arg_bool(args, "worker"))
        return cmd_worker(args, fmt);
    if (status_only && cli_arg_str(args, "store", NULL))
        return cmd_shared_status(args, fmt);

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

/*
 * cmd_db.c: `quarry db init|migrate|status`, the schema of the team database on
 * PostgreSQL (issue 26): the numbered migrations of src/store/pg_schema.c, applied by
 * qr_store_pg_migrate and recorded in its schema_migrations table.
 *
 * The database is named by --url or $QUARRY_DATABASE_URL (postgres:// or postgresql://).
 * What is printed names the server as the store layer spells it (host or socket, port,
 * database), never the URL; the URL's password is also given to cli_add_secret, so
 * nothing this command writes can hold it even if a server message quoted it.
 *
 * Exit status: 0 done; 2 a usage error (no URL, not a PostgreSQL URL, a URL that does not
 * parse), `init` on a database that has a schema already, or a schema newer than this
 * binary knows; 1 when the server cannot be reached or a migration fails (rolled back).
 *
 * Rejected: init that silently migrates an initialized database (a deployment script
 * that runs init twice is told so: migrate is the command that upgrades); migrating from
 * `status` (it only reads).
 */
#include "command.h"

#include "quarry/store.h"

#include <stdlib.h>
#include <string.h>

typedef enum { DB_INIT, DB_MIGRATE, DB_STATUS } db_op;

static cli_format fmt_of(const cli_args *args)
{
    return !strcmp(cli_arg_str(args, "format", "text"), "json") ? FMT_JSON : FMT_DEFAULT;
}

/* Prints the error (masked by cli_write for the text form; the store's messages hold no
 * credential by construction, this is the second guard) and returns status. */
static int fail(cli_format fmt, int status, qr_buf *msg)
{
    const char *kind = status == EXIT_USAGE ? "usage" : "error";
    if (fmt == FMT_JSON) {
        cli_error(fmt, kind, 0, 0, msg->p ? msg->p : "");
        return status;
    }
    qr_buf line;
    qr_buf_init(&line);
    qr_buf_printf(&line, "quarry: %s: %s\n", kind, msg->p ? msg->p : "");
    cli_write(&line, stderr);
    qr_buf_release(&line);
    return status;
}

static void put_pending(qr_buf *out, cli_format fmt, int64_t version)
{
    size_t n;
    const qr_store_migration *m = qr_store_pg_migrations(&n);
    bool first = true;
    for (size_t i = 0; i < n; i++) {
        if (m[i].version <= version)
            continue;
        if (fmt == FMT_JSON) {
            qr_buf_printf(out, "%s{\"version\": %d, \"name\": ", first ? "" : ", ", m[i].version);
            qr_buf_json_string(out, m[i].name, strlen(m[i].name));
            qr_buf_putc(out, '}');
        } else {
            qr_buf_printf(out, "  %d  %s\n", m[i].version, m[i].name);
        }
        first = false;
    }
}

static int db_run(const cli_args *args, db_op op)
{
    cli_format fmt = fmt_of(args);
    const char *url = cli_arg_str(args, "url", NULL);
    if (!url || !*url)
        url = getenv("QUARRY_DATABASE_URL");
    qr_buf err, out;
    qr_buf_init(&err);
    qr_buf_init(&out);
    int status = EXIT_OK;
    if (!url || !*url) {
        qr_buf_puts(&err, "name the database: --url postgresql://... or QUARRY_DATABASE_URL");
        status = fail(fmt, EXIT_USAGE, &err);
        goto done;
    }
    if (qr_store_backend_of(url) != QR_STORE_POSTGRES) {
        qr_buf_puts(&err, "quarry db manages a PostgreSQL database: the URL must begin with "
                          "postgres:// or postgresql:// (it is not shown: it may hold a "
                          "password)");
        status = fail(fmt, EXIT_USAGE, &err);
        goto done;
    }
    qr_buf pw;
    qr_buf_init(&pw);
    if (qr_store_url_password(url, &pw))
        cli_add_secret(pw.p);
    qr_buf_release(&pw);

    qr_store st;
    int rc = qr_store_pg_connect(&st, "team database", url, &err);
    bool initialized = false;
    int64_t version = 0;
    if (rc == QR_OK)
        rc = qr_store_pg_version(&st, &initialized, &version, &err);
    if (rc != QR_OK) {
        status = fail(fmt, rc == QR_EINVAL ? EXIT_USAGE : EXIT_FAILED, &err);
        goto close;
    }
    size_t latest;
    qr_store_pg_migrations(&latest);
    if (version > (int64_t)latest) {
        qr_buf_printf(&err,
                      "the database at %s has schema version %lld, newer than this quarry "
                      "knows (%zu): upgrade quarry",
                      st.server, (long long)version, latest);
        status = fail(fmt, EXIT_USAGE, &err);
        goto close;
    }
    if (op == DB_INIT && initialized) {
        qr_buf_printf(&err,
                      "the database at %s is initialized already (schema version %lld): "
                      "'quarry db status' reports it, 'quarry db migrate' upgrades it",
                      st.server, (long long)version);
        status = fail(fmt, EXIT_USAGE, &err);
        goto close;
    }
    if (op == DB_STATUS) {
        if (fmt == FMT_JSON) {
            qr_buf_puts(&out, "{\"server\": ");
            qr_buf_json_string(&out, st.server, strlen(st.server));
            qr_buf_printf(&out, ", \"initialized\": %s, \"version\": %lld, \"latest\": %zu, "
                                "\"pending\": [",
                          initialized ? "true" : "false", (long long)version, latest);
            put_pending(&out, fmt, version);
            qr_buf_puts(&out, "]}\n");
        } else {
            qr_buf_printf(&out, "database: %s\n", st.server);
            if (initialized)
                qr_buf_printf(&out, "schema: version %lld (this quarry knows %zu)\n",
                              (long long)version, latest);
            else
                qr_buf_printf(&out, "schema: none (run 'quarry db init')\n");
            qr_buf_printf(&out, "pending: %lld\n", (long long)latest - version);
            put_pending(&out, fmt, version);
        }
        goto print;
    }
    int applied = 0;
    rc = qr_store_pg_migrate(&st, &applied, &err);
    if (rc != QR_OK) {
        status = fail(fmt, rc == QR_EINVAL ? EXIT_USAGE : EXIT_FAILED, &err);
        goto close;
    }
    if (fmt == FMT_JSON) {
        qr_buf_puts(&out, "{\"server\": ");
        qr_buf_json_string(&out, st.server, strlen(st.server));
        qr_buf_printf(&out, ", \"version\": %zu, \"applied\": %d}\n", latest, applied);
    } else if (applied) {
        qr_buf_printf(&out, "%s %s: schema version %zu (%d migration%s applied)\n",
                      op == DB_INIT ? "initialized" : "migrated", st.server, latest, applied,
                      applied == 1 ? "" : "s");
    } else {
        qr_buf_printf(&out, "%s is up to date: schema version %zu\n", st.server, latest);
    }
print:
    cli_write(&out, stdout);
close:
    qr_store_close(&st);
done:
    qr_buf_release(&err);
    qr_buf_release(&out);
    return status;
}

int cli_cmd_db_init(const cli_args *args)
{
    return db_run(args, DB_INIT);
}

int cli_cmd_db_migrate(const cli_args *args)
{
    return db_run(args, DB_MIGRATE);
}

int cli_cmd_db_status(const cli_args *args)
{
    return db_run(args, DB_STATUS);
}

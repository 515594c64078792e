/*
 * cmd_mem.c: `quarry mem`: the memory store from the command line: add, get, update,
 * delete, restore, link, unlink, import, export, stats. Other files add subcommands (query,
 * agent, daemon) with one line in the table below (see cmd_mem.h).
 *
 * Design: a thin shell over memory.h (the writes over the memory tools' records, the same
 * an agent calls: see "the writes" below), driven by one table of subcommands (name, handler,
 * usage, summary, help) that dispatch, `quarry mem --help` and `quarry mem SUB --help`
 * read, as the top-level command table does. The store is --store FILE, else
 * $QUARRY_MEMORY; write commands create it, read commands never do. Output follows the
 * other commands: --format table (a terminal's default), json (otherwise) or edn; nodes
 * are built as values and printed by the value layer, times as ISO-8601 UTC. Exit 0 ok,
 * 1 the store refused (not found, exists, busy, I/O), 2 bad usage or bad input.
 *
 * Rejected: global options parsed anywhere on the line (a note's --content could not then
 * be "--store"); `add` that updates an existing key (two commands keep a typo from
 * overwriting a note; the error names `mem update`); printing nothing on success (an agent
 * reading the output wants to see what happened).
 */
#include "cmd_mem.h"
#include "cmd_mem_agent.h"
#include "cmd_mem_query.h"

#include "quarry/date.h"
#include "quarry/pipeline.h"
#include "quarry/tools.h"
#include "quarry/value.h"

#include <errno.h>
#include <math.h>
#include <stdarg.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

#define DEFAULT_WEIGHT 0.5
#define DEFAULT_STRENGTH 0.5

/* ---- shared helpers (cmd_mem.h) ---- */

static const cli_mem_cmd *find_sub(const char *name);

static void print_sub_help(const cli_mem_cmd *c)
{
    printf("usage: %s\n\n%s\n%s", c->usage, c->summary, c->help);
    printf("\ncommon options:\n"
           "  --store FILE              the memory store (default: $QUARRY_MEMORY)\n"
           "  --format edn|json|table   how to print (default: table on a terminal, else "
           "json)\n"
           "\nexit status: 0 success, 1 the store refused (not found, exists, busy), 2 bad\n"
           "usage or bad input; errors are one line on stderr (JSON with --format json).\n");
}

int cli_mem_usage(cli_mem_opts *o, const char *fmt, ...)
{
    char cmd[64];
    snprintf(cmd, sizeof cmd, "mem%s%s", o->sub ? " " : "", o->sub ? o->sub : "");
    va_list ap;
    va_start(ap, fmt);
    cli_usage_verror(cmd, fmt, ap);
    va_end(ap);
    return EXIT_USAGE;
}

int cli_mem_unknown_option(cli_mem_opts *o, const char *opt)
{
    /* the options of the subcommand are those of its record (commands.c) */
    char cmd[64];
    snprintf(cmd, sizeof cmd, "mem%s%s", o->sub ? " " : "", o->sub ? o->sub : "");
    cli_unknown_option(cmd, opt);
    return EXIT_USAGE;
}

int cli_mem_option(int argc, char **argv, int *i, cli_mem_opts *o)
{
    const char *a = argv[*i];
    if (!strcmp(a, "-h") || !strcmp(a, "--help")) {
        const cli_mem_cmd *c = o->sub ? find_sub(o->sub) : NULL;
        if (c)
            print_sub_help(c);
        return 2;
    }
    if (strcmp(a, "--store") && strcmp(a, "--format"))
        return 0;
    if (*i + 1 >= argc) {
        cli_mem_usage(o, "option '%s' needs a value", a);
        return -1;
    }
    const char *v = argv[++*i];
    if (!strcmp(a, "--store")) {
        if (!*v) {
            cli_mem_usage(o, "option '--store' needs a file name");
            return -1;
        }
        o->store = v;
        return 1;
    }
    int f = cli_parse_format(v);
    if (f < 0) {
        cli_mem_usage(o, "unknown format '%s': expected edn, json or table", v);
        return -1;
    }
    o->fmt = o->asked = (cli_format)f;
    return 1;
}

cli_format cli_mem_format(cli_mem_opts *o)
{
    if (o->fmt == FMT_DEFAULT)
        o->fmt = isatty(1) ? FMT_TABLE : FMT_JSON;
    return o->fmt;
}

int cli_mem_fail(cli_mem_opts *o, int rc, const qr_buf *err)
{
    cli_error(o->asked, rc == QR_EINVAL ? "usage" : "error", 0, 0,
              err->p && err->len ? err->p : "the memory store failed");
    return rc == QR_EINVAL ? EXIT_USAGE : EXIT_FAILED;
}

/* The store a command names (--store, else $QUARRY_MEMORY), or NULL after printing the
 * usage error. */
static const char *store_path(cli_mem_opts *o)
{
    const char *path = o->store;
    if (!path) {
        path = getenv("QUARRY_MEMORY");
        if (path && !*path)
            path = NULL;
    }
    if (!path)
        cli_error(o->asked, "usage", 0, 0, "no memory store: give --store FILE or set QUARRY_MEMORY");
    return path;
}

int cli_mem_open(cli_mem_opts *o, bool create, qr_mem **out)
{
    *out = NULL;
    const char *path = store_path(o);
    if (!path)
        return EXIT_USAGE;
    qr_buf err;
    qr_buf_init(&err);
    int rc = qr_mem_open(out, path, create ? QR_MEM_CREATE : 0, &err);
    int status = rc == QR_OK ? EXIT_OK : EXIT_FAILED;
    if (rc != QR_OK)
        cli_error(o->asked, "error", 0, 0, err.p ? err.p : "cannot open the memory store");
    qr_buf_release(&err);
    return status;
}

static void iso(int64_t t, char *buf)
{
    qr_date_format_iso(t, 0, buf, QR_DATE_ISO_LEN);
    size_t n = strlen(buf);
    if (n >= 6 && !strcmp(buf + n - 6, "+00:00"))
        strcpy(buf + n - 6, "Z");
}

static void put_kv(qr_mapb *b, qr_arena *a, const char *k, qr_val v)
{
    qr_mapb_put(b, qr_kw_cstr(a, k), v);
}

static qr_val str_val(qr_arena *a, const char *s)
{
    return qr_str_new(a, s, strlen(s));
}

static qr_val time_val(qr_arena *a, int64_t t)
{
    char buf[QR_DATE_ISO_LEN];
    iso(t, buf);
    return str_val(a, buf);
}

static qr_val node_value(qr_arena *a, const qr_mem_node *n, const qr_mem_edge *edges,
                         size_t nedges)
{
    qr_mapb b;
    qr_mapb_init(&b, a, 16);
    put_kv(&b, a, "key", str_val(a, n->key));
    put_kv(&b, a, "type", str_val(a, n->type));
    put_kv(&b, a, "weight", qr_double(n->weight));
    put_kv(&b, a, "provenance", str_val(a, n->provenance));
    put_kv(&b, a, "created", time_val(a, n->created));
    put_kv(&b, a, "modified", time_val(a, n->modified));
    put_kv(&b, a, "retrievals", qr_int(n->retrievals));
    put_kv(&b, a, "uses", qr_int(n->uses));
    put_kv(&b, a, "wrongs", qr_int(n->wrongs));
    qr_vecb tv;
    qr_vecb_init(&tv, a, n->ntags);
    for (size_t i = 0; i < n->ntags; i++)
        qr_vecb_push(&tv, str_val(a, n->tags[i]));
    put_kv(&b, a, "tags", qr_vecb_finish(&tv, QR_T_VEC));
    put_kv(&b, a, "deleted", n->deleted ? time_val(a, n->deleted) : qr_nil());
    put_kv(&b, a, "content", qr_str_new(a, n->content, n->content_len));
    qr_vecb ev;
    qr_vecb_init(&ev, a, nedges);
    for (size_t i = 0; i < nedges; i++) {
        qr_mapb eb;
        qr_mapb_init(&eb, a, 4);
        put_kv(&eb, a, "source", str_val(a, edges[i].source));
        put_kv(&eb, a, "target", str_val(a, edges[i].target));
        put_kv(&eb, a, "type", str_val(a, edges[i].type));
        put_kv(&eb, a, "strength", qr_double(edges[i].strength));
        qr_vecb_push(&ev, qr_mapb_finish(&eb, QR_T_MAP));
    }
    put_kv(&b, a, "links", qr_vecb_finish(&ev, QR_T_VEC));
    return qr_mapb_finish(&b, QR_T_MAP);
}

static void print_value(FILE *f, cli_format fmt, qr_val v)
{
    qr_buf b;
    qr_buf_init(&b);
    if (fmt == FMT_EDN)
        qr_print(&b, v, QR_PRINT_READABLY);
    else
        qr_print_json(&b, v, false);
    qr_buf_putc(&b, '\n');
    if (!b.failed)
        fwrite(b.p, 1, b.len, f);
    qr_buf_release(&b);
}

static void print_num(FILE *f, double d)
{
    qr_buf b;
    qr_buf_init(&b);
    qr_print_double(&b, d);
    if (!b.failed)
        fputs(b.p, f);
    qr_buf_release(&b);
}

void cli_mem_print_node(FILE *f, cli_format fmt, const qr_mem_node *n, const qr_mem_edge *edges,
                        size_t nedges)
{
    if (fmt != FMT_TABLE) {
        qr_arena a;
        qr_arena_init(&a, 0);
        print_value(f, fmt, node_value(&a, n, edges, nedges));
        qr_arena_release(&a);
        return;
    }
    char t1[QR_DATE_ISO_LEN], t2[QR_DATE_ISO_LEN];
    iso(n->created, t1);
    iso(n->modified, t2);
    fprintf(f, "key:        %s\ntype:       %s\nweight:     ", n->key, n->type);
    print_num(f, n->weight);
    fprintf(f, "\nprovenance: %s\ncreated:    %s\nmodified:   %s\n",
            *n->provenance ? n->provenance : "(none)", t1, t2);
    if (n->deleted) {
        iso(n->deleted, t1);
        fprintf(f, "deleted:    %s\n", t1);
    }
    fprintf(f, "counters:   %lld retrievals, %lld uses, %lld wrongs\ntags:      ",
            (long long)n->retrievals, (long long)n->uses, (long long)n->wrongs);
    for (size_t i = 0; i < n->ntags; i++)
        fprintf(f, " %s", n->tags[i]);
    if (!n->ntags)
        fputs(" (none)", f);
    fprintf(f, "\nlinks:      %zu\n", nedges);
    for (size_t i = 0; i < nedges; i++) {
        bool out = !strcmp(edges[i].source, n->key);
        fprintf(f, "  %s %s (%s ", out ? "->" : "<-", out ? edges[i].target : edges[i].source,
                edges[i].type);
        print_num(f, edges[i].strength);
        fputs(")\n", f);
    }
    fputs("\n", f);
    fwrite(n->content, 1, n->content_len, f);
    if (n->content_len && n->content[n->content_len - 1] != '\n')
        fputc('\n', f);
}

void cli_mem_print_result(FILE *f, cli_format fmt, const char *text, const cli_mem_field *fields,
                          size_t n)
{
    if (fmt == FMT_TABLE) {
        fprintf(f, "%s\n", text);
        return;
    }
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_mapb b;
    qr_mapb_init(&b, &a, n);
    for (size_t i = 0; i < n; i++) {
        qr_val v;
        if (fields[i].str)
            v = str_val(&a, fields[i].str);
        else if (fields[i].integer)
            v = qr_int((int64_t)fields[i].num);
        else
            v = qr_double(fields[i].num);
        put_kv(&b, &a, fields[i].name, v);
    }
    print_value(f, fmt, qr_mapb_finish(&b, QR_T_MAP));
    qr_arena_release(&a);
}

/* ---- argument helpers ---- */

/* Takes the value of option argv[*i]; NULL (after a usage error) when it is missing. */
static const char *opt_value(int argc, char **argv, int *i, cli_mem_opts *o)
{
    if (*i + 1 >= argc) {
        cli_mem_usage(o, "option '%s' needs a value", argv[*i]);
        return NULL;
    }
    return argv[++*i];
}

static bool parse_unit(cli_mem_opts *o, const char *what, const char *s, double *out)
{
    char *end;
    errno = 0;
    double d = strtod(s, &end);
    if (!*s || *end || errno || !isfinite(d)) {
        cli_mem_usage(o, "%s '%s' is not a number: give one from 0 to 1, e.g. 0.5", what, s);
        return false;
    }
    *out = d;
    return true;
}

typedef struct strlist {
    const char **v;
    size_t n;
} strlist;

static bool strlist_push(strlist *l, const char *s)
{
    const char **nv = realloc(l->v, (l->n + 1) * sizeof *nv);
    if (!nv)
        return false;
    l->v = nv;
    l->v[l->n++] = s;
    return true;
}

/* Content from --content, --file F or '-' (stdin). */
typedef struct content_src {
    const char *text; /* --content */
    const char *file; /* --file or "-" */
    int count;
} content_src;

static int read_content(cli_mem_opts *o, const content_src *c, char **out)
{
    *out = NULL;
    if (c->count > 1)
        return cli_mem_usage(o, "give the content once: --content TEXT, --file F or - (stdin)");
    if (c->text) {
        *out = strdup(c->text);
        if (!*out) {
            cli_error(o->asked, "error", 0, 0, "out of memory");
            return EXIT_FAILED;
        }
        return EXIT_OK;
    }
    if (!c->file)
        return EXIT_OK;
    size_t len;
    int rc = qr_read_file(c->file, QR_MEM_CONTENT_MAX, out, &len);
    if (rc != QR_OK) {
        char msg[4200];
        if (rc == QR_EINVAL)
            snprintf(msg, sizeof msg, "content file '%s' is larger than %u bytes", c->file,
                     QR_MEM_CONTENT_MAX);
        else
            snprintf(msg, sizeof msg, "cannot read content file '%s': %s",
                     !strcmp(c->file, "-") ? "(stdin)" : c->file, strerror(errno));
        cli_error(o->asked, rc == QR_EINVAL ? "usage" : "error", 0, 0, msg);
        return rc == QR_EINVAL ? EXIT_USAGE : EXIT_FAILED;
    }
    if (strlen(*out) != len) {
        free(*out);
        *out = NULL;
        cli_error(o->asked, "usage", 0, 0, "content holds a NUL byte: notes are text");
        return EXIT_USAGE;
    }
    return EXIT_OK;
}

/* Parses the arguments of add, update (edit: the content, type, weight, provenance and tag
 * options), get, delete and restore: one KEY and options. Returns -1 to go on, else the
 * exit code to return (after --help, or a usage error). */
typedef struct node_args {
    const char *pos[1];
    int npos;
    content_src content;
    const char *type, *provenance;
    bool has_weight;
    double weight;
    strlist tags, untags;
    bool deleted;
} node_args;

static int parse_node_args(int argc, char **argv, cli_mem_opts *o, node_args *na, bool edit,
                           bool allow_untag, bool allow_deleted)
{
    bool dashdash = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!dashdash && a[0] == '-' && a[1]) {
            int c = cli_mem_option(argc, argv, &i, o);
            if (c == 2)
                return EXIT_OK;
            if (c < 0)
                return EXIT_USAGE;
            if (c == 1)
                continue;
            const char *v;
            if (!strcmp(a, "--")) {
                dashdash = true;
            } else if (!strcmp(a, "--deleted") && allow_deleted) {
                na->deleted = true;
            } else if (!strcmp(a, "--content") && edit) {
                if (!(v = opt_value(argc, argv, &i, o)))
                    return EXIT_USAGE;
                na->content.text = v;
                na->content.count++;
            } else if (!strcmp(a, "--file") && edit) {
                if (!(v = opt_value(argc, argv, &i, o)))
                    return EXIT_USAGE;
                na->content.file = v;
                na->content.count++;
            } else if (!strcmp(a, "--type") && edit) {
                if (!(na->type = opt_value(argc, argv, &i, o)))
                    return EXIT_USAGE;
            } else if (!strcmp(a, "--provenance") && edit) {
                if (!(na->provenance = opt_value(argc, argv, &i, o)))
                    return EXIT_USAGE;
            } else if (!strcmp(a, "--weight") && edit) {
                if (!(v = opt_value(argc, argv, &i, o)) ||
                    !parse_unit(o, "weight", v, &na->weight))
                    return EXIT_USAGE;
                na->has_weight = true;
            } else if ((!strcmp(a, "--tag") || (!strcmp(a, "--untag") && allow_untag)) &&
                       edit) {
                if (!(v = opt_value(argc, argv, &i, o)))
                    return EXIT_USAGE;
                if (!strlist_push(a[2] == 't' ? &na->tags : &na->untags, v)) {
                    cli_error(o->asked, "error", 0, 0, "out of memory");
                    return EXIT_FAILED;
                }
            } else {
                return cli_mem_unknown_option(o, a);
            }
            continue;
        }
        if (!strcmp(a, "-") && edit && na->npos >= 1) {
            na->content.file = "-";
            na->content.count++;
            continue;
        }
        if (na->npos >= 1)
            return cli_mem_usage(o, "unexpected argument '%s'", a);
        na->pos[na->npos++] = a;
    }
    return -1;
}

static void node_args_free(node_args *na)
{
    free(na->tags.v);
    free(na->untags.v);
}

/* ---- the writes, through the memory tools' records ----
 * add, update, delete, restore, link and unlink run the handler of the memory tool an
 * agent calls (src/pipeline/tools_memory_write.c), on a map built from the parsed
 * options, so the command line and the tools cannot disagree on what a write does. The
 * options keep their own parsing and messages (the store checks the values either way),
 * and the output is this command's. */

static void put_s(qr_mapb *b, qr_arena *a, const char *k, const char *v)
{
    if (v)
        qr_mapb_put(b, qr_kw_cstr(a, k), qr_str_new(a, v, strlen(v)));
}

static void put_list(qr_mapb *b, qr_arena *a, const char *k, const char *const *v, size_t n)
{
    if (!n)
        return;
    qr_vecb vb;
    qr_vecb_init(&vb, a, n);
    for (size_t i = 0; i < n; i++)
        qr_vecb_push(&vb, qr_str_new(a, v[i], strlen(v[i])));
    qr_mapb_put(b, qr_kw_cstr(a, k), qr_vecb_finish(&vb, QR_T_VEC));
}

/* Runs memory tool `name` on args against --store / $QUARRY_MEMORY as a person at the
 * terminal (any store). EXIT_OK with *out set, or the exit code after printing the error. */
static int mem_tool(cli_mem_opts *o, const char *name, qr_val args, qr_arena *a, qr_val *out)
{
    const char *path = store_path(o);
    if (!path)
        return EXIT_USAGE;
    const qr_tool *t = NULL;
    for (const qr_tool *const *p = qr_memory_tools; *p && !t; p++)
        if (!strcmp((*p)->name, name))
            t = *p;
    qr_memory_ctx ctx = {.memory_path = path, .any_store = true};
    qr_buf err;
    qr_buf_init(&err);
    int rc = QR_ENOMEM;
    if (a->exhausted)
        qr_buf_puts(&err, "out of memory");
    else if (!t)
        qr_buf_printf(&err, "no memory tool '%s'", name);
    else
        rc = t->handler(&ctx, cli_req(), args, a, out, &err);
    qr_memory_ctx_release(&ctx);
    int st = rc == QR_OK ? EXIT_OK : cli_mem_fail(o, rc, &err);
    qr_buf_release(&err);
    return st;
}

/* ---- subcommands ---- */

int cmd_mem_add(int argc, char **argv, cli_mem_opts *o)
{
    node_args na = {0};
    int st = parse_node_args(argc, argv, o, &na, true, false, false);
    char *content = NULL;
    qr_arena a;
    qr_arena_init(&a, 0);
    if (st >= 0)
        goto done;
    if (na.npos < 1) {
        st = cli_mem_usage(o, "missing KEY: the note's key, e.g. 'journal#2026-11-20'");
        goto done;
    }
    cli_mem_format(o);
    if ((st = read_content(o, &na.content, &content)) != EXIT_OK)
        goto done;
    qr_mapb b;
    qr_mapb_init(&b, &a, 6);
    put_s(&b, &a, "key", na.pos[0]);
    put_s(&b, &a, "content", content);
    put_s(&b, &a, "type", na.type);
    qr_mapb_put(&b, qr_kw_cstr(&a, "weight"),
                qr_double(na.has_weight ? na.weight : DEFAULT_WEIGHT));
    put_s(&b, &a, "provenance", na.provenance ? na.provenance : "manual");
    put_list(&b, &a, "tags", na.tags.v, na.tags.n);
    qr_val out;
    if ((st = mem_tool(o, "memory_add", qr_mapb_finish(&b, QR_T_MAP), &a, &out)) != EXIT_OK)
        goto done;
    char text[QR_MEM_KEY_MAX + 32];
    snprintf(text, sizeof text, "added '%s'", na.pos[0]);
    cli_mem_field f[] = {{"added", na.pos[0], 0, false}};
    cli_mem_print_result(stdout, o->fmt, text, f, 1);
    st = EXIT_OK;
done:
    qr_arena_release(&a);
    free(content);
    node_args_free(&na);
    return st;
}

int cmd_mem_get(int argc, char **argv, cli_mem_opts *o)
{
    node_args na = {0};
    int st = parse_node_args(argc, argv, o, &na, false, false, true);
    qr_mem *m = NULL;
    qr_buf err;
    qr_buf_init(&err);
    qr_arena a;
    qr_arena_init(&a, 0);
    if (st >= 0)
        goto done;
    if (na.npos < 1) {
        st = cli_mem_usage(o, "missing KEY");
        goto done;
    }
    cli_mem_format(o);
    if ((st = cli_mem_open(o, false, &m)) != EXIT_OK)
        goto done;
    qr_mem_node n;
    qr_mem_edge *edges;
    size_t nedges;
    int rc = qr_mem_node_get(m, na.pos[0], na.deleted, &a, &n, &err);
    if (rc == QR_OK)
        rc = qr_mem_edges(m, na.pos[0], na.deleted, &a, &edges, &nedges, &err);
    if (rc != QR_OK) {
        st = cli_mem_fail(o, rc, &err);
        goto done;
    }
    cli_mem_print_node(stdout, o->fmt, &n, edges, nedges);
    st = EXIT_OK;
done:
    qr_arena_release(&a);
    qr_mem_close(m);
    qr_buf_release(&err);
    node_args_free(&na);
    return st;
}

int cmd_mem_update(int argc, char **argv, cli_mem_opts *o)
{
    node_args na = {0};
    int st = parse_node_args(argc, argv, o, &na, true, true, false);
    char *content = NULL;
    qr_arena a;
    qr_arena_init(&a, 0);
    if (st >= 0)
        goto done;
    if (na.npos < 1) {
        st = cli_mem_usage(o, "missing KEY");
        goto done;
    }
    if (!na.content.count && !na.type && !na.provenance && !na.has_weight && !na.tags.n &&
        !na.untags.n) {
        st = cli_mem_usage(o, "nothing to change: give --content, --file, -, --type, --weight, "
                              "--provenance, --tag or --untag");
        goto done;
    }
    cli_mem_format(o);
    if ((st = read_content(o, &na.content, &content)) != EXIT_OK)
        goto done;
    qr_mapb b;
    qr_mapb_init(&b, &a, 7);
    put_s(&b, &a, "key", na.pos[0]);
    put_s(&b, &a, "content", content);
    put_s(&b, &a, "type", na.type);
    if (na.has_weight)
        qr_mapb_put(&b, qr_kw_cstr(&a, "weight"), qr_double(na.weight));
    put_s(&b, &a, "provenance", na.provenance);
    put_list(&b, &a, "add_tags", na.tags.v, na.tags.n);
    put_list(&b, &a, "remove_tags", na.untags.v, na.untags.n);
    qr_val out;
    if ((st = mem_tool(o, "memory_update", qr_mapb_finish(&b, QR_T_MAP), &a, &out)) != EXIT_OK)
        goto done;
    char text[QR_MEM_KEY_MAX + 32];
    snprintf(text, sizeof text, "updated '%s'", na.pos[0]);
    cli_mem_field f[] = {{"updated", na.pos[0], 0, false}};
    cli_mem_print_result(stdout, o->fmt, text, f, 1);
    st = EXIT_OK;
done:
    qr_arena_release(&a);
    free(content);
    node_args_free(&na);
    return st;
}

/* delete and restore: KEY only */
static int delete_or_restore(int argc, char **argv, cli_mem_opts *o, bool del)
{
    node_args na = {0};
    int st = parse_node_args(argc, argv, o, &na, false, false, false);
    qr_arena a;
    qr_arena_init(&a, 0);
    if (st >= 0)
        goto done;
    if (na.npos < 1) {
        st = cli_mem_usage(o, "missing KEY");
        goto done;
    }
    cli_mem_format(o);
    qr_mapb b;
    qr_mapb_init(&b, &a, 1);
    put_s(&b, &a, "key", na.pos[0]);
    qr_val out;
    if ((st = mem_tool(o, del ? "memory_delete" : "memory_restore", qr_mapb_finish(&b, QR_T_MAP),
                       &a, &out)) != EXIT_OK)
        goto done;
    char text[2 * QR_MEM_KEY_MAX + 64];
    if (del)
        snprintf(text, sizeof text, "deleted '%s' (undo with 'quarry mem restore %s')", na.pos[0],
                 na.pos[0]);
    else
        snprintf(text, sizeof text, "restored '%s'", na.pos[0]);
    cli_mem_field f[] = {{del ? "deleted" : "restored", na.pos[0], 0, false}};
    cli_mem_print_result(stdout, o->fmt, text, f, 1);
    st = EXIT_OK;
done:
    qr_arena_release(&a);
    node_args_free(&na);
    return st;
}

int cmd_mem_delete(int argc, char **argv, cli_mem_opts *o)
{
    return delete_or_restore(argc, argv, o, true);
}

int cmd_mem_restore(int argc, char **argv, cli_mem_opts *o)
{
    return delete_or_restore(argc, argv, o, false);
}

static int link_or_unlink(int argc, char **argv, cli_mem_opts *o, bool link)
{
    const char *pos[2] = {NULL, NULL};
    int npos = 0;
    const char *type = NULL;
    double strength = DEFAULT_STRENGTH;
    bool dashdash = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!dashdash && a[0] == '-' && a[1]) {
            int c = cli_mem_option(argc, argv, &i, o);
            if (c == 2)
                return EXIT_OK;
            if (c < 0)
                return EXIT_USAGE;
            if (c == 1)
                continue;
            const char *v;
            if (!strcmp(a, "--")) {
                dashdash = true;
            } else if (!strcmp(a, "--type")) {
                if (!(type = opt_value(argc, argv, &i, o)))
                    return EXIT_USAGE;
            } else if (!strcmp(a, "--strength") && link) {
                if (!(v = opt_value(argc, argv, &i, o)) ||
                    !parse_unit(o, "strength", v, &strength))
                    return EXIT_USAGE;
            } else {
                return cli_mem_unknown_option(o, a);
            }
            continue;
        }
        if (npos >= 2)
            return cli_mem_usage(o, "unexpected argument '%s'", a);
        pos[npos++] = a;
    }
    if (npos < 2)
        return cli_mem_usage(o, "give SOURCE and TARGET keys");
    cli_mem_format(o);
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_mapb b;
    qr_mapb_init(&b, &a, 4);
    put_s(&b, &a, "source", pos[0]);
    put_s(&b, &a, "target", pos[1]);
    if (link)
        qr_mapb_put(&b, qr_kw_cstr(&a, "strength"), qr_double(strength));
    put_s(&b, &a, "type", type);
    qr_val out = qr_nil(), v;
    int st = mem_tool(o, link ? "memory_link" : "memory_unlink", qr_mapb_finish(&b, QR_T_MAP),
                      &a, &out);
    bool created = out.t == QR_T_MAP && qr_map_get(out, qr_kw_cstr(&a, "created"), &v) &&
                   v.t == QR_T_BOOL && v.b;
    int64_t removed = out.t == QR_T_MAP && qr_map_get(out, qr_kw_cstr(&a, "removed"), &v) &&
                              v.t == QR_T_INT
                          ? v.i
                          : 0;
    if (st == EXIT_OK) {
        qr_buf text;
        qr_buf_init(&text);
        qr_buf sbuf;
        qr_buf_init(&sbuf);
        qr_print_double(&sbuf, strength);
        if (link) {
            qr_buf_printf(&text, "%s '%s' -> '%s' (%s %s)", created ? "linked" : "relinked",
                          pos[0], pos[1], type ? type : "related", sbuf.p ? sbuf.p : "");
            cli_mem_field f[] = {{created ? "linked" : "relinked", pos[0], 0, false},
                                 {"target", pos[1], 0, false},
                                 {"type", type ? type : "related", 0, false},
                                 {"strength", NULL, strength, false}};
            cli_mem_print_result(stdout, o->fmt, text.p ? text.p : "", f, 4);
        } else {
            qr_buf_printf(&text, "unlinked '%s' -> '%s' (%lld link%s)", pos[0], pos[1],
                          (long long)removed, removed == 1 ? "" : "s");
            cli_mem_field f[] = {{"unlinked", pos[0], 0, false},
                                 {"target", pos[1], 0, false},
                                 {"removed", NULL, (double)removed, true}};
            cli_mem_print_result(stdout, o->fmt, text.p ? text.p : "", f, 3);
        }
        qr_buf_release(&text);
        qr_buf_release(&sbuf);
    }
    qr_arena_release(&a);
    return st;
}

int cmd_mem_link(int argc, char **argv, cli_mem_opts *o)
{
    return link_or_unlink(argc, argv, o, true);
}

int cmd_mem_unlink(int argc, char **argv, cli_mem_opts *o)
{
    return link_or_unlink(argc, argv, o, false);
}

/* FILE arguments of import and export. */
static int one_path(int argc, char **argv, cli_mem_opts *o, const char **path, bool required)
{
    *path = NULL;
    bool dashdash = false;
    for (int i = 1; i < argc; i++) {
        const char *a = argv[i];
        if (!dashdash && a[0] == '-' && a[1]) {
            int c = cli_mem_option(argc, argv, &i, o);
            if (c == 2)
                return EXIT_OK;
            if (c < 0)
                return EXIT_USAGE;
            if (c == 1)
                continue;
            if (!strcmp(a, "--")) {
                dashdash = true;
                continue;
            }
            return cli_mem_unknown_option(o, a);
        }
        if (*path)
            return cli_mem_usage(o, "unexpected argument '%s'", a);
        *path = a;
    }
    if (!*path && required)
        return cli_mem_usage(o, "missing FILE (or - for stdin)");
    return -1;
}

static void counts_text(char *buf, size_t n, const char *verb, const qr_mem_counts *c)
{
    snprintf(buf, n, "%s %lld node%s, %lld edge%s, %lld visit%s", verb, (long long)c->nodes,
             c->nodes == 1 ? "" : "s", (long long)c->edges, c->edges == 1 ? "" : "s",
             (long long)c->visits, c->visits == 1 ? "" : "s");
}

int cmd_mem_import(int argc, char **argv, cli_mem_opts *o)
{
    const char *path;
    int st = one_path(argc, argv, o, &path, true);
    if (st >= 0)
        return st;
    cli_mem_format(o);
    char *text = NULL;
    size_t len = 0;
    int rc = qr_read_file(path, 0, &text, &len);
    if (rc != QR_OK) {
        char msg[4200];
        snprintf(msg, sizeof msg, "cannot read '%s': %s", !strcmp(path, "-") ? "(stdin)" : path,
                 strerror(errno));
        cli_error(o->asked, "error", 0, 0, msg);
        return rc == QR_EIO && errno == ENOENT ? EXIT_USAGE : EXIT_FAILED;
    }
    qr_mem *m = NULL;
    if ((st = cli_mem_open(o, true, &m)) != EXIT_OK) {
        free(text);
        return st;
    }
    qr_buf err;
    qr_buf_init(&err);
    qr_mem_counts c;
    rc = qr_mem_import(m, text, len, &c, &err);
    free(text);
    if (rc != QR_OK) {
        st = cli_mem_fail(o, rc, &err);
    } else {
        char line[200];
        counts_text(line, sizeof line, "imported", &c);
        cli_mem_field f[] = {{"nodes", NULL, (double)c.nodes, true},
                             {"edges", NULL, (double)c.edges, true},
                             {"visits", NULL, (double)c.visits, true}};
        cli_mem_print_result(stdout, o->fmt, line, f, 3);
        st = EXIT_OK;
    }
    qr_buf_release(&err);
    qr_mem_close(m);
    return st;
}

int cmd_mem_export(int argc, char **argv, cli_mem_opts *o)
{
    /* --salvage is export's own option: taken out before the shared ones are parsed */
    bool salvage = false;
    int n = 0;
    for (int i = 0; i < argc; i++) {
        if (!strcmp(argv[i], "--"))
            for (; i < argc; i++)
                argv[n++] = argv[i];
        else if (i > 0 && !strcmp(argv[i], "--salvage"))
            salvage = true;
        else
            argv[n++] = argv[i];
    }
    argc = n;
    const char *path;
    int st = one_path(argc, argv, o, &path, false);
    if (st >= 0)
        return st;
    cli_mem_format(o);
    if (salvage)
        return cli_mem_export_salvage(o, path);
    qr_mem *m = NULL;
    if ((st = cli_mem_open(o, false, &m)) != EXIT_OK)
        return st;
    bool to_stdout = !path || !strcmp(path, "-");
    qr_buf tmp, err;
    qr_buf_init(&tmp);
    qr_buf_init(&err);
    FILE *f = stdout;
    if (!to_stdout) {
        /* write beside the target and rename: an interrupted export leaves no half file */
        qr_buf_printf(&tmp, "%s.tmp-%ld", path, (long)getpid());
        f = tmp.p ? fopen(tmp.p, "w") : NULL;
        if (!f) {
            qr_buf_printf(&err, "cannot write '%s': %s", tmp.p ? tmp.p : path, strerror(errno));
            st = cli_mem_fail(o, QR_EIO, &err);
            goto done;
        }
    }
    qr_mem_counts c;
    int rc = qr_mem_export(m, f, &c, &err);
    if (!to_stdout) {
        if (fclose(f) != 0 && rc == QR_OK) {
            qr_buf_printf(&err, "cannot write '%s': %s", tmp.p, strerror(errno));
            rc = QR_EIO;
        }
        if (rc == QR_OK && rename(tmp.p, path) != 0) {
            qr_buf_printf(&err, "cannot write '%s': %s", path, strerror(errno));
            rc = QR_EIO;
        }
        if (rc != QR_OK)
            remove(tmp.p);
    }
    if (rc != QR_OK) {
        st = cli_mem_fail(o, rc, &err);
        goto done;
    }
    if (!to_stdout) {
        char line[200];
        counts_text(line, sizeof line, "exported", &c);
        cli_mem_field fl[] = {{"nodes", NULL, (double)c.nodes, true},
                              {"edges", NULL, (double)c.edges, true},
                              {"visits", NULL, (double)c.visits, true}};
        cli_mem_print_result(stdout, o->fmt, line, fl, 3);
    }
    st = EXIT_OK;
done:
    qr_buf_release(&tmp);
    qr_buf_release(&err);
    qr_mem_close(m);
    return st;
}

int cmd_mem_stats(int argc, char **argv, cli_mem_opts *o)
{
    const char *extra;
    int st = one_path(argc, argv, o, &extra, false);
    if (st >= 0)
        return st;
    if (extra)
        return cli_mem_usage(o, "unexpected argument '%s'", extra);
    cli_mem_format(o);
    qr_mem *m = NULL;
    if ((st = cli_mem_open(o, false, &m)) != EXIT_OK)
        return st;
    qr_buf err;
    qr_buf_init(&err);
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_mem_stats s;
    int rc = qr_mem_stats_get(m, &a, &s, &err);
    if (rc != QR_OK) {
        st = cli_mem_fail(o, rc, &err);
    } else if (o->fmt == FMT_TABLE) {
        printf("store:         %s\n", qr_mem_path(m));
        printf("nodes:         %lld (%lld deleted)\n", (long long)s.nodes, (long long)s.deleted);
        for (size_t i = 0; i < s.ntypes; i++)
            printf("  %-20s %lld\n", s.types[i].type, (long long)s.types[i].count);
        printf("links:         %lld (%lld hidden: an end is deleted)\n", (long long)s.edges,
               (long long)s.hidden_edges);
        printf("tags:          %lld\n", (long long)s.tags);
        printf("visits:        %lld\n", (long long)s.visits);
        printf("search index:  %lld bytes\n", (long long)s.fts_bytes);
        printf("file:          %lld bytes\n", (long long)s.file_bytes);
        printf("generation:    %llu\n", (unsigned long long)s.generation);
        st = EXIT_OK;
    } else {
        qr_mapb b, tb;
        qr_mapb_init(&b, &a, 12);
        put_kv(&b, &a, "store", str_val(&a, qr_mem_path(m)));
        put_kv(&b, &a, "nodes", qr_int(s.nodes));
        put_kv(&b, &a, "deleted", qr_int(s.deleted));
        qr_mapb_init(&tb, &a, s.ntypes);
        for (size_t i = 0; i < s.ntypes; i++)
            qr_mapb_put(&tb, str_val(&a, s.types[i].type), qr_int(s.types[i].count));
        put_kv(&b, &a, "types", qr_mapb_finish(&tb, QR_T_MAP));
        put_kv(&b, &a, "edges", qr_int(s.edges));
        put_kv(&b, &a, "hidden_edges", qr_int(s.hidden_edges));
        put_kv(&b, &a, "tags", qr_int(s.tags));
        put_kv(&b, &a, "visits", qr_int(s.visits));
        put_kv(&b, &a, "fts_bytes", qr_int(s.fts_bytes));
        put_kv(&b, &a, "file_bytes", qr_int(s.file_bytes));
        put_kv(&b, &a, "generation", qr_int((int64_t)s.generation));
        print_value(stdout, o->fmt, qr_mapb_finish(&b, QR_T_MAP));
        st = EXIT_OK;
    }
    qr_arena_release(&a);
    qr_buf_release(&err);
    qr_mem_close(m);
    return st;
}

/* ---- the table ---- */

static const cli_mem_cmd subs[] = {
    {"add", cmd_mem_add,
     "quarry mem add KEY [--content TEXT | --file F | -] [--type T] [--weight W] "
     "[--provenance P] [--tag T ...]",
     "add a note; the key must be new (change a note with 'quarry mem update')",
     "\noptions:\n"
     "  --content TEXT        the note's markdown (default: empty)\n"
     "  --file F, -           read the content from file F, or '-' from stdin\n"
     "  --type T              a word of [a-z0-9-]: semantic (default), episodic-session,\n"
     "                        episodic-daily, episodic-weekly, episodic-monthly, or any other\n"
     "  --weight W            importance from 0 to 1 (default 0.5)\n"
     "  --provenance P        where the note came from (default: manual)\n"
     "  --tag T               a tag (repeatable); no spaces\n"
     "Creates the store when it does not exist. Prints what was added.\n"},
    {"get", cmd_mem_get, "quarry mem get KEY [--deleted]",
     "print a note with its links",
     "\noptions:\n"
     "  --deleted             also find a deleted note (shows when it was deleted)\n"
     "Links whose other end is deleted are not shown. Times are ISO-8601 UTC.\n"},
    {"update", cmd_mem_update,
     "quarry mem update KEY [--content TEXT | --file F | -] [--type T] [--weight W] "
     "[--provenance P] [--tag T ...] [--untag T ...]",
     "change a note's content, type, weight, provenance or tags",
     "\noptions: as for add, plus\n"
     "  --untag T             remove a tag (repeatable; the note must have it)\n"
     "Sets the note's modified time. Fields not given are kept.\n"},
    {"delete", cmd_mem_delete, "quarry mem delete KEY",
     "delete a note (soft: 'quarry mem restore KEY' brings it back with its links)",
     "\nThe note is hidden from get, search, links and snapshots but kept in the store,\n"
     "with its links, tags and visits, until it is restored.\n"},
    {"restore", cmd_mem_restore, "quarry mem restore KEY", "bring back a deleted note",
     "\nThe note's links to live notes reappear.\n"},
    {"link", cmd_mem_link, "quarry mem link SOURCE TARGET [--strength S] [--type T]",
     "link two notes (linking again changes the strength)",
     "\noptions:\n"
     "  --strength S          above 0, at most 1 (default 0.5)\n"
     "  --type T              a word of [a-z0-9-] (default: related)\n"
     "Both notes must exist and differ. Links are stored with a direction; the graph the\n"
     "pipeline runs on treats them as undirected.\n"},
    {"unlink", cmd_mem_unlink, "quarry mem unlink SOURCE TARGET [--type T]",
     "remove the links from SOURCE to TARGET",
     "\noptions:\n"
     "  --type T              remove only the link of this type (default: every type)\n"
     "It is an error when there is no such link.\n"},
    {"import", cmd_mem_import, "quarry mem import FILE | -",
     "add the nodes, links and visits of a JSON-lines file (all or nothing)",
     "\nOne JSON object per line, as 'quarry mem export' writes (see docs/memory.md).\n"
     "Keys must be new; links and visits must come after their nodes. A bad line\n"
     "stops the import with 'line N: ...' and nothing is imported. Creates the store\n"
     "when it does not exist.\n"},
    {"export", cmd_mem_export, "quarry mem export [--salvage] [FILE | -]",
     "write the whole store as JSON lines (to stdout by default)",
     "\nNodes by key (deleted ones too, with \"deleted\"), then links by source, target,\n"
     "type, then visits by time. Importing the file into an empty store and exporting\n"
     "again gives the same bytes. With FILE, prints a summary.\n"
     "\n--salvage: for a damaged store (refused as damaged or malformed): reads every\n"
     "row that can still be read, one at a time, without writing the file, and writes\n"
     "them as JSON lines that 'quarry mem import' takes into a new store. What was\n"
     "lost (rows on unreadable pages, links and visits of lost notes) is reported on\n"
     "stderr (stdout with FILE).\n"},
    {"stats", cmd_mem_stats, "quarry mem stats",
     "count the notes by type, links, tags and visits",
     "\nAlso the size of the search index and of the file, and the generation (a counter\n"
     "every write bumps).\n"},
    {"query", cmd_mem_query, CMD_MEM_QUERY_USAGE, CMD_MEM_QUERY_SUMMARY, CMD_MEM_QUERY_HELP},
    {"agent", cmd_mem_agent, CLI_MEM_AGENT_USAGE, CLI_MEM_AGENT_SUMMARY, cli_mem_agent_help},
    {"daemon", cmd_mem_daemon, CLI_MEM_DAEMON_USAGE, CLI_MEM_DAEMON_SUMMARY, cli_mem_daemon_help},
};

#define NSUBS (sizeof subs / sizeof subs[0])

static const cli_mem_cmd *find_sub(const char *name)
{
    for (size_t i = 0; i < NSUBS; i++)
        if (!strcmp(subs[i].name, name))
            return &subs[i];
    return NULL;
}

static void print_overview(FILE *f)
{
    fprintf(f, "usage: quarry mem COMMAND [ARGS] [--store FILE] [--format edn|json|table]\n\n"
               "The memory graph: notes (nodes) with a key, markdown content, a type, a weight\n"
               "and tags, joined by weighted links, in an SQLite file: --store FILE, else\n"
               "$QUARRY_MEMORY.\n\ncommands:\n");
    for (size_t i = 0; i < NSUBS; i++)
        fprintf(f, "  %-9s %s\n", subs[i].name, subs[i].summary);
    fprintf(f, "\nRun 'quarry mem COMMAND --help' for its arguments.\n"
               "Exit status: 0 success, 1 the store refused (not found, exists, busy), 2 bad\n"
               "usage or input.\n");
}

int cmd_mem(int argc, char **argv)
{
    cli_mem_opts o = {.store = NULL, .fmt = FMT_DEFAULT, .asked = FMT_DEFAULT, .sub = NULL};
    int i = 1;
    /* common options may come before the subcommand */
    for (; i < argc && argv[i][0] == '-'; i++) {
        if (!strcmp(argv[i], "-h") || !strcmp(argv[i], "--help")) {
            print_overview(stdout);
            return EXIT_OK;
        }
        int c = cli_mem_option(argc, argv, &i, &o);
        if (c < 0)
            return EXIT_USAGE;
        if (c == 0)
            return cli_mem_unknown_option(&o, argv[i]);
    }
    if (i >= argc) {
        print_overview(stderr);
        return EXIT_USAGE;
    }
    const cli_mem_cmd *c = find_sub(argv[i]);
    if (!c) {
        const char *names[sizeof subs / sizeof subs[0]];
        for (size_t k = 0; k < sizeof subs / sizeof subs[0]; k++)
            names[k] = subs[k].name;
        const char *s = cli_closest(argv[i], names, sizeof subs / sizeof subs[0]);
        if (s)
            return cli_mem_usage(&o, "unknown command '%.100s' (did you mean '%s'?)", argv[i], s);
        return cli_mem_usage(&o, "unknown command '%.100s'", argv[i]);
    }
    o.sub = c->name;
    return c->run(argc - i, argv + i, &o);
}

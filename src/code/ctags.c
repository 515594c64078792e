/*
 * ctags.c: definitions of files in languages quarry does not parse itself (Python, Go,
 * Rust, JavaScript, shell, ...), from universal-ctags' JSON output. The blob is written
 * to a temporary file named with the same extension (ctags picks the language by it),
 * `ctags --output-format=json --fields=+neKS -f - FILE` runs with no shell (qr_proc_run:
 * a scrubbed environment, its stderr dropped), and each tag
 * line becomes an item flagged QR_CODE_LEXICAL: a name, a kind, a line range (when ctags
 * knows the end), a scope and a signature. There are no calls or references: these are
 * lexical symbols, and docs/code.md says so per language.
 *
 * $QUARRY_CTAGS names another ctags binary (tests use it to check the message when none
 * can be run).
 *
 * Rejected: one ctags run over the whole tree (faster cold, but the results must be kept
 * per blob, and a run per changed file is what re-indexing needs anyway).
 */
#include "graph_int.h"

#include "quarry/proc.h"

#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <unistd.h>

/* Runs ctags on `file` in `dir`. The name is given relative to the directory: ctags
 * names anonymous definitions (`__anon0b886b1c0203`, `AnonymousFunction7c93...`) with a
 * hash of the file name it was given, and the temporary directory's name differs on
 * every run; the same name every time makes two builds of one tree give the same index. */
#define CTAGS_TIMEOUT_MS 20000

static int run_ctags(const char *dir, const char *file, qr_buf *out)
{
    const char *bin = getenv("QUARRY_CTAGS");
    if (!bin || !*bin)
        bin = "ctags";
    const char *argv[] = {bin, "--output-format=json", "--fields=+neKS", "--sort=no", "-f", "-",
                          file, NULL};
    /* one file: a ctags that loops on a hostile file is killed after CTAGS_TIMEOUT_MS and
     * the file is indexed as failed, so no file can hold up an index */
    qr_proc_opts o = {.argv = argv, .err_max = 1, .dir = dir, .timeout_ms = CTAGS_TIMEOUT_MS};
    qr_proc_result r;
    qr_proc_result_init(&r);
    int rc = qr_proc_run(&o, &r);
    if (rc == QR_OK && r.status == 0 && !r.out_truncated)
        qr_buf_append(out, r.out.p ? r.out.p : "", r.out.len);
    else
        rc = QR_EIO;
    qr_proc_result_clear(&r);
    return rc != QR_OK || out->failed ? QR_EIO : QR_OK;
}

static int kind_of(const char *k)
{
    static const struct {
        const char *name;
        qr_code_kind kind;
    } map[] = {
        {"function", QR_CODE_FUNCTION},   {"method", QR_CODE_FUNCTION},
        {"func", QR_CODE_FUNCTION},       {"subroutine", QR_CODE_FUNCTION},
        {"procedure", QR_CODE_FUNCTION},  {"singletonMethod", QR_CODE_FUNCTION},
        {"class", QR_CODE_STRUCT},        {"struct", QR_CODE_STRUCT},
        {"interface", QR_CODE_STRUCT},    {"trait", QR_CODE_STRUCT},
        {"implementation", QR_CODE_STRUCT}, {"union", QR_CODE_UNION},
        {"enum", QR_CODE_ENUM},           {"enumerator", QR_CODE_ENUMERATOR},
        {"typedef", QR_CODE_TYPEDEF},     {"type", QR_CODE_TYPEDEF},
        {"alias", QR_CODE_TYPEDEF},       {"member", QR_CODE_MEMBER},
        {"field", QR_CODE_MEMBER},        {"property", QR_CODE_MEMBER},
        {"variable", QR_CODE_VARIABLE},   {"constant", QR_CODE_VARIABLE},
        {"macro", QR_CODE_MACRO},         {"define", QR_CODE_MACRO},
    };
    for (size_t i = 0; i < sizeof map / sizeof *map; i++)
        if (!strcmp(map[i].name, k))
            return (int)map[i].kind;
    return -1;
}

static const char *get_str(qr_val m, qr_arena *a, const char *key)
{
    qr_val v;
    if (!qr_map_get(m, qr_kw_cstr(a, key), &v) || v.t != QR_T_STR)
        return NULL;
    return v.s->data;
}

static int64_t get_int(qr_val m, qr_arena *a, const char *key)
{
    qr_val v;
    if (!qr_map_get(m, qr_kw_cstr(a, key), &v) || v.t != QR_T_INT)
        return 0;
    return v.i;
}

int qr__code_ctags(const char *path, const char *src, size_t len, qr_arena *a, qr_code_file *out)
{
    memset(out, 0, sizeof *out);
    out->lang = QR_CODE_LANG_CTAGS;
    for (size_t i = 0; i < len; i++)
        if (src[i] == '\n')
            out->lines++;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    const char *dot = strrchr(base, '.');
    char dir[512], tmpl[600];
    const char *td = getenv("TMPDIR");
    int dn = snprintf(dir, sizeof dir, "%s/quarry-ctags-XXXXXX", td && *td ? td : "/tmp");
    if (dn < 0 || (size_t)dn >= sizeof dir || !mkdtemp(dir))
        return QR_EIO;
    snprintf(tmpl, sizeof tmpl, "%s/f%s", dir, dot && strlen(dot) < 32 ? dot : "");
    int fd = open(tmpl, O_WRONLY | O_CREAT | O_EXCL, 0600);
    if (fd < 0) {
        rmdir(dir);
        return QR_EIO;
    }
    size_t off = 0;
    while (off < len) {
        ssize_t w = write(fd, src + off, len - off);
        if (w <= 0)
            break;
        off += (size_t)w;
    }
    close(fd);
    qr_buf outb;
    qr_buf_init(&outb);
    int rc = off == len ? run_ctags(dir, tmpl + strlen(dir) + 1, &outb) : QR_EIO;
    unlink(tmpl);
    rmdir(dir);
    if (rc != QR_OK) {
        qr_buf_release(&outb);
        return rc;
    }
    size_t cap = 0;
    const char *p = outb.p ? outb.p : "";
    while (*p) {
        const char *nl = strchr(p, '\n');
        size_t n = nl ? (size_t)(nl - p) : strlen(p);
        qr_val m;
        qr_read_error re;
        if (qr_json_read(a, p, n, &m, &re) == QR_OK && m.t == QR_T_MAP) {
            const char *type = get_str(m, a, "_type");
            const char *kind = get_str(m, a, "kind");
            const char *name = get_str(m, a, "name");
            int k = kind ? kind_of(kind) : -1;
            /* a member with a signature is a method (Python's "member" kind) */
            if (k == QR_CODE_MEMBER && get_str(m, a, "signature"))
                k = QR_CODE_FUNCTION;
            if (type && !strcmp(type, "tag") && name && k >= 0) {
                if (out->nitems == cap) {
                    size_t nc = cap ? cap * 2 : 32;
                    void *np = qr_arena_realloc(a, out->items, cap * sizeof *out->items,
                                                nc * sizeof *out->items);
                    if (!np) {
                        qr_buf_release(&outb);
                        return QR_ENOMEM;
                    }
                    out->items = np;
                    cap = nc;
                }
                qr_code_item *it = &out->items[out->nitems++];
                memset(it, 0, sizeof *it);
                it->kind = (qr_code_kind)k;
                it->name = name;
                it->line = (uint32_t)get_int(m, a, "line");
                int64_t end = get_int(m, a, "end");
                it->end_line = end >= it->line ? (uint32_t)end : it->line;
                it->parent = get_str(m, a, "scope");
                it->signature = get_str(m, a, "signature");
                it->type = get_str(m, a, "typeref");
                it->flags = QR_CODE_LEXICAL;
                const char *access = get_str(m, a, "access");
                if (access && strcmp(access, "public"))
                    it->flags |= QR_CODE_STATIC;
                if (name[0] == '_' && k == QR_CODE_FUNCTION)
                    it->flags |= QR_CODE_STATIC;
            }
        }
        p += n + (nl ? 1 : 0);
    }
    qr_buf_release(&outb);
    return a->exhausted ? QR_ENOMEM : QR_OK;
}

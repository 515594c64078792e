/*
 * gcache.c: the assembled code graph kept on disk, so a process that asks one question
 * (`quarry code query ...`) reads a graph instead of assembling one from every file's
 * rows: <gitdir>/quarry/graphs/<key>.graph, one file per input.
 *
 * The key is everything an assembly reads besides the store's rows of the listed blobs:
 * the listed files (path, blob id, language, how they were listed), the build's -D
 * macros, the store's version, this format's version and the identity of the running
 * program (its size and change time: a rebuilt quarry assembles afresh). The key's bytes
 * are kept in the file and compared whole: its hash only names the file. The store's rows
 * of a blob never change while they exist; removing rows (`quarry code gc`, a store
 * dropped and rebuilt) removes every kept graph too.
 *
 * The file is mapped whole (read-only, private): a header, the key, fixed-size records (files,
 * nodes, edges, the three sorted lookups) whose strings are offsets into a string table
 * at the end (each distinct string once). Loading turns offsets into pointers into that
 * mapping, which lives as long as the graph (a kept file is replaced by rename and removed
 * by unlink, never rewritten in place, so a mapping stays whole). Writes go to a temporary file renamed into
 * place, so a reader sees a whole file or none. Any failure is a miss: it is a cache.
 *
 * Not kept (read on demand, as from an assembled graph): the identifier uses of
 * find_references (the store's names rows), the items of each file (the nodes hold
 * them), keys made on first use.
 *
 * Rejected: reading the file into memory (mapping touches only the pages a question
 * needs: a question that finds no references never reads them); answering from SQL rows without a graph (every query type would
 * need a second implementation, and exactness with today's answers is the requirement).
 */
#define _GNU_SOURCE /* DT_DIR: readdir's entry types */
#include "graph_int.h"

#include <dirent.h>
#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define GCACHE_MAGIC 0x47435251u /* "QRCG" */
#define GCACHE_VERSION 8u
#define GCACHE_KEEP 8 /* graphs kept per repository (the newest by change time) */
#define NOSTR 0xffffffffu

typedef struct hdr {
    uint32_t magic, version;
    uint32_t keylen, nfiles, nnodes, nedges, nnamed, nrefs, ndirect, strtab;
    uint32_t total; /* bytes of the whole file */
    uint32_t pad;
    qr_code_stats stats;
} hdr;

typedef struct frec {
    int32_t status;
    uint32_t lines, errors;
    uint32_t error_line[QR_CODE_ERROR_LINES], nerror_lines;
    int64_t file_node;
    uint32_t node0, nnodes, direct0, ndirect, ref0, nrefs;
} frec;

typedef struct nrec {
    uint32_t kind, name, parent, type, signature, cond;
    uint32_t line, end_line, start_byte, end_byte, flags;
    uint32_t file, lang, inactive;
} nrec;

typedef struct erec {
    uint32_t kind;
    int32_t from, to;
    uint32_t from_key, to_key, file, via, line, flags; /* bit 0 inactive, bit 1 guess */
} erec;

typedef struct rrec {
    uint32_t kind, from, name, cond, line;
} rrec;

/* ---- the key ---- */

static void put_u32(qr_buf *b, uint32_t v)
{
    qr_buf_append(b, (const char *)&v, sizeof v);
}

static void put_str(qr_buf *b, const char *s)
{
    size_t n = s ? strlen(s) : 0;
    put_u32(b, s ? (uint32_t)n : NOSTR);
    if (n)
        qr_buf_append(b, s, n);
}

static void make_key(const qr_code_graph *g, qr_buf *k)
{
    put_u32(k, GCACHE_VERSION);
    put_u32(k, (uint32_t)qr__code_store_version());
    struct stat sb;
    char exe[128] = "";
    if (stat("/proc/self/exe", &sb) == 0)
        snprintf(exe, sizeof exe, "exe:%lld:%lld.%09ld:%llu", (long long)sb.st_size,
                 (long long)sb.st_ctim.tv_sec, (long)sb.st_ctim.tv_nsec,
                 (unsigned long long)sb.st_ino);
    /* the backend joins the binary's string: nothing for SQLite (its keys are as they
     * were), the server and database for the team database */
    qr_buf who;
    qr_buf_init(&who);
    qr_buf_puts(&who, exe);
    qr__code_store_key(&who);
    put_str(k, who.p ? who.p : exe);
    if (who.failed)
        k->failed = true;
    qr_buf_release(&who);
    put_u32(k, (uint32_t)g->nfiles);
    for (size_t i = 0; i < g->nfiles; i++) {
        const gfile *f = &g->files[i];
        put_str(k, f->path);
        qr_buf_append(k, f->oid, 40);
        put_u32(k, (uint32_t)f->lang | (f->on_disk ? 0x100u : 0) | (f->dirty ? 0x200u : 0) |
                       (f->deleted ? 0x400u : 0) | (f->symlink ? 0x800u : 0));
    }
    put_u32(k, (uint32_t)g->ndefines);
    for (size_t i = 0; i < g->ndefines; i++)
        put_str(k, g->defines[i]);
    put_u32(k, (uint32_t)g->nincdirs);
    for (size_t i = 0; i < g->nincdirs; i++)
        put_str(k, g->incdirs[i]);
}

/* The files a key lists, into g->files (paths from g's arena): the inverse of make_key
 * for the part the fast path needs. false when the key does not read. */
static bool files_of_key(qr_code_graph *g, const char *k, size_t n)
{
    size_t at = 0;
    uint32_t v, len;
#define TAKE(dst, sz)                                                                          \
    do {                                                                                       \
        if (n - at < (sz))                                                                     \
            return false;                                                                      \
        memcpy((dst), k + at, (sz));                                                           \
        at += (sz);                                                                            \
    } while (0)
    TAKE(&v, 4);
    TAKE(&v, 4);
    TAKE(&len, 4);
    if (len == NOSTR || n - at < len)
        return false;
    at += len;
    uint32_t nf;
    TAKE(&nf, 4);
    if (nf > n / 48)
        return false;
    g->files = calloc(nf ? nf : 1, sizeof *g->files);
    if (!g->files)
        return false;
    for (uint32_t i = 0; i < nf; i++) {
        gfile *f = &g->files[i];
        TAKE(&len, 4);
        if (len == NOSTR || n - at < len)
            return false;
        f->path = qr_arena_strndup(&g->a, k + at, len);
        at += len;
        TAKE(f->oid, 40);
        f->oid[40] = 0;
        TAKE(&v, 4);
        f->lang = (qr_code_lang)(v & 0xff);
        f->on_disk = v & 0x100u;
        f->dirty = v & 0x200u;
        f->deleted = v & 0x400u;
        f->symlink = v & 0x800u;
        g->nfiles = i + 1;
        if (!f->path)
            return false;
    }
#undef TAKE
    return true;
}

/* QUARRY_CODE_GRAPH_CACHE=off: neither read nor keep graphs (every load assembles) */
static bool cache_off(void)
{
    const char *v = getenv("QUARRY_CODE_GRAPH_CACHE");
    return v && !strcmp(v, "off");
}

static uint64_t fnv64(const void *p, size_t n)
{
    const unsigned char *s = p;
    uint64_t h = 0xcbf29ce484222325ull;
    for (size_t i = 0; i < n; i++) {
        h ^= s[i];
        h *= 0x100000001b3ull;
    }
    return h;
}

static void cache_dir(const qr_code_graph *g, qr_buf *p)
{
    qr_buf_printf(p, "%s/quarry/graphs", g->c->gitdir);
}

static void cache_path(const qr_code_graph *g, const qr_buf *key, qr_buf *p)
{
    cache_dir(g, p);
    qr_buf_printf(p, "/%016llx.graph", (unsigned long long)fnv64(key->p, key->len));
}

/* Maps the kept file at `path` read-only when its size is within [min, max]: the mapping
 * (its size in *len), or NULL (absent, unreadable, a size out of bounds). The descriptor
 * is closed either way: the mapping outlives it. */
static char *map_kept(const char *path, size_t min, size_t max, size_t *len)
{
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        return NULL;
    struct stat sb;
    void *m = MAP_FAILED;
    if (fstat(fd, &sb) == 0 && sb.st_size >= (off_t)min && (uint64_t)sb.st_size <= max) {
        *len = (size_t)sb.st_size;
        m = mmap(NULL, *len, PROT_READ, MAP_PRIVATE, fd, 0);
    }
    close(fd);
    return m == MAP_FAILED ? NULL : m;
}

/* ---- loading ---- */

int qr__code_gcache_load(qr_code_graph *g)
{
    if (cache_off() || !g->c->gitdir) /* no repository: a listing of the team database */
        return 0;
    qr_buf key, path;
    qr_buf_init(&key);
    qr_buf_init(&path);
    make_key(g, &key);
    cache_path(g, &key, &path);
    int hit = 0;
    char *buf = NULL;
    size_t buflen = 0;
    if (!key.failed && !path.failed)
        buf = map_kept(path.p, sizeof(hdr), 0xffffffffu, &buflen);
    if (!buf)
        goto done;
    size_t total = buflen;
    hdr h;
    memcpy(&h, buf, sizeof h);
    if (h.magic != GCACHE_MAGIC || h.version != GCACHE_VERSION || h.total != total ||
        h.keylen != key.len || h.nfiles != g->nfiles || h.strtab > total ||
        (h.strtab < total && buf[total - 1] != 0))
        goto done;
    size_t off = sizeof h;
    if (memcmp(buf + off, key.p, key.len) != 0)
        goto done;
    off += (key.len + 7) & ~(size_t)7;
    /* the sizes of the sections, checked against the file before anything is read */
    size_t need = off + (size_t)h.nfiles * sizeof(frec) +
                  ((size_t)h.nnamed + 2 * (size_t)h.nedges) * sizeof(size_t) +
                  (size_t)h.nnodes * sizeof(nrec) + (size_t)h.nedges * sizeof(erec) +
                  (size_t)h.nrefs * sizeof(rrec) + (size_t)h.ndirect * sizeof(uint32_t);
    if (need > h.strtab)
        goto done;
    const char *st = buf + h.strtab;
    size_t stlen = total - h.strtab;
#define S(o) ((o) == NOSTR || (o) >= stlen ? NULL : st + (o))
    const frec *fr = (const frec *)(buf + off);
    off += h.nfiles * sizeof(frec);
    /* the sorted lookups are used in place: the mapping is read-only, and they are never
     * written after assembly */
    const size_t *byn = (const size_t *)(buf + off);
    off += h.nnamed * sizeof(size_t);
    const size_t *byf = (const size_t *)(buf + off);
    off += h.nedges * sizeof(size_t);
    const size_t *byt = (const size_t *)(buf + off);
    off += h.nedges * sizeof(size_t);
    const nrec *nr = (const nrec *)(buf + off);
    off += h.nnodes * sizeof(nrec);
    const erec *er = (const erec *)(buf + off);
    off += h.nedges * sizeof(erec);
    const rrec *rr = (const rrec *)(buf + off);
    off += h.nrefs * sizeof(rrec);
    const uint32_t *dir = (const uint32_t *)(buf + off);

    size_t nn = h.nnodes ? h.nnodes : 1, ne = h.nedges ? h.nedges : 1;
    /* nodes, edges and node_file in one anonymous region, faulted in at once: a query
     * touches them all while they are filled */
    size_t rn = nn * sizeof *g->nodes, re = ne * sizeof *g->edges;
    size_t rlen = rn + nn * sizeof *g->node_file + re;
    void *region = mmap(NULL, rlen, PROT_READ | PROT_WRITE,
                        MAP_PRIVATE | MAP_ANONYMOUS, -1, 0);
    if (region == MAP_FAILED)
        goto done;
    (void)madvise(region, rlen, MADV_HUGEPAGE); /* fewer faults where the kernel allows */
    g->region = region;
    g->region_len = rlen;
    /* nodes and node_file first, the edges last: a question that needs no edges
     * touches only the first pages */
    size_t rf = nn * sizeof *g->node_file;
    g->nodes = region;
    g->node_file = (size_t *)((char *)region + rn);
    g->edges = (qr_code_edge *)((char *)region + rn + rf);
    g->keys = calloc(nn, sizeof *g->keys);
    g->by_name = (size_t *)byn;
    g->by_from = (size_t *)byf;
    g->by_to = (size_t *)byt;
    g->lookups_mapped = true;
    qr_code_ref *refs = h.nrefs ? qr_arena_alloc(&g->a, h.nrefs * sizeof *refs) : NULL;
    if (!g->keys || (h.nrefs && !refs))
        goto undo;
    g->capn = nn;
    g->cape = ne;
    for (size_t i = 0; i < h.nrefs; i++) {
        qr_code_ref *r = &refs[i];
        r->kind = (qr_code_ref_kind)rr[i].kind;
        r->from = S(rr[i].from);
        r->name = S(rr[i].name);
        r->cond = S(rr[i].cond);
        r->line = rr[i].line;
        if (!r->name)
            goto undo;
    }
    for (size_t i = 0; i < h.nfiles; i++) {
        gfile *f = &g->files[i];
        const frec *x = &fr[i];
        if ((uint64_t)x->direct0 + x->ndirect > h.ndirect ||
            (uint64_t)x->ref0 + x->nrefs > h.nrefs ||
            (uint64_t)x->node0 + x->nnodes > h.nnodes || x->file_node >= (int64_t)h.nnodes)
            goto undo;
        f->status = x->status;
        f->file.lines = x->lines;
        f->file.errors = x->errors;
        f->file.nerror_lines = x->nerror_lines < QR_CODE_ERROR_LINES ? x->nerror_lines
                                                                      : QR_CODE_ERROR_LINES;
        memcpy(f->file.error_line, x->error_line, sizeof f->file.error_line);
        f->file.refs = x->nrefs ? refs + x->ref0 : NULL;
        f->file.nrefs = x->nrefs;
        f->file_node = x->file_node;
        f->node0 = x->node0;
        f->nnodes = x->nnodes;
        f->ndirect = x->ndirect;
        if (x->ndirect) {
            f->direct = malloc(x->ndirect * sizeof *f->direct);
            if (!f->direct)
                goto undo;
            for (size_t k = 0; k < x->ndirect; k++) {
                if (dir[x->direct0 + k] >= h.nfiles)
                    goto undo;
                f->direct[k] = dir[x->direct0 + k];
            }
        }
    }
    for (size_t i = 0; i < h.nnodes; i++) {
        qr_code_node *n = &g->nodes[i];
        const nrec *x = &nr[i];
        n->it.kind = (qr_code_kind)x->kind;
        n->it.name = S(x->name);
        n->it.parent = S(x->parent);
        n->it.type = S(x->type);
        n->it.signature = S(x->signature);
        n->it.cond = S(x->cond);
        n->it.line = x->line;
        n->it.end_line = x->end_line;
        n->it.start_byte = x->start_byte;
        n->it.end_byte = x->end_byte;
        n->it.flags = x->flags;
        n->file = S(x->file);
        n->lang = (qr_code_lang)x->lang;
        n->inactive = x->inactive != 0;
        if (!n->it.name || !n->file || x->kind >= QR_CODE_KIND_COUNT)
            goto undo;
    }
    /* the edges are filled on first need (qr__code_need_edges): a question about
     * definitions never reads them */
    g->edges_src = er;
    g->edges_strs = st;
    g->edges_strlen = stlen;
    g->edges_pending = h.nedges > 0;
    for (size_t i = 0; i < h.nedges; i++)
        if (byf[i] >= h.nedges || byt[i] >= h.nedges)
            goto undo;
    for (size_t i = 0; i < h.nnamed; i++)
        if (byn[i] >= h.nnodes)
            goto undo;
#undef S
    g->nnodes = h.nnodes;
    g->nedges = h.nedges;
    g->nnamed = h.nnamed;
    for (size_t i = 0; i < g->nfiles; i++) {
        const gfile *f = &g->files[i];
        if (f->deleted || f->status < 0)
            continue;
        g->node_file[f->file_node] = i;
        for (size_t k = f->node0; k < f->node0 + f->nnodes; k++)
            g->node_file[k] = i;
    }
    g->stats = h.stats;
    g->stats.blobs_indexed_now = 0;
    g->cache_buf = buf;
    g->cache_len = buflen;
    buf = NULL;
    hit = 1;
    goto done;
undo:
    g->edges_pending = false;
    munmap(g->region, g->region_len);
    g->region = NULL;
    g->region_len = 0;
    g->lookups_mapped = false;
    free(g->keys);
    g->nodes = NULL;
    g->edges = NULL;
    g->node_file = NULL;
    g->keys = NULL;
    g->by_name = g->by_from = g->by_to = NULL;
    g->nnodes = g->nedges = g->nnamed = g->capn = g->cape = 0;
    for (size_t i = 0; i < g->nfiles; i++) {
        gfile *f = &g->files[i];
        free(f->direct);
        f->direct = NULL;
        f->ndirect = 0;
        f->status = 0;
        memset(&f->file, 0, sizeof f->file);
        f->file_node = 0;
        f->node0 = f->nnodes = 0;
    }
done:
    if (buf)
        munmap(buf, buflen);
    qr_buf_release(&key);
    qr_buf_release(&path);
    return hit;
}

#define S(o) ((o) == NOSTR || (o) >= stlen ? NULL : st + (o))
void qr__code_need_edges(const qr_code_graph *cg)
{
    if (!cg->edges_pending)
        return;
    qr_code_graph *g = (qr_code_graph *)cg; /* filled once, as the lazy keys are */
    const erec *er = g->edges_src;
    const char *st = g->edges_strs;
    size_t stlen = g->edges_strlen;
    for (size_t i = 0; i < g->nedges; i++) {
        qr_code_edge *e = &g->edges[i];
        const erec *x = &er[i];
        e->kind = (qr_code_edge_kind)x->kind;
        e->from = x->from;
        e->to = x->to;
        e->from_key = S(x->from_key);
        e->to_key = S(x->to_key);
        e->file = S(x->file);
        e->via = S(x->via);
        e->line = x->line;
        e->inactive = (x->flags & 1) != 0;
        e->guess = (x->flags & 2) != 0;
        /* a damaged record reads as an edge to nothing, never as a bad index */
        if (x->kind >= QR_CODE_E_KIND_COUNT)
            e->kind = QR_CODE_E_CALLS;
        if (x->from >= (int32_t)g->nnodes || x->from < -1)
            e->from = -1;
        if (x->to >= (int32_t)g->nnodes || x->to < -1)
            e->to = -1;
        if (!e->from_key)
            e->from_key = "";
        if (!e->to_key)
            e->to_key = "";
    }
    g->edges_pending = false;
}
#undef S

/* ---- saving ---- */

typedef struct strtab {
    qr_buf b;
    uint32_t *slots; /* offset + 1, 0: empty */
    size_t cap, n;
    bool failed;
    /* the same pointer comes back often (a file's path, an edge's keys): a direct-mapped
     * cache of pointer -> offset skips hashing the text again */
    const char **pk; /* PCACHE entries, allocated on first use */
    uint32_t *pv;
} strtab;

#define PCACHE 8192

static uint32_t intern_text(strtab *t, const char *s);

static uint32_t intern(strtab *t, const char *s)
{
    if (!s)
        return NOSTR;
    if (!t->pk) {
        t->pk = calloc(PCACHE, sizeof *t->pk);
        t->pv = calloc(PCACHE, sizeof *t->pv);
        if (!t->pk || !t->pv) {
            t->failed = true;
            return NOSTR;
        }
    }
    size_t h = (size_t)(((uint64_t)(uintptr_t)s >> 3) * 0x9e3779b97f4a7c15ull >> 51); /* 13 bits */
    if (t->pk[h] == s)
        return t->pv[h];
    uint32_t off = intern_text(t, s);
    if (!t->failed) {
        t->pk[h] = s;
        t->pv[h] = off;
    }
    return off;
}

static uint32_t intern_text(strtab *t, const char *s)
{
    size_t len = strlen(s);
    if (t->n * 2 >= t->cap) {
        size_t nc = t->cap ? t->cap * 2 : 4096;
        uint32_t *ns = calloc(nc, sizeof *ns);
        if (!ns) {
            t->failed = true;
            return NOSTR;
        }
        for (size_t i = 0; i < t->cap; i++)
            if (t->slots[i]) {
                const char *o = t->b.p + t->slots[i] - 1;
                size_t j = fnv64(o, strlen(o)) & (nc - 1);
                while (ns[j])
                    j = (j + 1) & (nc - 1);
                ns[j] = t->slots[i];
            }
        free(t->slots);
        t->slots = ns;
        t->cap = nc;
    }
    size_t j = fnv64(s, len) & (t->cap - 1);
    while (t->slots[j]) {
        const char *o = t->b.p + t->slots[j] - 1;
        if (!strcmp(o, s))
            return t->slots[j] - 1;
        j = (j + 1) & (t->cap - 1);
    }
    if (t->b.len + len + 1 >= NOSTR) {
        t->failed = true;
        return NOSTR;
    }
    uint32_t off = (uint32_t)t->b.len;
    qr_buf_append(&t->b, s, len + 1);
    t->slots[j] = off + 1;
    t->n++;
    return off;
}

static void prune(const qr_code_graph *g, const char *keep)
{
    qr_buf dir;
    qr_buf_init(&dir);
    cache_dir(g, &dir);
    DIR *d = dir.p ? opendir(dir.p) : NULL;
    struct ent {
        char name[64];
        struct timespec t;
    } ents[64];
    size_t n = 0;
    struct dirent *de;
    while (d && (de = readdir(d)) != NULL && n < sizeof ents / sizeof *ents) {
        size_t l = strlen(de->d_name);
        if (l < 7 || l >= sizeof ents[0].name || strcmp(de->d_name + l - 6, ".graph") ||
            !strcmp(de->d_name, keep))
            continue;
        struct stat sb;
        if (fstatat(dirfd(d), de->d_name, &sb, 0) != 0)
            continue;
        memcpy(ents[n].name, de->d_name, l + 1);
        ents[n++].t = sb.st_mtim;
    }
    /* keep the newest GCACHE_KEEP - 1 others */
    while (d && n >= GCACHE_KEEP) {
        size_t old = 0;
        for (size_t i = 1; i < n; i++)
            if (ents[i].t.tv_sec < ents[old].t.tv_sec ||
                (ents[i].t.tv_sec == ents[old].t.tv_sec && ents[i].t.tv_nsec < ents[old].t.tv_nsec))
                old = i;
        unlinkat(dirfd(d), ents[old].name, 0);
        size_t l = strlen(ents[old].name); /* and its references: X.graph, X.refs */
        memcpy(ents[old].name + l - 6, ".refs", 6);
        unlinkat(dirfd(d), ents[old].name, 0);
        ents[old] = ents[--n];
    }
    if (d)
        closedir(d);
    qr_buf_release(&dir);
}

void qr__code_gcache_save(const qr_code_graph *g)
{
    if (cache_off() || g->a.exhausted || !g->c->gitdir)
        return;
    qr_buf key, path, out, tmp;
    qr_buf_init(&key);
    qr_buf_init(&path);
    qr_buf_init(&out);
    qr_buf_init(&tmp);
    strtab t = {0};
    qr_buf_init(&t.b);
    make_key(g, &key);
    cache_path(g, &key, &path);
    size_t ndirect = 0, nrefs = 0;
    for (size_t i = 0; i < g->nfiles; i++) {
        ndirect += g->files[i].ndirect;
        nrefs += g->files[i].file.nrefs;
    }
    hdr h = {.magic = GCACHE_MAGIC,
             .version = GCACHE_VERSION,
             .keylen = (uint32_t)key.len,
             .nfiles = (uint32_t)g->nfiles,
             .nnodes = (uint32_t)g->nnodes,
             .nedges = (uint32_t)g->nedges,
             .nnamed = (uint32_t)g->nnamed,
             .nrefs = (uint32_t)nrefs,
             .ndirect = (uint32_t)ndirect,
             .stats = g->stats};
    if (g->nnodes >= 0x7fffffffu || g->nedges >= 0x7fffffffu || nrefs >= NOSTR ||
        ndirect >= NOSTR || key.failed || path.failed)
        goto done;
    qr_buf_append(&out, (const char *)&h, sizeof h);
    qr_buf_append(&out, key.p, key.len);
    while (out.len % 8)
        qr_buf_putc(&out, 0);
    uint32_t d0 = 0, r0 = 0;
    for (size_t i = 0; i < g->nfiles; i++) {
        const gfile *f = &g->files[i];
        frec x = {.status = f->status,
                  .lines = f->file.lines,
                  .errors = f->file.errors,
                  .nerror_lines = f->file.nerror_lines,
                  .file_node = f->file_node,
                  .node0 = (uint32_t)f->node0,
                  .nnodes = (uint32_t)f->nnodes,
                  .direct0 = d0,
                  .ndirect = (uint32_t)f->ndirect,
                  .ref0 = r0,
                  .nrefs = (uint32_t)f->file.nrefs};
        memcpy(x.error_line, f->file.error_line, sizeof x.error_line);
        d0 += (uint32_t)f->ndirect;
        r0 += (uint32_t)f->file.nrefs;
        qr_buf_append(&out, (const char *)&x, sizeof x);
    }
    qr_buf_append(&out, (const char *)g->by_name, g->nnamed * sizeof *g->by_name);
    qr_buf_append(&out, (const char *)g->by_from, g->nedges * sizeof *g->by_from);
    qr_buf_append(&out, (const char *)g->by_to, g->nedges * sizeof *g->by_to);
    for (size_t i = 0; i < g->nnodes; i++) {
        const qr_code_node *n = &g->nodes[i];
        nrec x = {.kind = n->it.kind,
                  .name = intern(&t, n->it.name),
                  .parent = intern(&t, n->it.parent),
                  .type = intern(&t, n->it.type),
                  .signature = intern(&t, n->it.signature),
                  .cond = intern(&t, n->it.cond),
                  .line = n->it.line,
                  .end_line = n->it.end_line,
                  .start_byte = n->it.start_byte,
                  .end_byte = n->it.end_byte,
                  .flags = n->it.flags,
                  .file = intern(&t, n->file),
                  .lang = n->lang,
                  .inactive = n->inactive};
        qr_buf_append(&out, (const char *)&x, sizeof x);
    }
    for (size_t i = 0; i < g->nedges; i++) {
        const qr_code_edge *e = &g->edges[i];
        erec x = {.kind = e->kind,
                  .from = (int32_t)e->from,
                  .to = (int32_t)e->to,
                  .from_key = intern(&t, e->from_key),
                  .to_key = intern(&t, e->to_key),
                  .file = intern(&t, e->file),
                  .via = intern(&t, e->via),
                  .line = e->line,
                  .flags = (e->inactive ? 1u : 0u) | (e->guess ? 2u : 0u)};
        qr_buf_append(&out, (const char *)&x, sizeof x);
    }
    for (size_t i = 0; i < g->nfiles; i++) {
        const gfile *f = &g->files[i];
        for (size_t r = 0; r < f->file.nrefs; r++) {
            const qr_code_ref *ref = &f->file.refs[r];
            rrec x = {.kind = ref->kind,
                      .from = intern(&t, ref->from),
                      .name = intern(&t, ref->name),
                      .cond = intern(&t, ref->cond),
                      .line = ref->line};
            qr_buf_append(&out, (const char *)&x, sizeof x);
        }
    }
    for (size_t i = 0; i < g->nfiles; i++)
        for (size_t k = 0; k < g->files[i].ndirect; k++)
            put_u32(&out, (uint32_t)g->files[i].direct[k]);
    if (t.failed || out.failed || t.b.failed || (uint64_t)out.len + t.b.len >= NOSTR)
        goto done;
    h.strtab = (uint32_t)out.len;
    h.total = (uint32_t)(out.len + t.b.len);
    memcpy(out.p, &h, sizeof h);
    qr_buf_append(&out, t.b.p ? t.b.p : "", t.b.len);
    if (out.failed)
        goto done;
    /* written beside, then renamed into place (qr_write_file_atomic) */
    cache_dir(g, &tmp);
    if (tmp.failed || (mkdir(tmp.p, 0777) != 0 && errno != EEXIST))
        goto done;
    if (qr_write_file_atomic(path.p, out.p, out.len, 0644) != QR_OK)
        goto done;
    const char *base = strrchr(path.p, '/');
    prune(g, base ? base + 1 : path.p);
done:
    free(t.slots);
    free(t.pk);
    free(t.pv);
    qr_buf_release(&t.b);
    qr_buf_release(&key);
    qr_buf_release(&path);
    qr_buf_release(&out);
    qr_buf_release(&tmp);
}

int qr__code_gcache_clear(const char *gitdir, size_t *removed)
{
    qr_buf dir;
    qr_buf_init(&dir);
    qr_buf_printf(&dir, "%s/quarry/graphs", gitdir);
    DIR *d = dir.p ? opendir(dir.p) : NULL;
    struct dirent *de;
    size_t n = 0;
    while (d && (de = readdir(d)) != NULL) {
        /* the directory is ours: graphs, references, snapshots, temporaries */
        if (de->d_name[0] != '.' && unlinkat(dirfd(d), de->d_name, 0) == 0)
            n++;
    }
    if (d)
        closedir(d);
    qr_buf_release(&dir);
    if (removed)
        *removed = n;
    return QR_OK;
}

/* ---- the working tree without git: a stat snapshot ----
 * Listing the working tree needs libgit2 (its index and status), and starting libgit2
 * costs more than answering. So after a working-tree load that did list, the stat of
 * everything the listing depends on is kept beside the graph
 * (graphs/worktree-<hash of the work tree>.snap): the repository's HEAD, index, refs,
 * config and exclude files, git's global config and ignore files, every listed file and
 * every directory of the work tree (a new file changes its directory). When all of them
 * stat the same (device, inode, mode, size, modification and change times), the listing
 * is the same and the kept graph answers without libgit2 or SQLite. A snapshot is kept
 * only when nothing it records changed in the second before the listing began (git's
 * "racily clean" rule): a file written during the listing is never trusted. Not seen: a
 * core.excludesFile or core.attributesFile outside the usual places, GIT_* variables
 * (libgit2 does not read them either). */

#define SNAP_MAGIC 0x50414e53u /* "SNAP" */
#define SNAP_VERSION 2u
#define SNAP_MAX_ENTRIES 200000

typedef struct stent {
    uint32_t present, mode;
    uint64_t dev, ino, size;
    int64_t mtime_s, mtime_ns, ctime_s, ctime_ns;
} stent;

static void stent_of(const char *path, stent *e)
{
    struct stat sb;
    memset(e, 0, sizeof *e);
    if (lstat(path, &sb) != 0)
        return;
    e->present = 1;
    e->mode = (uint32_t)sb.st_mode;
    e->dev = (uint64_t)sb.st_dev;
    e->ino = (uint64_t)sb.st_ino;
    e->size = (uint64_t)sb.st_size;
    e->mtime_s = (int64_t)sb.st_mtim.tv_sec;
    e->mtime_ns = (int64_t)sb.st_mtim.tv_nsec;
    e->ctime_s = (int64_t)sb.st_ctim.tv_sec;
    e->ctime_ns = (int64_t)sb.st_ctim.tv_nsec;
}

static void snap_path(const qr_code *c, qr_buf *p)
{
    qr_buf_printf(p, "%s/quarry/graphs/worktree-%016llx.snap", c->gitdir,
                  (unsigned long long)fnv64(c->workdir, strlen(c->workdir)));
}

typedef struct snapw {
    qr_buf out;
    size_t n;
    int64_t limit_s, limit_ns; /* nothing recorded may have changed at or after this */
    bool racy;
} snapw;

static void snap_add(snapw *w, const char *path)
{
    stent e;
    stent_of(path, &e);
    if (e.present && (e.mtime_s > w->limit_s || (e.mtime_s == w->limit_s && e.mtime_ns >= w->limit_ns) ||
                      e.ctime_s > w->limit_s || (e.ctime_s == w->limit_s && e.ctime_ns >= w->limit_ns)))
        w->racy = true;
    put_str(&w->out, path);
    qr_buf_append(&w->out, (const char *)&e, sizeof e);
    w->n++;
}

/* A file quarry itself wrote during the load (the code index): recorded as it is now,
 * without the racy rule, which is for what the listing read; any later change to it
 * (another quarry's write, a schema changed by hand) fails the comparison. */
static void snap_add_own(snapw *w, const char *path)
{
    stent e;
    stent_of(path, &e);
    put_str(&w->out, path);
    qr_buf_append(&w->out, (const char *)&e, sizeof e);
    w->n++;
}

static void snap_add2(snapw *w, const char *a, const char *b)
{
    qr_buf p;
    qr_buf_init(&p);
    qr_buf_printf(&p, "%s%s%s", a, a[0] && a[strlen(a) - 1] == '/' ? "" : "/", b);
    if (!p.failed)
        snap_add(w, p.p);
    qr_buf_release(&p);
}

/* every directory under dir (not .git), depth first */
static void snap_dirs(snapw *w, qr_buf *dir, int depth)
{
    if (depth > 64 || w->n > SNAP_MAX_ENTRIES) {
        w->racy = true;
        return;
    }
    snap_add(w, dir->p);
    DIR *d = opendir(dir->p);
    if (!d)
        return;
    struct dirent *de;
    size_t len = dir->len;
    while ((de = readdir(d)) != NULL) {
        if (!strcmp(de->d_name, ".") || !strcmp(de->d_name, "..") || !strcmp(de->d_name, ".git"))
            continue;
        bool isdir = de->d_type == DT_DIR;
        if (de->d_type == DT_UNKNOWN) {
            struct stat sb;
            isdir = fstatat(dirfd(d), de->d_name, &sb, AT_SYMLINK_NOFOLLOW) == 0 &&
                    S_ISDIR(sb.st_mode);
        }
        if (!isdir)
            continue;
        qr_buf_printf(dir, "/%s", de->d_name);
        if (!dir->failed)
            snap_dirs(w, dir, depth + 1);
        dir->len = len;
        dir->p[len] = 0;
    }
    closedir(d);
}

void qr__code_snap_save(const qr_code_graph *g, const char *const *paths, size_t npaths,
                        const struct timespec *start)
{
    const qr_code *c = g->c;
    if (cache_off() || !c->repo || !c->workdir)
        return;
    snapw w = {.limit_s = (int64_t)start->tv_sec - 1, .limit_ns = (int64_t)start->tv_nsec};
    qr_buf_init(&w.out);
    qr_buf key, cpath, spath, dir;
    qr_buf_init(&key);
    qr_buf_init(&cpath);
    qr_buf_init(&spath);
    qr_buf_init(&dir);
    make_key(g, &key);
    put_u32(&w.out, SNAP_MAGIC);
    put_u32(&w.out, SNAP_VERSION);
    put_str(&w.out, c->gitdir);
    put_str(&w.out, c->workdir);
    put_str(&w.out, g->commit);
    qr_buf_printf(&cpath, "%016llx.graph", (unsigned long long)fnv64(key.p, key.len));
    put_str(&w.out, cpath.p);
    size_t count_at = w.out.len;
    put_u32(&w.out, 0);
    /* git's own files */
    const char *own = git_repository_path(c->repo);
    static const char *const own_files[] = {"HEAD", "index", "config", "commondir"};
    static const char *const common_files[] = {"config", "packed-refs", "info/exclude",
                                               "info/attributes", "HEAD"};
    for (size_t i = 0; own && i < sizeof own_files / sizeof *own_files; i++)
        snap_add2(&w, own, own_files[i]);
    for (size_t i = 0; i < sizeof common_files / sizeof *common_files; i++)
        snap_add2(&w, c->gitdir, common_files[i]);
    /* the branch HEAD names ("ref: refs/heads/x"), as a loose ref */
    qr_buf_reset(&dir);
    qr_buf_printf(&dir, "%s/HEAD", own ? own : c->gitdir);
    char *head = NULL;
    size_t hl = 0;
    const char *why = NULL;
    if (!dir.failed && qr_read_regular_file(dir.p, 4096, &head, &hl, &why) == QR_OK &&
        hl > 5 && !strncmp(head, "ref: ", 5)) {
        while (hl > 5 && (head[hl - 1] == '\n' || head[hl - 1] == '\r'))
            head[--hl] = 0;
        snap_add2(&w, c->gitdir, head + 5);
    }
    free(head);
    const char *home = getenv("HOME"), *xdg = getenv("XDG_CONFIG_HOME");
    if (home)
        snap_add2(&w, home, ".gitconfig");
    qr_buf_reset(&dir);
    if (xdg && *xdg)
        qr_buf_printf(&dir, "%s/git", xdg);
    else if (home)
        qr_buf_printf(&dir, "%s/.config/git", home);
    if (dir.p && !dir.failed) {
        snap_add2(&w, dir.p, "config");
        snap_add2(&w, dir.p, "ignore");
        snap_add2(&w, dir.p, "attributes");
    }
    snap_add(&w, "/etc/gitconfig");
    /* the code index itself: one another quarry rewrote (or whose schema changed) is
     * opened again, so its checks (a newer schema is refused) still run */
    snap_add_own(&w, qr_code_db_path(c));
    /* the listed files, then every directory */
    for (size_t i = 0; i < npaths && !w.racy; i++)
        snap_add2(&w, c->workdir, paths[i]);
    qr_buf_reset(&dir);
    qr_buf_puts(&dir, c->workdir);
    if (!w.racy && !dir.failed)
        snap_dirs(&w, &dir, 0);
    if (w.racy || w.out.failed || key.failed || cpath.failed || w.n >= NOSTR)
        goto done;
    uint32_t n = (uint32_t)w.n;
    memcpy(w.out.p + count_at, &n, sizeof n);
    snap_path(c, &spath);
    if (!spath.failed)
        (void)qr_write_file_atomic(spath.p, w.out.p, w.out.len, 0644);
done:
    qr_buf_release(&w.out);
    qr_buf_release(&key);
    qr_buf_release(&cpath);
    qr_buf_release(&spath);
    qr_buf_release(&dir);
}

/* reads a put_str string at *at (NULL for none); false when it does not fit */
static bool take_str(const char *b, size_t n, size_t *at, const char **s, size_t *len)
{
    uint32_t l;
    if (n - *at < 4)
        return false;
    memcpy(&l, b + *at, 4);
    *at += 4;
    if (l == NOSTR) {
        *s = NULL;
        *len = 0;
        return true;
    }
    if (n - *at < l)
        return false;
    *s = b + *at;
    *len = l;
    *at += l;
    return true;
}

int qr__code_gcache_fast(qr_code_graph *g)
{
    const qr_code *c = g->c;
    if (cache_off() || !c->workdir)
        return 0;
    qr_buf sp, gp;
    qr_buf_init(&sp);
    qr_buf_init(&gp);
    snap_path(c, &sp);
    char *b = NULL, *k = NULL;
    size_t n = 0, at = 0;
    int hit = 0;
    const char *why = NULL;
    if (sp.failed || qr_read_regular_file(sp.p, 256u << 20, &b, &n, &why) != QR_OK)
        goto done;
    uint32_t v[2];
    if (n < 8)
        goto done;
    memcpy(v, b, 8);
    at = 8;
    if (v[0] != SNAP_MAGIC || v[1] != SNAP_VERSION)
        goto done;
    const char *gd, *wd, *commit, *cname;
    size_t gdl, wdl, cl, cnl;
    if (!take_str(b, n, &at, &gd, &gdl) || !take_str(b, n, &at, &wd, &wdl) ||
        !take_str(b, n, &at, &commit, &cl) || !take_str(b, n, &at, &cname, &cnl) || !gd ||
        !wd || !commit || !cname || gdl != strlen(c->gitdir) || memcmp(gd, c->gitdir, gdl) ||
        wdl != strlen(c->workdir) || memcmp(wd, c->workdir, wdl) || cl >= sizeof g->commit ||
        cnl > 64 || memchr(cname, '/', cnl))
        goto done;
    uint32_t cnt;
    if (n - at < 4)
        goto done;
    memcpy(&cnt, b + at, 4);
    at += 4;
    char pbuf[4096];
    for (uint32_t i = 0; i < cnt; i++) {
        const char *p;
        size_t pl;
        stent want, got;
        if (!take_str(b, n, &at, &p, &pl) || !p || pl >= sizeof pbuf || n - at < sizeof want)
            goto done;
        memcpy(&want, b + at, sizeof want);
        at += sizeof want;
        memcpy(pbuf, p, pl);
        pbuf[pl] = 0;
        stent_of(pbuf, &got);
        if (memcmp(&want, &got, sizeof want) != 0)
            goto done;
    }
    /* the listing is the one the kept graph was made of: read it from the graph's key */
    cache_dir(g, &gp);
    qr_buf_printf(&gp, "/%.*s", (int)cnl, cname);
    if (gp.failed)
        goto done;
    int fd = open(gp.p, O_RDONLY | O_CLOEXEC);
    if (fd < 0)
        goto done;
    hdr h;
    bool ok = read(fd, &h, sizeof h) == (ssize_t)sizeof h && h.magic == GCACHE_MAGIC &&
              h.version == GCACHE_VERSION && h.keylen < h.total;
    k = ok ? malloc(h.keylen ? h.keylen : 1) : NULL;
    ok = k && read(fd, k, h.keylen) == (ssize_t)h.keylen;
    close(fd);
    if (!ok)
        goto done;
    memcpy(g->commit, commit, cl);
    g->commit[cl] = 0;
    if (files_of_key(g, k, h.keylen))
        hit = qr__code_gcache_load(g);
    if (!hit) {
        free(g->files);
        g->files = NULL;
        g->nfiles = 0;
        g->commit[0] = 0;
    }
done:
    free(b);
    free(k);
    qr_buf_release(&sp);
    qr_buf_release(&gp);
    return hit;
}

/* ---- a clean file's text without git ----
 * get_definition prints a definition's text from its blob. A file the listing found
 * clean is on disk too; its bytes are the blob's when they hash to the blob's id (no
 * filter such as autocrlf changed them), which is checked: SHA-1 of "blob LEN\0" and the
 * bytes, as git names a blob (FIPS 180-4). */

static uint32_t rol(uint32_t x, int n)
{
    return (x << n) | (x >> (32 - n));
}

typedef struct sha1 {
    uint32_t h[5];
    unsigned char blk[64];
    size_t nblk;
    uint64_t len;
} sha1;

/* one round: the schedule word w[i] (kept as a ring of 16), f and k of the round's group */
#define SHA1_W(i)                                                                              \
    (i < 16 ? w[i]                                                                             \
            : (w[i & 15] = rol(w[(i + 13) & 15] ^ w[(i + 8) & 15] ^ w[(i + 2) & 15] ^ w[i & 15], 1)))
#define SHA1_ROUND(i, f, k)                                                                    \
    do {                                                                                       \
        uint32_t t = rol(a, 5) + (f) + e + (k) + SHA1_W(i);                                    \
        e = d;                                                                                 \
        d = c;                                                                                 \
        c = rol(b, 30);                                                                        \
        b = a;                                                                                 \
        a = t;                                                                                 \
    } while (0)

static void sha1_block(sha1 *s, const unsigned char *p)
{
    uint32_t w[16];
    for (int i = 0; i < 16; i++)
        w[i] = (uint32_t)p[4 * i] << 24 | (uint32_t)p[4 * i + 1] << 16 |
               (uint32_t)p[4 * i + 2] << 8 | (uint32_t)p[4 * i + 3];
    uint32_t a = s->h[0], b = s->h[1], c = s->h[2], d = s->h[3], e = s->h[4];
    for (int i = 0; i < 20; i++)
        SHA1_ROUND(i, (b & c) | (~b & d), 0x5a827999u);
    for (int i = 20; i < 40; i++)
        SHA1_ROUND(i, b ^ c ^ d, 0x6ed9eba1u);
    for (int i = 40; i < 60; i++)
        SHA1_ROUND(i, (b & c) | (b & d) | (c & d), 0x8f1bbcdcu);
    for (int i = 60; i < 80; i++)
        SHA1_ROUND(i, b ^ c ^ d, 0xca62c1d6u);
    s->h[0] += a;
    s->h[1] += b;
    s->h[2] += c;
    s->h[3] += d;
    s->h[4] += e;
}

static void sha1_put(sha1 *s, const void *data, size_t n)
{
    const unsigned char *p = data;
    s->len += n;
    while (n) {
        if (s->nblk == 0 && n >= 64) {
            sha1_block(s, p);
            p += 64;
            n -= 64;
            continue;
        }
        size_t take = 64 - s->nblk < n ? 64 - s->nblk : n;
        memcpy(s->blk + s->nblk, p, take);
        s->nblk += take;
        p += take;
        n -= take;
        if (s->nblk == 64) {
            sha1_block(s, s->blk);
            s->nblk = 0;
        }
    }
}

static void sha1_hex(sha1 *s, char out[41])
{
    uint64_t bits = s->len * 8;
    unsigned char pad = 0x80, zero = 0, lenb[8];
    sha1_put(s, &pad, 1);
    while (s->nblk != 56)
        sha1_put(s, &zero, 1);
    for (int i = 0; i < 8; i++)
        lenb[i] = (unsigned char)(bits >> (56 - 8 * i));
    sha1_put(s, lenb, 8);
    for (int i = 0; i < 5; i++)
        snprintf(out + 8 * i, 9, "%08x", s->h[i]);
}

void qr__code_blob_id(const char *data, size_t len, char out[41])
{
    sha1 s = {.h = {0x67452301u, 0xefcdab89u, 0x98badcfeu, 0x10325476u, 0xc3d2e1f0u}};
    char head[32];
    int hl = snprintf(head, sizeof head, "blob %zu", len);
    sha1_put(&s, head, (size_t)hl + 1);
    sha1_put(&s, data, len);
    sha1_hex(&s, out);
}

/* ---- find_references kept beside the graph ----
 * The identifier uses (the store's names rows, three quarters of all references) are not
 * in the kept graph: most questions never read them. The first find_references of a graph
 * reads them all from the store and scans; it then keeps every reference it scanned
 * beside the graph (<key>.refs), in the scan's order grouped by name, so the next process
 * finds a name's rows by binary search in a mapped file, in the order the scan gives. */

#define REFS_MAGIC 0x46455251u /* "QREF" */

typedef struct refs_hdr {
    uint32_t magic, version, keylen, nrecs, strtab, total;
} refs_hdr;

typedef struct rec {
    uint32_t name, from, cond, file, line, kind, seq, pad;
} rec;

static const char *refs_strs; /* the string table the comparator reads */

static int cmp_rec(const void *a, const void *b)
{
    const rec *x = a, *y = b;
    int c = strcmp(refs_strs + x->name, refs_strs + y->name);
    if (c)
        return c;
    return (x->seq > y->seq) - (x->seq < y->seq);
}

static void refs_path(const qr_code_graph *g, const qr_buf *key, qr_buf *p)
{
    cache_dir(g, p);
    qr_buf_printf(p, "/%016llx.refs", (unsigned long long)fnv64(key->p, key->len));
}

void qr__code_refs_keep(const qr_code_graph *g)
{
    if (cache_off() || !g->cache_buf)
        return;
    qr_buf key, path, out, tmp;
    qr_buf_init(&key);
    qr_buf_init(&path);
    qr_buf_init(&out);
    qr_buf_init(&tmp);
    strtab t = {0};
    qr_buf_init(&t.b);
    rec *recs = NULL;
    size_t n = 0, cap = 0;
    make_key(g, &key);
    refs_path(g, &key, &path);
    for (size_t i = 0; i < g->nfiles; i++) {
        const gfile *f = &g->files[i];
        if (f->status < 0 || f->deleted)
            continue;
        if (f->status == QR_CODE_BLOB_OK && !f->names_loaded)
            goto done; /* the scan did not read them all */
        size_t a = 0, b = 0;
        while (a < f->file.nrefs || b < f->nnames) {
            const qr_code_ref *ref;
            if (b >= f->nnames || (a < f->file.nrefs && f->file.refs[a].line <= f->names[b].line))
                ref = &f->file.refs[a++];
            else
                ref = &f->names[b++];
            if (ref->kind == QR_CODE_REF_INCLUDE)
                continue;
            if (n == cap) {
                size_t nc = cap ? cap * 2 : 4096;
                rec *nr = realloc(recs, nc * sizeof *nr);
                if (!nr)
                    goto done;
                recs = nr;
                cap = nc;
            }
            rec r = {.name = intern(&t, ref->name),
                     .from = intern(&t, ref->from),
                     .cond = intern(&t, ref->cond),
                     .file = (uint32_t)i,
                     .line = ref->line,
                     .kind = (uint32_t)ref->kind,
                     .seq = (uint32_t)n};
            recs[n++] = r;
        }
    }
    if (t.failed || t.b.failed || key.failed || path.failed || n >= NOSTR)
        goto done;
    refs_strs = t.b.p ? t.b.p : "";
    qsort(recs, n, sizeof *recs, cmp_rec);
    refs_strs = NULL;
    refs_hdr h = {.magic = REFS_MAGIC, .version = GCACHE_VERSION, .keylen = (uint32_t)key.len,
                  .nrecs = (uint32_t)n};
    qr_buf_append(&out, (const char *)&h, sizeof h);
    qr_buf_append(&out, key.p, key.len);
    while (out.len % 8)
        qr_buf_putc(&out, 0);
    qr_buf_append(&out, (const char *)recs, n * sizeof *recs);
    h.strtab = (uint32_t)out.len;
    qr_buf_append(&out, t.b.p ? t.b.p : "", t.b.len);
    if (out.failed || out.len >= NOSTR)
        goto done;
    h.total = (uint32_t)out.len;
    memcpy(out.p, &h, sizeof h);
    (void)qr_write_file_atomic(path.p, out.p, out.len, 0644);
done:
    free(recs);
    free(t.slots);
    free(t.pk);
    free(t.pv);
    qr_buf_release(&t.b);
    qr_buf_release(&key);
    qr_buf_release(&path);
    qr_buf_release(&out);
    qr_buf_release(&tmp);
}

int qr__code_refs_kept(qr_code_graph *g, const char *name, qr__code_ref_fn row, void *ud,
                       bool *known)
{
    if (cache_off() || !g->cache_buf)
        return 0;
    qr_buf key, path;
    qr_buf_init(&key);
    qr_buf_init(&path);
    make_key(g, &key);
    refs_path(g, &key, &path);
    int answered = 0;
    char *m = NULL;
    size_t total = 0;
    if (!key.failed && !path.failed)
        m = map_kept(path.p, sizeof(refs_hdr), (size_t)NOSTR - 1, &total);
    if (!m)
        goto done;
    refs_hdr h;
    memcpy(&h, m, sizeof h);
    size_t off = sizeof h;
    if (h.magic != REFS_MAGIC || h.version != GCACHE_VERSION || h.total != total ||
        h.keylen != key.len || total - off < key.len || memcmp(m + off, key.p, key.len))
        goto done;
    off += (key.len + 7) & ~(size_t)7;
    if (off > total || (total - off) / sizeof(rec) < h.nrecs ||
        h.strtab != off + (size_t)h.nrecs * sizeof(rec) || h.strtab > total ||
        (h.strtab < total && m[total - 1] != 0))
        goto done;
    const rec *r = (const rec *)(m + off);
    const char *st = m + h.strtab;
    size_t stlen = total - h.strtab;
    for (uint32_t i = 0; i < h.nrecs; i++)
        if (r[i].name >= stlen)
            goto done;
    size_t lo = 0, hi = h.nrecs;
    while (lo < hi) {
        size_t mid = lo + (hi - lo) / 2;
        if (strcmp(st + r[mid].name, name) < 0)
            lo = mid + 1;
        else
            hi = mid;
    }
    for (size_t i = lo; i < h.nrecs && !strcmp(st + r[i].name, name); i++) {
        if (r[i].file >= g->nfiles || r[i].kind >= QR_CODE_REF_KIND_COUNT)
            goto done;
        *known = true;
        qr_code_ref ref = {.kind = (qr_code_ref_kind)r[i].kind,
                           .from = r[i].from < stlen ? st + r[i].from : NULL,
                           .name = st + r[i].name,
                           .cond = r[i].cond < stlen ? st + r[i].cond : NULL,
                           .line = r[i].line};
        row(ud, &g->files[r[i].file], &ref);
    }
    answered = 1;
done:
    if (m)
        munmap(m, total);
    qr_buf_release(&key);
    qr_buf_release(&path);
    return answered;
}

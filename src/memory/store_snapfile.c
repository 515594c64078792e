/*
 * store_snapfile.c: STORE.snapshot, the memory store's snapshot (memory.h) kept in a file
 * next to the store, so that a short-lived process (one `quarry mem query`) loads it with
 * one mapping instead of scanning a million rows of SQLite (0.25 s for 100k notes and 1M
 * links; the file takes a few ms).
 *
 * Layout (format version 2): native byte order (a byte-order word tells another machine's
 * file apart), a 128-byte header, then the snapshot's arrays back to back, widest element
 * first so that every array is aligned in a mapping or a malloc'd image and the snapshot
 * points into it:
 *
 *   header   "QRMEMSNP", u32 0x01020304, u32 format version, u32 schema version,
 *            u32 header size (128), u64 generation, u64 write id, u64 file length,
 *            u64 checksum, u32 counts: n, types, provenances, tag names, tag entries,
 *            adjacencies, agents, visit slots; u64 string bytes; zeros to 128
 *   8 bytes  id, created, modified, retrievals, uses, wrongs, weight (f64) [n];
 *            visit times [slots]
 *   4 bytes  key_len, content_len, provenance [n]; tag_off [n+1]; tag_ids [tag entries];
 *            off [n+1]; adj, w (f32) [adjacencies]; slots per agent [agents];
 *            visit nodes [slots]
 *   2 bytes  type [n]
 *   strings  each key then NUL (key_len bytes each), then the type, provenance, tag and
 *            agent names, each NUL-terminated, each list sorted
 *
 * Version 1 kept weights as f32: a weight of 0.50000001 read back as 0.5, so a filter
 * weight:>0.5 disagreed with the store. Weights are the store's doubles now.
 *
 * The visit tables are stored as they are in memory (open addressing, power-of-two slots),
 * so loading them is pointing at them. The key and id lookups are rebuilt (a pass over n).
 * The checksum is a four-lane 64-bit multiply-rotate hash over the whole file with its own
 * field read as zero (about 10 GB/s; qr_hash_bytes's single lane does a third of that).
 *
 * Trust: none. A file is used only when its header names the store's current generation
 * and write id, its length matches the counts, the checksum matches, and every value is
 * in range: ids ascending, weights in [0, 1], type, provenance and tag indexes in range,
 * every offset array (tag_off, off) from 0, non-decreasing, to its count, checked whole
 * before any loop reads through it (checking offset i + 1 only when node i's loop ends let
 * a hostile tag_off[1] walk the loop past the image), each node's tags and neighbours
 * strictly ascending, the graph passing qr_graph_check (neighbours < n, no self-loops,
 * strengths in (0, 1], symmetric), visit tables a power of two summing to the slot count
 * (checked before the slots are walked) and at most half full with nodes <= n, keys free
 * of NUL, names sorted and distinct, every string inside the string block. So a hostile
 * file that forges the checksum can make a snapshot say wrong things, never make the
 * reader or the algorithms step outside an array. The checks cost about as much as
 * reading the file.
 *
 * Reading maps the file (MAP_PRIVATE, read-only: a 25 MB read costs 10 to 20 ms, the
 * mapping under 1 ms) and validates it once, in place; it falls back to read(2) into a
 * malloc'd image when mapping fails. Validating once is sound only because the file never
 * changes under a mapping: quarry replaces it by rename(2), so a process holding a mapping
 * keeps the old inode. Someone who truncates or rewrites the file in place while a quarry
 * process has it mapped can crash that process (SIGBUS past the new end) or change values
 * after they were checked; docs/memory.md warns to replace it by rename or delete it.
 *
 * Writing: to a fresh name made by mkstemp(3) in the same directory (STORE.snapshot.tmp.
 * and six random characters, created with O_EXCL, so a symlink planted at a predictable
 * name is never followed), then fchmod to the store file's permission bits (the file holds
 * every key) and rename(2); no fsync (a torn file after a crash fails the length or the
 * checksum and is rebuilt).
 *
 * Rejected: copying the file into memory always (the copy and the fresh pages cost 10 to
 * 20 ms for 25 MB, the whole load is 12); storing the key and id hash tables (more to
 * validate, a few ms saved); storing each edge once and rebuilding both directions (a
 * second pass as costly as the SQL path's CSR build); compressing (reading 25 MB from the
 * page cache costs less than inflating it); a temporary name of the process id opened
 * with O_CREAT | O_TRUNC (followed a symlink planted there).
 */
#include "memory_int.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/mman.h>
#include <sys/stat.h>
#include <unistd.h>

#define MAGIC "QRMEMSNP"
#define BOM 0x01020304u
#define FORMAT_VERSION 2u
#define HEADER QR__SNAPFILE_HEADER

_Static_assert(QR__SNAPFILE_OFF_COUNTS + 8 * 4 + 8 <= HEADER, "header fields fit");
_Static_assert(sizeof(double) == 8 && sizeof(float) == 4, "f64 weights, f32 strengths");

/* ---- checksum ---- */

#define K1 0x9e3779b185ebca87ULL
#define K2 0xc2b2ae3d27d4eb4fULL

typedef struct sum_state {
    uint64_t v[4];
    uint64_t total;
    unsigned char pend[32];
    size_t npend;
} sum_state;

static inline uint64_t rotl(uint64_t x, int r)
{
    return (x << r) | (x >> (64 - r));
}

static inline uint64_t sum_round(uint64_t acc, uint64_t in)
{
    acc += in * K2;
    return rotl(acc, 31) * K1;
}

static void sum_init(sum_state *st)
{
    memset(st, 0, sizeof *st);
    st->v[0] = K1 + K2;
    st->v[1] = K2;
    st->v[2] = 0;
    st->v[3] = 0 - K1;
}

static void sum_blocks(sum_state *st, const unsigned char *p, size_t nblocks)
{
    uint64_t a = st->v[0], b = st->v[1], c = st->v[2], d = st->v[3];
    for (size_t k = 0; k < nblocks; k++, p += 32) {
        uint64_t w[4];
        memcpy(w, p, 32);
        a = sum_round(a, w[0]);
        b = sum_round(b, w[1]);
        c = sum_round(c, w[2]);
        d = sum_round(d, w[3]);
    }
    st->v[0] = a, st->v[1] = b, st->v[2] = c, st->v[3] = d;
}

static void sum_feed(sum_state *st, const void *data, size_t len)
{
    const unsigned char *p = data;
    st->total += len;
    if (st->npend) {
        size_t take = 32 - st->npend < len ? 32 - st->npend : len;
        memcpy(st->pend + st->npend, p, take);
        st->npend += take;
        p += take;
        len -= take;
        if (st->npend < 32)
            return;
        sum_blocks(st, st->pend, 1);
        st->npend = 0;
    }
    sum_blocks(st, p, len / 32);
    p += len / 32 * 32;
    len %= 32;
    memcpy(st->pend, p, len);
    st->npend = len;
}

static uint64_t sum_final(const sum_state *st)
{
    uint64_t h = rotl(st->v[0], 1) + rotl(st->v[1], 7) + rotl(st->v[2], 12) + rotl(st->v[3], 18);
    h ^= st->total * K1;
    unsigned char tail[32] = {0};
    memcpy(tail, st->pend, st->npend);
    for (size_t k = 0; k < st->npend; k += 8) {
        uint64_t w;
        memcpy(&w, tail + k, 8);
        h = sum_round(h ^ w, w + k);
    }
    return qr_hash_mix(h);
}

/* The checksum of a file image (header's own field read as zero); len >= HEADER. */
static uint64_t image_sum(const char *buf, size_t len)
{
    sum_state st;
    sum_init(&st);
    static const char zero[8];
    sum_feed(&st, buf, QR__SNAPFILE_OFF_SUM);
    sum_feed(&st, zero, 8);
    sum_feed(&st, buf + QR__SNAPFILE_OFF_SUM + 8, len - QR__SNAPFILE_OFF_SUM - 8);
    return sum_final(&st);
}

void qr__mem_snapfile_seal(char *buf, size_t len)
{
    if (len < HEADER)
        return;
    uint64_t h = image_sum(buf, len);
    memcpy(buf + QR__SNAPFILE_OFF_SUM, &h, 8);
}

/* ---- layout ---- */

typedef struct counts {
    uint32_t n, ntypes, nprov, ntagn, ntags, nadj, nagents, nvslots;
    uint64_t nstr;
} counts;

typedef struct layout {
    uint64_t id, created, modified, retr, uses, wrongs, weight, vtime;
    uint64_t key_len, clen, prov, tag_off, tag_ids, off, adj, w, vslots, vnode;
    uint64_t type, str, end;
} layout;

/* Offsets of every array; counts are 32-bit, so nothing here can overflow 64 bits. */
static void layout_of(const counts *c, layout *l)
{
    uint64_t n = c->n, pos = HEADER;
#define PUT(field, bytes)                                                                          \
    do {                                                                                           \
        l->field = pos;                                                                            \
        pos += (bytes);                                                                            \
    } while (0)
    PUT(id, 8 * n);
    PUT(created, 8 * n);
    PUT(modified, 8 * n);
    PUT(retr, 8 * n);
    PUT(uses, 8 * n);
    PUT(wrongs, 8 * n);
    PUT(weight, 8 * n);
    PUT(vtime, 8 * (uint64_t)c->nvslots);
    PUT(key_len, 4 * n);
    PUT(clen, 4 * n);
    PUT(prov, 4 * n);
    PUT(tag_off, 4 * (n + 1));
    PUT(tag_ids, 4 * (uint64_t)c->ntags);
    PUT(off, 4 * (n + 1));
    PUT(adj, 4 * (uint64_t)c->nadj);
    PUT(w, 4 * (uint64_t)c->nadj);
    PUT(vslots, 4 * (uint64_t)c->nagents);
    PUT(vnode, 4 * (uint64_t)c->nvslots);
    PUT(type, 2 * n);
    PUT(str, c->nstr);
#undef PUT
    l->end = pos;
}

static uint32_t get32(const char *p)
{
    uint32_t v;
    memcpy(&v, p, 4);
    return v;
}

static uint64_t get64(const char *p)
{
    uint64_t v;
    memcpy(&v, p, 8);
    return v;
}

/* Checks what the header alone can tell, against the file's real length. */
static bool check_header(const char *h, uint64_t len, uint64_t gen, uint64_t wid, counts *c,
                         const char **why)
{
    if (len < HEADER || memcmp(h, MAGIC, 8)) {
        *why = "not a snapshot file";
        return false;
    }
    if (get32(h + 8) != BOM) {
        *why = "written on a machine of another byte order";
        return false;
    }
    if (get32(h + QR__SNAPFILE_OFF_VERSION) != FORMAT_VERSION || get32(h + 20) != HEADER) {
        *why = "another format version";
        return false;
    }
    if (get32(h + QR__SNAPFILE_OFF_SCHEMA) != QR_MEM_SCHEMA_VERSION) {
        *why = "another schema version";
        return false;
    }
    if (get64(h + QR__SNAPFILE_OFF_GENERATION) != gen) {
        *why = "stale: another generation";
        return false;
    }
    if (get64(h + QR__SNAPFILE_OFF_WRITE_ID) != wid) {
        *why = "stale: another write id";
        return false;
    }
    if (get64(h + QR__SNAPFILE_OFF_LENGTH) != len) {
        *why = "truncated or extended";
        return false;
    }
    const char *p = h + QR__SNAPFILE_OFF_COUNTS;
    c->n = get32(p);
    c->ntypes = get32(p + 4);
    c->nprov = get32(p + 8);
    c->ntagn = get32(p + 12);
    c->ntags = get32(p + 16);
    c->nadj = get32(p + 20);
    c->nagents = get32(p + 24);
    c->nvslots = get32(p + 28);
    c->nstr = get64(p + 32);
    for (const char *z = p + 40; z < h + HEADER; z++)
        if (*z) {
            *why = "header padding is not zero";
            return false;
        }
    /* bounds the SQL loader also enforces; the rest is bounded by the length */
    /* every key and name takes at least its NUL in the strings: this bounds the name
     * counts (which size allocations but not the layout) by the file's length */
    if (c->n >= UINT32_MAX / 4 || c->ntypes > 65536 || c->nstr > len ||
        (uint64_t)c->n + c->ntypes + c->nprov + c->ntagn + c->nagents > c->nstr) {
        *why = "counts out of range";
        return false;
    }
    layout l;
    layout_of(c, &l);
    if (l.end != len) {
        *why = "length does not match the counts";
        return false;
    }
    return true;
}

/* ---- reading ---- */

static bool bad(const char **why, const char *what)
{
    *why = what;
    return false;
}

/* Points names[0..count) at count NUL-terminated strings from str + *pos, checking they
 * lie inside, are sorted and distinct, and (unless may_be_empty) not empty. */
static bool take_names(const char *str, uint64_t nstr, uint64_t *pos, const char **names,
                       uint32_t count, bool may_be_empty)
{
    for (uint32_t k = 0; k < count; k++) {
        const char *b = str + *pos;
        const char *e = memchr(b, 0, nstr - *pos);
        if (!e || (e == b && !may_be_empty) || (k && strcmp(names[k - 1], b) >= 0))
            return false;
        names[k] = b;
        *pos = (uint64_t)(e - str) + 1;
    }
    return true;
}

/* An edge's contribution to the symmetry sums: two multiplies (qr_graph_check's hash,
 * as strong and twice the cost, would be a quarter of the load). */
static inline uint64_t edge_hash(uint32_t a, uint32_t b, uint32_t wbits)
{
    uint64_t x = ((((uint64_t)a << 32) | b) * K1) ^ wbits;
    x = (x ^ (x >> 29)) * K2;
    return x ^ (x >> 32);
}

/* Every check named at the top of the file, then the snapshot's pointers. */
static bool build(qr_mem_snapshot *s, char *buf, const counts *c, const char **why, int *rc)
{
    layout l;
    layout_of(c, &l);
    qr__snap_priv *p = s->priv;
    uint32_t n = c->n;
    const int64_t *id = (const int64_t *)(buf + l.id);
    const double *weight = (const double *)(buf + l.weight);
    const uint32_t *key_len = (const uint32_t *)(buf + l.key_len);
    const uint32_t *prov = (const uint32_t *)(buf + l.prov);
    const uint32_t *tag_off = (const uint32_t *)(buf + l.tag_off);
    const uint32_t *tag_ids = (const uint32_t *)(buf + l.tag_ids);
    const uint32_t *off = (const uint32_t *)(buf + l.off);
    const uint32_t *adj = (const uint32_t *)(buf + l.adj);
    const uint32_t *vslots = (const uint32_t *)(buf + l.vslots);
    const uint32_t *vnode = (const uint32_t *)(buf + l.vnode);
    const uint16_t *type = (const uint16_t *)(buf + l.type);
    const char *str = buf + l.str;

    /* the offset arrays, whole, before any loop reads through them: from 0 to their
     * counts without decreasing, so every range below lies inside its array */
    if (tag_off[0] != 0 || tag_off[n] != c->ntags || off[0] != 0 || off[n] != c->nadj)
        return bad(why, "offsets do not match the counts");
    for (uint32_t i = 0; i < n; i++)
        if (tag_off[i + 1] < tag_off[i] || off[i + 1] < off[i])
            return bad(why, "offsets decrease");
    const float *w = (const float *)(buf + l.w);
    uint64_t lo = 0, hi = 0; /* symmetry: each edge's hash summed from both of its ends */
    for (uint32_t i = 0; i < n; i++) {
        if (i && id[i] <= id[i - 1])
            return bad(why, "ids not ascending");
        if (!(weight[i] >= 0.0 && weight[i] <= 1.0))
            return bad(why, "weight out of range");
        if (type[i] >= c->ntypes || prov[i] >= c->nprov)
            return bad(why, "type or provenance index out of range");
        for (uint32_t k = tag_off[i]; k < tag_off[i + 1]; k++)
            if (tag_ids[k] >= c->ntagn || (k > tag_off[i] && tag_ids[k] <= tag_ids[k - 1]))
                return bad(why, "tag index out of range or not ascending");
        for (uint32_t k = off[i]; k < off[i + 1]; k++) {
            uint32_t v = adj[k];
            if (v >= n || v == i || (k > off[i] && v <= adj[k - 1]))
                return bad(why, "neighbour out of range, the node itself or not ascending");
            if (!(w[k] > 0.0f && w[k] <= 1.0f))
                return bad(why, "strength out of range");
            uint32_t wb;
            memcpy(&wb, &w[k], 4);
            if (i < v)
                lo += edge_hash(i, v, wb);
            else
                hi += edge_hash(v, i, wb);
        }
    }
    if (lo != hi)
        return bad(why, "graph not symmetric");
    qr_graph g = {.n = n, .off = off, .adj = adj, .w = w};

    /* visit tables */
    uint64_t vsum = 0;
    for (uint32_t a = 0; a < c->nagents; a++) {
        uint32_t slots = vslots[a];
        if (slots < 16 || slots > (1u << 31) || (slots & (slots - 1)))
            return bad(why, "visit table size is not a power of two");
        vsum += slots;
    }
    if (vsum != c->nvslots)
        return bad(why, "visit slots do not match the counts");
    for (uint64_t k = 0, a = 0, used = 0, end = c->nagents ? vslots[0] : 0; k < vsum; k++) {
        if (vnode[k] > n)
            return bad(why, "visit node out of range");
        used += vnode[k] != 0;
        if (k + 1 == end) {
            if (used > vslots[a] / 2)
                return bad(why, "visit table too full");
            used = 0;
            if (++a < c->nagents)
                end += vslots[a];
        }
    }

    /* strings */
    const char **key = qr__mem_snapshot_block(s, n, sizeof *key, false);
    const char **types = qr__mem_snapshot_block(s, c->ntypes, sizeof *types, false);
    const char **provs = qr__mem_snapshot_block(s, c->nprov, sizeof *provs, false);
    const char **tagn = qr__mem_snapshot_block(s, c->ntagn, sizeof *tagn, false);
    const char **agents = qr__mem_snapshot_block(s, c->nagents, sizeof *agents, false);
    qr_mem_visit_map *maps = qr__mem_snapshot_block(s, c->nagents, sizeof *maps, false);
    const qr_mem_visit_map **mapp = qr__mem_snapshot_block(s, c->nagents, sizeof *mapp, false);
    if (!key || !types || !provs || !tagn || !agents || !maps || !mapp) {
        *rc = QR_ENOMEM;
        return bad(why, "out of memory");
    }
    uint64_t pos = 0;
    for (uint32_t i = 0; i < n; i++) {
        uint64_t kl = key_len[i];
        if (kl >= c->nstr - pos || str[pos + kl] != 0 || memchr(str + pos, 0, kl))
            return bad(why, "key outside the strings or holding NUL");
        key[i] = str + pos;
        pos += kl + 1;
    }
    if (!take_names(str, c->nstr, &pos, types, c->ntypes, false) ||
        !take_names(str, c->nstr, &pos, provs, c->nprov, true) ||
        !take_names(str, c->nstr, &pos, tagn, c->ntagn, false) ||
        !take_names(str, c->nstr, &pos, agents, c->nagents, false))
        return bad(why, "names outside the strings, empty or not sorted");
    if (pos != c->nstr)
        return bad(why, "bytes left after the strings");

    uint64_t vpos = 0;
    for (uint32_t a = 0; a < c->nagents; a++) {
        maps[a].mask = vslots[a] - 1;
        maps[a].node = (uint32_t *)(buf + l.vnode) + vpos;
        maps[a].time = (int64_t *)(buf + l.vtime) + vpos;
        mapp[a] = &maps[a];
        vpos += vslots[a];
    }
    p->maps = maps;
    p->maps_borrowed = true;

    s->n = n;
    s->id = id;
    s->key = key;
    s->key_len = key_len;
    s->type = type;
    s->types = types;
    s->ntypes = c->ntypes;
    s->weight = weight;
    s->created = (const int64_t *)(buf + l.created);
    s->modified = (const int64_t *)(buf + l.modified);
    s->content_len = (const uint32_t *)(buf + l.clen);
    s->provenance = prov;
    s->provenances = provs;
    s->nprovenances = c->nprov;
    s->retrievals = (const int64_t *)(buf + l.retr);
    s->uses = (const int64_t *)(buf + l.uses);
    s->wrongs = (const int64_t *)(buf + l.wrongs);
    s->tag_off = tag_off;
    s->tag_ids = tag_ids;
    s->tag_names = tagn;
    s->ntag_names = c->ntagn;
    s->graph = g;
    s->agents = agents;
    s->nagents = c->nagents;
    s->visits = mapp;
    if (qr__mem_snapshot_index(s) != QR_OK) {
        *rc = QR_ENOMEM;
        return bad(why, "out of memory");
    }
    return true;
}

static void release_image(char *buf, size_t len, bool mapped)
{
    if (mapped)
        munmap(buf, len);
    else
        free(buf);
}

/* Checks and takes over an image: malloc'd, or mapped (munmap'd with the snapshot). */
static int parse_image(char *buf, size_t len, bool mapped, uint64_t generation, uint64_t write_id,
                       qr_mem_snapshot **out, const char **why)
{
    *out = NULL;
    *why = NULL;
    counts c;
    if (!check_header(buf, len, generation, write_id, &c, why)) {
        release_image(buf, len, mapped);
        return QR_ERUNTIME;
    }
    uint64_t h = get64(buf + QR__SNAPFILE_OFF_SUM);
    if (image_sum(buf, len) != h) {
        release_image(buf, len, mapped);
        *why = "checksum mismatch";
        return QR_ERUNTIME;
    }
    qr_mem_snapshot *s = qr__mem_snapshot_new();
    if (!s) {
        release_image(buf, len, mapped);
        *why = "out of memory";
        return QR_ENOMEM;
    }
    if (mapped) {
        qr__snap_priv *p = s->priv;
        p->map = buf;
        p->map_len = len;
    } else if (!qr__mem_snapshot_adopt(s, buf)) {
        qr__mem_snapshot_free(s);
        *why = "out of memory";
        return QR_ENOMEM;
    }
    int rc = QR_ERUNTIME;
    if (!build(s, buf, &c, why, &rc)) {
        /* the maps point into buf: the snapshot must not free them apart */
        qr__mem_snapshot_free(s);
        return rc;
    }
    qr__snap_priv *p = s->priv;
    p->from_file = true;
    p->write_id = write_id;
    s->generation = generation;
    *out = s;
    return QR_OK;
}

int qr__mem_snapfile_parse(char *buf, size_t len, uint64_t generation, uint64_t write_id,
                           qr_mem_snapshot **out, const char **why)
{
    return parse_image(buf, len, false, generation, write_id, out, why);
}

static bool read_all(int fd, char *p, size_t len)
{
    while (len) {
        ssize_t r = read(fd, p, len);
        if (r < 0 && errno == EINTR)
            continue;
        if (r <= 0)
            return false;
        p += r;
        len -= (size_t)r;
    }
    return true;
}

int qr__mem_snapfile_read(const char *path, uint64_t generation, uint64_t write_id,
                          qr_mem_snapshot **out, const char **why)
{
    *out = NULL;
    *why = NULL;
    int fd = open(path, O_RDONLY | O_CLOEXEC);
    if (fd < 0) {
        if (errno != ENOENT)
            *why = "cannot be opened";
        return QR_ERUNTIME;
    }
    struct stat sb;
    char head[HEADER];
    counts c;
    int rc = QR_ERUNTIME;
    if (fstat(fd, &sb) != 0 || !S_ISREG(sb.st_mode)) {
        *why = "not a regular file";
        goto done;
    }
    uint64_t len = (uint64_t)sb.st_size;
    if (len < HEADER || (uint64_t)(size_t)len != len || !read_all(fd, head, HEADER)) {
        *why = "not a snapshot file";
        goto done;
    }
    /* a stale or foreign file is told apart before reading the rest */
    if (!check_header(head, len, generation, write_id, &c, why))
        goto done;
    /* mapped: no copy, no fresh pages to fault in; read when mapping fails (see the top
     * of the file for why checking the mapping once is enough) */
    void *map = mmap(NULL, (size_t)len, PROT_READ, MAP_PRIVATE, fd, 0);
    if (map != MAP_FAILED) {
        close(fd);
        return parse_image(map, (size_t)len, true, generation, write_id, out, why);
    }
    char *buf = malloc((size_t)len);
    if (!buf) {
        *why = "out of memory";
        rc = QR_ENOMEM;
        goto done;
    }
    memcpy(buf, head, HEADER);
    if (!read_all(fd, buf + HEADER, (size_t)len - HEADER)) {
        free(buf);
        *why = "truncated or extended";
        goto done;
    }
    close(fd);
    return parse_image(buf, (size_t)len, false, generation, write_id, out, why);
done:
    close(fd);
    return rc;
}

/* ---- writing ---- */

bool qr__mem_snapfile_path(const qr_mem *m, char *buf, size_t cap)
{
    const char *p = m->path;
    if ((m->flags & QR_MEM_NO_SNAPSHOT_FILE) || !p || !*p || !strcmp(p, ":memory:"))
        return false;
    int k = snprintf(buf, cap, "%s.snapshot", p);
    return k > 0 && (size_t)k < cap;
}

typedef struct writer {
    FILE *f;
    sum_state sum;
    bool hashing; /* first pass: hash only; second: write only */
    bool ok;
} writer;

static void emit(writer *w, const void *p, size_t len)
{
    if (!len)
        return;
    if (w->hashing)
        sum_feed(&w->sum, p, len);
    else if (w->ok && fwrite(p, 1, len, w->f) != len)
        w->ok = false;
}

/* The body (everything after the header), in layout order. */
static void emit_body(writer *w, const qr_mem_snapshot *s, const qr_buf *str)
{
    const qr__snap_priv *p = s->priv;
    size_t n = s->n;
    emit(w, s->id, n * 8);
    emit(w, s->created, n * 8);
    emit(w, s->modified, n * 8);
    emit(w, s->retrievals, n * 8);
    emit(w, s->uses, n * 8);
    emit(w, s->wrongs, n * 8);
    emit(w, s->weight, n * 8);
    for (uint32_t a = 0; a < s->nagents; a++)
        emit(w, p->maps[a].time, ((size_t)p->maps[a].mask + 1) * 8);
    emit(w, s->key_len, n * 4);
    emit(w, s->content_len, n * 4);
    emit(w, s->provenance, n * 4);
    emit(w, s->tag_off, (n + 1) * 4);
    emit(w, s->tag_ids, (size_t)s->tag_off[n] * 4);
    emit(w, s->graph.off, (n + 1) * 4);
    emit(w, s->graph.adj, (size_t)s->graph.off[n] * 4);
    emit(w, s->graph.w, (size_t)s->graph.off[n] * 4);
    for (uint32_t a = 0; a < s->nagents; a++) {
        uint32_t slots = p->maps[a].mask + 1;
        emit(w, &slots, 4);
    }
    for (uint32_t a = 0; a < s->nagents; a++)
        emit(w, p->maps[a].node, ((size_t)p->maps[a].mask + 1) * 4);
    emit(w, s->type, n * 2);
    emit(w, str->p, str->len);
}

static void put_names(qr_buf *b, const char *const *names, uint32_t count)
{
    for (uint32_t k = 0; k < count; k++)
        qr_buf_append(b, names[k], strlen(names[k]) + 1);
}

int qr__mem_snapfile_write(const qr_mem_snapshot *s, const char *path, const char *store_path)
{
    const qr__snap_priv *p = s->priv;
    struct stat sb;
    if (stat(store_path, &sb) != 0)
        return QR_EIO;
    qr_buf str;
    qr_buf_init(&str);
    for (uint32_t i = 0; i < s->n; i++)
        qr_buf_append(&str, s->key[i], (size_t)s->key_len[i] + 1);
    put_names(&str, s->types, s->ntypes);
    put_names(&str, s->provenances, s->nprovenances);
    put_names(&str, s->tag_names, s->ntag_names);
    put_names(&str, s->agents, s->nagents);
    uint64_t vslots = 0;
    for (uint32_t a = 0; a < s->nagents; a++)
        vslots += (uint64_t)p->maps[a].mask + 1;
    if (str.failed || vslots > UINT32_MAX) {
        qr_buf_release(&str);
        return str.failed ? QR_ENOMEM : QR_EIO;
    }
    counts c = {.n = s->n,
                .ntypes = s->ntypes,
                .nprov = s->nprovenances,
                .ntagn = s->ntag_names,
                .ntags = s->tag_off[s->n],
                .nadj = s->graph.off[s->n],
                .nagents = s->nagents,
                .nvslots = (uint32_t)vslots,
                .nstr = str.len};
    layout l;
    layout_of(&c, &l);
    char head[HEADER] = {0};
    uint32_t u32;
    memcpy(head, MAGIC, 8);
    u32 = BOM, memcpy(head + 8, &u32, 4);
    u32 = FORMAT_VERSION, memcpy(head + QR__SNAPFILE_OFF_VERSION, &u32, 4);
    u32 = QR_MEM_SCHEMA_VERSION, memcpy(head + QR__SNAPFILE_OFF_SCHEMA, &u32, 4);
    u32 = HEADER, memcpy(head + 20, &u32, 4);
    memcpy(head + QR__SNAPFILE_OFF_GENERATION, &s->generation, 8);
    memcpy(head + QR__SNAPFILE_OFF_WRITE_ID, &p->write_id, 8);
    memcpy(head + QR__SNAPFILE_OFF_LENGTH, &l.end, 8);
    uint32_t cv[8] = {c.n, c.ntypes, c.nprov, c.ntagn, c.ntags, c.nadj, c.nagents, c.nvslots};
    memcpy(head + QR__SNAPFILE_OFF_COUNTS, cv, sizeof cv);
    memcpy(head + QR__SNAPFILE_OFF_COUNTS + 32, &c.nstr, 8);

    /* pass one: the checksum (the header with its field zero, then the body) */
    writer w = {.hashing = true, .ok = true};
    sum_init(&w.sum);
    sum_feed(&w.sum, head, HEADER);
    emit_body(&w, s, &str);
    uint64_t h = sum_final(&w.sum);
    memcpy(head + QR__SNAPFILE_OFF_SUM, &h, 8);

    /* pass two: the file, under a fresh name (O_EXCL: never through a planted symlink) */
    char tmp[4200];
    int k = snprintf(tmp, sizeof tmp, "%s.tmp.XXXXXX", path);
    int fd = k > 0 && (size_t)k < sizeof tmp ? mkstemp(tmp) : -1;
    int rc = QR_EIO;
    if (fd >= 0 && (fcntl(fd, F_SETFD, FD_CLOEXEC) != 0 || fchmod(fd, sb.st_mode & 0666) != 0)) {
        close(fd);
        unlink(tmp);
        fd = -1;
    }
    if (fd >= 0 && (w.f = fdopen(fd, "wb"))) {
        w.hashing = false;
        emit(&w, head, HEADER);
        emit_body(&w, s, &str);
        if (fclose(w.f) != 0)
            w.ok = false;
        if (w.ok && rename(tmp, path) == 0)
            rc = QR_OK;
        else
            unlink(tmp);
    } else if (fd >= 0) {
        close(fd);
        unlink(tmp);
    }
    qr_buf_release(&str);
    return rc;
}

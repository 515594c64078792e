/*
 * quarry/value.h: the immutable data model shared by every layer, and its readers and
 * printers (EDN, the Lisp reader syntax, JSON).
 *
 * A qr_val is a 16-byte tagged struct passed by value. Scalars live in it; strings,
 * symbols, collections, functions and regexes point to blocks in an arena. Values never
 * change once built. Constructors allocate from the arena they are given; when the arena
 * refuses (cap reached) they return nil and leave the arena's sticky `exhausted` flag set,
 * so a caller checks once at its boundary (or installs arena->on_exhausted to unwind).
 *
 * Vectors and maps share their backing buffer with the value they were built from when
 * they extend it at its end (conj/assoc of a new key), so building one element at a time
 * is amortized O(1) without any mutable state being visible: each value keeps its own
 * length and never sees elements past it.
 *
 * Keywords and symbols are interned in a process-wide table (up to a cap; past it they
 * are allocated in the arena and compared by content, so interning is only a speed-up).
 */
#ifndef QUARRY_VALUE_H
#define QUARRY_VALUE_H

#include "quarry/base.h"

typedef enum qr_type {
    QR_T_NIL = 0,
    QR_T_BOOL,
    QR_T_INT,
    QR_T_DOUBLE,
    QR_T_STR,
    QR_T_KW,
    QR_T_SYM,
    QR_T_LIST,  /* a vector printed with parens: quoted code and (list ...) */
    QR_T_VEC,
    QR_T_MAP,
    QR_T_SET,
    QR_T_FN,    /* opaque to this layer; points to a struct starting with qr_fnhdr */
    QR_T_REGEX,
    QR_T_VAR,
    QR_T_LAZY,  /* a generator ((range), (repeat x)): starts with a qr_lazyhdr */
} qr_type;

typedef struct qr_str {
    uint32_t len;    /* bytes, excluding the terminating NUL */
    uint32_t nchars; /* code points */
    uint64_t hash;   /* 0 until computed */
    char data[];     /* UTF-8, NUL-terminated */
} qr_str;

typedef struct qr_sym {
    uint64_t hash;
    uint32_t len;    /* of the whole text, "ns/name" */
    uint32_t ns_len; /* 0 when there is no namespace; else the name starts at ns_len + 1 */
    bool interned;
    char text[];     /* NUL-terminated */
} qr_sym;

typedef struct qr_vbuf {
    uint32_t used, cap;
    struct qr_val *items;
} qr_vbuf;

typedef struct qr_mbuf {
    uint32_t used, cap;  /* entries */
    uint32_t mask;       /* index size - 1, or 0 when there is no index */
    struct qr_val *kv;   /* 2 * cap values: key, value, key, value, ... */
    uint32_t *index;     /* open addressing: entry number + 1, 0 = empty */
} qr_mbuf;

/* A collection view: vector, list, map or set. */
typedef struct qr_coll {
    uint32_t len;
    uint32_t depth; /* nesting depth: 1 + the deepest element collection */
    uint32_t off;   /* vectors: first item in buf */
    uint32_t line, col; /* where the reader found it (lists and vectors), 0 when built */
    bool sorted;    /* maps and sets: entries kept in qr_compare order of their keys */
    union {
        qr_vbuf *vbuf; /* vectors and lists */
        qr_mbuf *mbuf; /* maps and sets (sets store key = value) */
    };
} qr_coll;

typedef struct qr_fnhdr {
    const char *name; /* for printing; may be NULL for anonymous functions */
    uint8_t kind;     /* owned by the layer that defines functions */
} qr_fnhdr;

typedef struct qr_regex {
    const qr_str *source;
    void *code; /* pcre2_code_8 * */
} qr_regex;

typedef struct qr_var {
    const qr_sym *sym;
} qr_var;

typedef struct qr_val {
    uint8_t t;    /* qr_type */
    uint8_t pad_;
    uint16_t dep; /* collections: their nesting depth, copied from the view so building a
                   * collection of records never has to load each record to learn it */
    union {
        bool b;
        int64_t i;
        double d;
        const qr_str *s;
        const qr_sym *sym; /* keywords and symbols */
        const qr_coll *c;
        const qr_fnhdr *fn;
        const qr_regex *re;
        const qr_var *var;
        const void *p;
    };
} qr_val;

/* Deepest nesting of collections a value may have; deeper construction fails. Bounded so
 * that printing, equality and hashing (which recurse) cannot exhaust the C stack. */
#define QR_MAX_DEPTH 1000

/* ---- scalars ---- */
static inline qr_val qr_nil(void)
{
    qr_val v = {.t = QR_T_NIL, .i = 0};
    return v;
}
static inline qr_val qr_bool(bool b)
{
    qr_val v = {.t = QR_T_BOOL, .i = 0};
    v.b = b;
    return v;
}
static inline qr_val qr_int(int64_t i)
{
    qr_val v = {.t = QR_T_INT, .i = i};
    return v;
}
static inline qr_val qr_double(double d)
{
    qr_val v = {.t = QR_T_DOUBLE, .d = d};
    return v;
}
static inline bool qr_is_nil(qr_val v)
{
    return v.t == QR_T_NIL;
}
/* Clojure truthiness: everything but nil and false. */
static inline bool qr_truthy(qr_val v)
{
    return !(v.t == QR_T_NIL || (v.t == QR_T_BOOL && !v.b));
}
static inline bool qr_is_seqcoll(qr_val v)
{
    return v.t == QR_T_VEC || v.t == QR_T_LIST;
}
/* The head of every QR_T_LAZY record. An unbounded generator is opaque to this layer
 * (bounded false). A bounded one is the `count` integers start, start + step, ... (a
 * range realised on demand): this layer prints, compares and hashes it as the list of
 * those integers, so it is equal to the vector or list it stands for. */
typedef struct qr_lazyhdr {
    bool bounded;
    uint64_t count;
    int64_t start, step;
} qr_lazyhdr;
static inline bool qr_is_range(qr_val v)
{
    return v.t == QR_T_LAZY && ((const qr_lazyhdr *)v.p)->bounded;
}
/* Item i of a bounded range (i < count, so it cannot overflow). */
static inline int64_t qr_range_at(qr_val v, uint64_t i)
{
    const qr_lazyhdr *h = (const qr_lazyhdr *)v.p;
    return (int64_t)((uint64_t)h->start + (uint64_t)h->step * i);
}
static inline uint64_t qr_range_len(qr_val v)
{
    return ((const qr_lazyhdr *)v.p)->count;
}

static inline bool qr_is_number(qr_val v)
{
    return v.t == QR_T_INT || v.t == QR_T_DOUBLE;
}
const char *qr_type_name(qr_type t); /* "string", "vector", ... */

/* ---- strings, keywords, symbols ---- */
/* Copies s[0..n). */
qr_val qr_str_new(qr_arena *a, const char *s, size_t n);
static inline qr_val qr_str_cstr(qr_arena *a, const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return qr_str_new(a, s, n);
}
/* Allocates an uninitialized string of n bytes for the caller to fill, then call
 * qr_str_seal to count code points. */
qr_str *qr_str_alloc(qr_arena *a, size_t n);
qr_val qr_str_seal(qr_str *s);
uint64_t qr_str_hash(const qr_str *s);
/* Text without the leading ':' ("ns/name" or "name"). */
qr_val qr_kw(qr_arena *a, const char *s, size_t n);
qr_val qr_symbol(qr_arena *a, const char *s, size_t n);
static inline qr_val qr_kw_cstr(qr_arena *a, const char *s)
{
    size_t n = 0;
    while (s[n])
        n++;
    return qr_kw(a, s, n);
}
/* Name part (after the '/'), and namespace part (NULL, 0 when none). */
static inline const char *qr_sym_name(const qr_sym *s, size_t *n)
{
    size_t off = s->ns_len ? s->ns_len + 1 : 0;
    *n = s->len - off;
    return s->text + off;
}
bool qr_sym_eq(const qr_sym *a, const qr_sym *b);
/* True when s[0..n) can be written as a keyword and read back (JSON keys). */
bool qr_kw_valid(const char *s, size_t n);

/* ---- vectors and lists ---- */
qr_val qr_vec_empty(qr_type t); /* t is QR_T_VEC or QR_T_LIST */
qr_val qr_vec_from(qr_arena *a, qr_type t, const qr_val *items, size_t n);
/* Appends x (shares the buffer when v ends at its end). */
qr_val qr_vec_conj(qr_arena *a, qr_val v, qr_val x);
/* Items from..to of v (shares the buffer). */
qr_val qr_vec_slice(qr_arena *a, qr_val v, size_t from, size_t to);
static inline size_t qr_vec_len(qr_val v)
{
    return v.c->len;
}
static inline const qr_val *qr_vec_items(qr_val v)
{
    return v.c->len ? v.c->vbuf->items + v.c->off : NULL;
}
static inline qr_val qr_vec_at(qr_val v, size_t i)
{
    return v.c->vbuf->items[v.c->off + i];
}
/* Replaces item i (copies). */
qr_val qr_vec_assoc(qr_arena *a, qr_val v, size_t i, qr_val x);

/* A builder: push items, then finish once. Memory comes from the arena. */
typedef struct qr_vecb {
    qr_arena *a;
    qr_vbuf *buf;
    uint32_t depth;
} qr_vecb;
void qr_vecb_init(qr_vecb *b, qr_arena *a, size_t hint);
void qr_vecb_push(qr_vecb *b, qr_val x);
qr_val qr_vecb_finish(qr_vecb *b, qr_type t);

/* ---- maps and sets (insertion-ordered) ---- */
qr_val qr_map_empty(void);
qr_val qr_set_empty(void);
/* An empty sorted map or set (t): assoc, conj, dissoc and disj keep its entries in
 * qr_compare order of their keys (a key no other key compares with goes last). */
qr_val qr_sorted_empty(qr_type t);
static inline bool qr_is_sorted(qr_val v)
{
    return (v.t == QR_T_MAP || v.t == QR_T_SET) && v.c->sorted;
}
static inline size_t qr_map_len(qr_val m)
{
    return m.c->len;
}
static inline qr_val qr_map_key_at(qr_val m, size_t i)
{
    return m.c->mbuf->kv[2 * i];
}
static inline qr_val qr_map_val_at(qr_val m, size_t i)
{
    return m.c->mbuf->kv[2 * i + 1];
}
/* Exact key lookup (by =). Returns true and sets *out when found. Works on sets. */
bool qr_map_get(qr_val m, qr_val key, qr_val *out);
/* Like qr_map_get, but a keyword key that is absent falls back to the string of the same
 * name, and a string key to the keyword (tool results arrive as JSON). */
bool qr_map_lookup(qr_val m, qr_val key, qr_val *out);
/* qr_map_lookup that first tries the entry at *hint (comparing keys by identity) and
 * stores where it found the key: records of one shape are then read with one probe. */
bool qr_map_lookup_hint(qr_val m, qr_val key, uint32_t *hint, qr_val *out);
/* Index of key in m, or -1. */
long qr_map_find(qr_val m, qr_val key);
qr_val qr_map_assoc(qr_arena *a, qr_val m, qr_val key, qr_val val);
qr_val qr_map_dissoc(qr_arena *a, qr_val m, qr_val key);
qr_val qr_set_conj(qr_arena *a, qr_val s, qr_val x);
qr_val qr_set_disj(qr_arena *a, qr_val s, qr_val x);
static inline bool qr_set_has(qr_val s, qr_val x)
{
    return qr_map_find(s, x) >= 0;
}

/* Builder for maps and sets: later puts of an existing key replace its value in place
 * (keeping its position). */
typedef struct qr_mapb {
    qr_arena *a;
    qr_mbuf *buf;
    uint32_t depth;
} qr_mapb;
void qr_mapb_init(qr_mapb *b, qr_arena *a, size_t hint);
/* Returns the entry index of key (existing or new). */
size_t qr_mapb_put(qr_mapb *b, qr_val key, qr_val val);
/* Pointer to the value slot of key, or NULL when absent. Valid until the next put. */
qr_val *qr_mapb_slot(qr_mapb *b, qr_val key);
/* The value is a compact copy: the builder keeps its buffer, and qr_mapb_reuse empties it
 * for the next map (readers building many maps reuse one builder per nesting level). */
qr_val qr_mapb_finish(qr_mapb *b, qr_type t); /* QR_T_MAP or QR_T_SET */
void qr_mapb_reuse(qr_mapb *b);

/* ---- work metering ----
 * Printing, equality, hashing and ordering recurse over values whose parts may be shared:
 * (reduce (fn [a _] [a a]) [] (range 60)) is a few kilobytes but has 2^60 leaves, so the
 * work of these functions is not bounded by the size of their input. They count it on the
 * meter installed on the calling thread (none installed: nothing is counted or checked).
 * A unit is one value visited or one item of a collection walked.
 *
 * Each time `left` drops to 0 or below, they call check(m), which refills `left` and
 * returns true to stop the work (a limit was reached or the work was interrupted):
 *  - equality, hashing and ordering allocate nothing, so check may leave them with
 *    longjmp (the Lisp does, raising its limit error there);
 *  - printing holds malloc'd buffers of its caller, so while it runs it raises m->soft,
 *    and check must then return true instead of jumping: the printer stops as if it had
 *    reached its byte limit and reports QR_PRINT_STOPPED.
 * A host that calls code it does not own while a meter is installed (a tool) uninstalls
 * it around the call. */
typedef struct qr_meter qr_meter;
struct qr_meter {
    int64_t left;               /* units before the next check */
    bool (*check)(qr_meter *m); /* refills left; true: stop */
    void *ud;
    int soft;                   /* nonzero while a printer runs: check must not jump */
};
/* The meter of the calling thread (NULL: none). */
extern _Thread_local qr_meter *qr_meter_current;
/* Installs m (NULL: none) on the calling thread and returns the one it replaces. */
qr_meter *qr_meter_install(qr_meter *m);
/* Counts n units; true when the meter says stop (only ever when it is soft). */
static inline bool qr_meter_tick(size_t n)
{
    qr_meter *m = qr_meter_current;
    if (!m)
        return false;
    m->left -= (int64_t)n;
    return m->left <= 0 && m->check(m);
}

/* ---- equality, hashing, ordering (Clojure semantics) ---- */
/* (= a b): 1 and 1.0 differ; lists equal vectors with equal items; maps and sets by
 * content; functions by identity. */
bool qr_equal(qr_val a, qr_val b);
/* (== a b) on numbers. */
bool qr_num_equal(qr_val a, qr_val b);
uint64_t qr_hash(qr_val v);
/* (compare a b): sets *out to -1, 0 or 1. Returns false when the two cannot be compared
 * (different kinds, or maps, sets, functions). nil sorts before everything. */
bool qr_compare(qr_val a, qr_val b, int *out);
static inline double qr_to_double(qr_val v)
{
    return v.t == QR_T_INT ? (double)v.i : v.d;
}

/* ---- printing ---- */
enum {
    QR_PRINT_READABLY = 0, /* pr-str: strings quoted and escaped */
    QR_PRINT_DISPLAY = 1,  /* str/println: strings and characters raw */
};
/* Appends the printed form of v. Unbounded: for values known to print small (results a
 * sandbox has already measured with qr_print_max); anything else uses qr_print_max. */
void qr_print(qr_buf *b, qr_val v, int mode);
enum {
    QR_PRINT_DONE = 0,    /* the whole value was printed */
    QR_PRINT_CUT = 1,     /* it is longer than max: b holds at most max bytes of it */
    QR_PRINT_STOPPED = 2, /* the installed meter said stop (a limit, an interrupt) */
};
/* Appends at most max bytes of the printed form of v (cut at a character boundary), and
 * stops printing there: the work is bounded by max whatever v shares. b may be NULL to
 * only measure (then nothing is appended and nothing allocated). Returns QR_PRINT_*. */
int qr_print_max(qr_buf *b, qr_val v, int mode, size_t max);
/* qr_print_max(NULL, ...) that also says how long the printed form is: *len bytes (when
 * QR_PRINT_DONE; more than max when QR_PRINT_CUT). Lets a caller allocate the exact room
 * and print once into it (qr_buf_init_fixed). */
int qr_print_measure(qr_val v, int mode, size_t max, size_t *len);
/* pr-str of v cut to at most max bytes (at a character boundary, ending in "..."): the
 * form or value quoted in an error message. Its work is bounded by max. */
void qr_print_short(qr_buf *b, qr_val v, size_t max);
/* "string \"abc\"", "map {:a 1}", "nil": a value's type and short printed form, as error
 * messages describe what they found. */
void qr_describe(qr_buf *b, qr_val v);
/* Formats a double as Clojure prints it (1.0, 0.001, 1.0E10, ##Inf). */
void qr_print_double(qr_buf *b, double d);
/* JSON: keywords and symbols print as their names, sets as arrays, non-finite doubles as
 * null, functions and regexes as their printed form in a string. Map keys that are not
 * strings or keywords are printed (pr-str) into a string. pretty indents by 2. */
void qr_print_json(qr_buf *b, qr_val v, bool pretty);
/* qr_print_json stopping after max bytes, as qr_print_max does. Returns QR_PRINT_*. */
int qr_print_json_max(qr_buf *b, qr_val v, bool pretty, size_t max);

/* ---- reading ---- */
typedef struct qr_read_error {
    uint32_t line, col; /* 1-based */
    char msg[240];
} qr_read_error;

enum {
    QR_READ_EDN = 0,  /* data only */
    QR_READ_LISP = 1, /* also '#(...)', '#"re"', 'x, #'var, @x */
};
/* Reads every form in src[0..n) into a vector (*out). Returns QR_OK, QR_EINVAL (with err
 * filled in) or QR_ENOMEM. Nesting deeper than QR_MAX_DEPTH is a parse error. */
int qr_read_all(qr_arena *a, const char *src, size_t n, int flags, qr_val *out,
                qr_read_error *err);
/* Reads exactly one JSON value (RFC 8259; surrounding whitespace allowed). Objects become
 * maps with keyword keys when the key is a valid keyword, else string keys; integers that
 * fit in int64 become ints, other numbers doubles. */
int qr_json_read(qr_arena *a, const char *src, size_t n, qr_val *out, qr_read_error *err);
/* Like qr_json_read, but string values are allocated from `strings` (which must live as
 * long as a), keeping collections compact in a. */
int qr_json_read_split(qr_arena *a, qr_arena *strings, const char *src, size_t n, qr_val *out,
                       qr_read_error *err);

/* ---- regexes (PCRE2, UTF mode) ---- */
/* The limits every regex a model can write runs under (the sandbox's, shared by the Lisp
 * and the DWIM grep): backtracking steps per match, nested backtracking points, and the
 * backtracking heap in KiB (the Lisp narrows the heap to its memory limit). A match past
 * one of them fails with PCRE2_ERROR_MATCHLIMIT, _DEPTHLIMIT or _HEAPLIMIT. */
#define QR_REGEX_MATCH_LIMIT 1000000u
#define QR_REGEX_DEPTH_LIMIT 10000u
#define QR_REGEX_HEAP_KIB 65536u
/* Compiles pattern; on failure returns QR_EINVAL with a message in err->msg. The compiled
 * code is allocated from the arena. */
int qr_regex_compile(qr_arena *a, const char *pat, size_t n, qr_val *out, qr_read_error *err);

#endif

/*
 * query_int.h: what the files of the query compiler share: the compilation context (the
 * path into the query being checked, the problems found, the bindings and their shapes,
 * the checked steps), shapes of records, and the entry points of each file.
 *
 *   compile.c   reading, the top level (:fetch, :return), the program's layout, the API
 *   ops.c       the table of transform ops: one record each (keys, check, emit)
 *   expr.c      :where predicates, arithmetic expressions, literals
 *   template.c  {{...}} templates in strings
 *   shape.c     what records hold (from tool records and context data); field lookup
 *   problems.c  the path, problem records, their text and JSON forms, suggestions
 *   cache.c     the compiled-program cache
 *   reference.c the DSL reference a model reads (qr_query_reference)
 *
 * Every check takes the raw query value (EDN or JSON) and produces a canonical value
 * (keywords for names and fields, aliases resolved, sort keys as [field order] pairs), so
 * that emission reads only canonical values, and the printed canonical query is the
 * cache key.
 */
#ifndef QUARRY_QUERY_INT_H
#define QUARRY_QUERY_INT_H

#include "quarry/query.h"

#define QQ_PATH_MAX 64
#define QQ_PREFIX "q-" /* bindings are defined as q-NAME */

typedef struct qq_seg {
    const char *key; /* a map key, or NULL for an index */
    long index;
} qq_seg;

/* What the non-nil values of a field are. */
typedef enum qq_ftype {
    FT_ANY = 0, /* unknown or mixed */
    FT_NUM,
    FT_STR,
    FT_BOOL,
    FT_COLL,
    FT_NIL, /* only nil seen */
} qq_ftype;

typedef struct qq_field {
    const char *name;
    uint8_t type; /* qq_ftype */
    bool always;  /* present and non-nil in every record */
} qq_field;

/* What a binding holds. */
typedef enum qq_kind {
    SK_UNKNOWN = 0, /* anything */
    SK_SEQ,         /* a vector (of records when `records`) */
    SK_GROUP,       /* a map from group key to a vector of records (from :group) */
    SK_RECORD,      /* one map, or nil (from :first, :last, a tool returning a map) */
    SK_SCALAR,      /* a number, string, boolean or nil */
} qq_kind;

typedef struct qq_shape {
    uint8_t kind;     /* qq_kind */
    bool records;     /* SK_SEQ, SK_GROUP: the items are maps described by fields */
    bool closed;      /* fields lists every key the records have */
    qq_field *fields; /* arena */
    size_t nfields;
    qr_val by;          /* SK_GROUP: vector of the :by field keywords */
    const char *origin; /* for messages: "get_commits results", "context data/authors" */
} qq_shape;

typedef struct qq_binding {
    const char *name; /* as written (without ':') */
    const char *sym;  /* q-NAME, or data/NAME for the context */
    const char *at;   /* where it was defined: ":fetch[0]", ":transform[2]", "the context" */
    bool context;
    qq_shape shape;
} qq_binding;

/* Canonical values of a transform step, by key. */
typedef enum qq_key {
    QK_ON = 0, /* the input binding (join: the condition) */
    QK_WHERE,
    QK_BY,
    QK_ORDER,
    QK_N,
    QK_SELECT,
    QK_COMPUTE,
    QK_LEFT,
    QK_RIGHT,
    QK_TYPE,
    QK_COUNT,
} qq_key;

extern const char *const qq_key_names[QK_COUNT];

struct qq_op;

typedef struct qq_step {
    const struct qq_op *op; /* NULL for a fetch */
    const qr_tool *tool;    /* a fetch's tool */
    qr_val params;          /* a fetch's canonical params (map, declared order) */
    const char *path;       /* ":fetch[0]", ":transform[1]" */
    const char *as;         /* the binding it defines */
    qr_val keys[QK_COUNT];  /* canonical values; nil when absent */
    int in, in2;            /* input bindings (join: left, right); -1 when none */
    const char *note;       /* comment lines put before its def ("" for none) */
} qq_step;

typedef struct qq_ctx {
    qr_arena *a; /* scratch: canonical values, shapes, names */
    const qr_query_opts *o;
    bool json;
    /* the path to the part being checked */
    qq_seg path[QQ_PATH_MAX];
    size_t depth;
    /* problems, malloc'd (they outlive the arena) */
    qr_query_problem *probs;
    size_t nprobs, capprobs;
    bool oom;
    /* bindings: the context's first, then the query's in order */
    qq_binding *binds;
    size_t nbinds, capbinds;
    size_t nctx;    /* how many of them come from the context */
    size_t visible; /* bindings a name can refer to at this point of the query */
    /* checked steps */
    qq_step *steps;
    size_t nsteps;
    qr_val ret; /* canonical :return (nil when absent) */
    bool has_ret;
    bool has_resolved;
    qr_val resolved; /* the context's :resolved map */
    qr_buf note;     /* notes of the step being checked */
    /* every :as of the query with where it is, to tell "defined later" from "unknown" */
    const char **all_names;
    const char **all_at;
    size_t nall;
    /* emission */
    int tmp;       /* counter for let locals within one step */
    bool wrap;     /* emit the step over several lines (it is too long for one) */
    int where_col; /* > 0: put the operands of a top-level :and/:or on lines of their own,
                    * the predicate starting at this column */
} qq_ctx;

/* ---- problems.c ---- */
void qq_push_key(qq_ctx *c, const char *key);
void qq_push_index(qq_ctx *c, long i);
void qq_pop(qq_ctx *c);
/* The current path as text (arena). */
const char *qq_path_text(qq_ctx *c);
/* Records a problem at the current path. found: the value found (described with its
 * type), or NULL when `found_text` says it (e.g. "nothing"). */
void qq_problem(qq_ctx *c, const qr_val *found, const char *found_text, const char *expected,
                const char *hint, const char *fmt, ...) __attribute__((format(printf, 6, 7)));
/* printf into the arena. */
char *qq_fmt(qq_ctx *c, const char *fmt, ...) __attribute__((format(printf, 2, 3)));
/* v's type and printed form, cut short: "string \"50\"" (arena). */
const char *qq_describe(qq_ctx *c, qr_val v);
/* The printed form of v, cut short (arena). */
const char *qq_show(qq_ctx *c, qr_val v);
/* The closest of cands to s (by edit distance, small enough to be a typo), or NULL. */
const char *qq_suggest(const char *s, size_t n, const char *const *cands, size_t ncands);
/* "did you mean X?" when a suggestion exists, else `otherwise` (arena or static). */
const char *qq_did_you_mean(qq_ctx *c, const char *s, size_t n, const char *const *cands,
                            size_t ncands, const char *prefix, const char *otherwise);
void qq_problems_free(qr_query_problem *p, size_t n);

/* ---- names ---- */
/* A name given as a keyword or a string (JSON): sets *s, *n. */
bool qq_name_of(qr_val v, const char **s, size_t *n);
/* Looks a key up in a map by keyword, then by string. */
bool qq_get(qr_val m, const char *key, qr_val *out);
/* True when s is a valid binding name: [A-Za-z_][A-Za-z0-9_-]*, at most 64 bytes. */
bool qq_valid_binding(const char *s, size_t n);
qr_val qq_kw(qq_ctx *c, const char *s, size_t n);

/* ---- bindings (compile.c) ---- */
/* The binding named s[0..n), latest first, or -1. */
int qq_lookup(qq_ctx *c, const char *s, size_t n);
/* Resolves a reference to a binding that must exist (at the current path): reports a
 * problem naming the bindings there are and returns -1 when it does not. */
int qq_need_binding(qq_ctx *c, qr_val v, const char *what);

/* ---- shape.c ---- */
void qq_shape_unknown(qq_shape *s, const char *origin);
void qq_shape_from_tool(qq_ctx *c, const qr_tool *t, qq_shape *s);
void qq_shape_from_value(qq_ctx *c, qr_val v, const char *origin, qq_shape *s);
const qq_field *qq_field_find(const qq_shape *s, const char *name, size_t n);
/* Adds (or replaces) a field of a shape being built. */
void qq_shape_add(qq_ctx *c, qq_shape *s, const char *name, size_t n, uint8_t type, bool always);
/* Resolves a field reference (keyword or string) against the records of shape s: sets
 * *kw to the canonical keyword (an alias replaced by the field it names, with a note)
 * and *f to the field when known. Reports a problem and returns false when the records
 * are known not to have it. */
bool qq_resolve_field(qq_ctx *c, const qq_shape *s, qr_val v, qr_val *kw, const qq_field **f);
/* " :hash :author ..." listing the fields of s (arena), or "" when unknown. */
const char *qq_field_list(qq_ctx *c, const qq_shape *s);
const char *qq_ftype_name(uint8_t t);
/* Checks that binding b holds what an op needs: a sequence (of records when `records`),
 * or a group too when allow_group. Reports a problem and returns false when not. */
bool qq_need_seq(qq_ctx *c, const qq_binding *b, const char *op, bool records, bool allow_group);

/* ---- expr.c ---- */
/* Checks a :where predicate against the records of s; *out is the canonical form. */
bool qq_check_where(qq_ctx *c, const qq_shape *s, qr_val v, qr_val *out, int depth);
void qq_emit_where(qq_ctx *c, const qq_shape *s, qr_val w, const char *x, qr_buf *b);
/* Checks an expression (field, literal, arithmetic) of a :compute; *type is its type. */
bool qq_check_expr(qq_ctx *c, const qq_shape *s, qr_val v, qr_val *out, uint8_t *type, bool *always,
                   int depth);
void qq_emit_expr(qq_ctx *c, const qq_shape *s, qr_val e, const char *x, qr_buf *b);
/* Checks that v is plain data (nil, booleans, numbers, strings, keywords, and vectors,
 * maps and sets of them; lists become vectors): *out is the canonical form. */
bool qq_check_literal(qq_ctx *c, qr_val v, qr_val *out, int depth);
/* Prints a canonical literal as Lisp (templates in strings compiled). */
void qq_emit_literal(qq_ctx *c, qr_val v, qr_buf *b);
/* (:field x) for a field keyword. */
void qq_emit_field(qr_buf *b, qr_val kw, const char *x);
/* Prints a regex pattern as a #"..." literal that reads back as the same pattern. */
void qq_emit_regex(qr_buf *b, const char *p, size_t n);

/* ---- template.c ---- */
bool qq_has_template(const qr_str *s);
/* Checks the templates of a string (at the current path); *out is the canonical string
 * (aliased fields replaced). whole_value: set when the string is exactly one template
 * (its value is used as is, not as text). */
bool qq_check_template(qq_ctx *c, const qr_str *s, qr_val *out, bool *whole_value);
/* Emits a string: a literal, (str ...) of its parts, or the one template's value. */
void qq_emit_template(qq_ctx *c, const qr_str *s, qr_buf *b);

/* ---- ops.c ---- */
typedef struct qq_op {
    const char *name;
    const char *summary;
    const char *required; /* space-separated keys besides :op and :as */
    const char *optional;
    const char *example;
    /* checks the step's keys (raw values in raw[]), fills st->keys, st->in, st->in2 and
     * the shape of what it makes */
    bool (*check)(qq_ctx *c, qq_step *st, const qr_val *raw, const bool *has, qq_shape *out);
    /* appends the expression the step's def binds */
    void (*emit)(qq_ctx *c, const qq_step *st, qr_buf *b);
} qq_op;

const qq_op *qq_op_find(const char *name, size_t n);
size_t qq_op_count(void);
const qq_op *qq_op_at(size_t i);
/* Index of a key name in qq_key_names, or -1. */
int qq_key_index(const char *s, size_t n);

/* ---- emission helpers (compile.c) ---- */
const char *qq_sym(qq_ctx *c, int binding);
/* Copies a shape (its own field array, so the copy can grow). */
void qq_shape_copy(qq_ctx *c, qq_shape *dst, const qq_shape *src);

/* ---- cache.c ---- */
/* Fills out's program and steps from the cache when key (hash h) is there. */
bool qq_cache_get(qr_query_cache *k, uint64_t h, const char *key, qr_query_compiled *out);
/* Stores a copy of out's program and steps under key. */
void qq_cache_put(qr_query_cache *k, uint64_t h, const char *key, const qr_query_compiled *out);
/* Deep copy of steps (malloc); NULL with *ok false when out of memory. */
qr_query_step *qq_steps_dup(const qr_query_step *s, size_t n, bool *ok);
void qq_steps_free(qr_query_step *s, size_t n);

#endif

/*
 * lisp_int.h: what the interpreter's files share: the analyzed program (nodes), the
 * run context (qr_lx), the builtin record, and the helpers builtins use to check
 * arguments, call functions, walk sequences and raise errors.
 *
 * Errors inside a run unwind with longjmp to qr_lisp_run: every allocation of a run is in
 * the session arena, so nothing needs cleaning up on the way out, and builtins stay short
 * (no error code after every call). Nothing outside src/lisp ever sees a longjmp.
 */
#ifndef QUARRY_LISP_INT_H
#define QUARRY_LISP_INT_H

#include "quarry/lisp.h"

#include <setjmp.h>
#include <stdatomic.h>

typedef struct qr_lx qr_lx;
typedef struct node node;

typedef qr_val (*qr_builtin_fn)(qr_lx *lx, int argc, const qr_val *argv);

/* FN_COMBO: a builtin-backed function made at run time (comp, partial, juxt, ...); its
 * record is a qr_builtin followed by the combined values, and it finds them through
 * lx->cur_combo, which lx_apply sets before calling its body. */
enum { FN_BUILTIN = 1, FN_CLOSURE = 2, FN_COMBO = 3 };

/* A builtin function: a static record, usable directly as a function value. */
typedef struct qr_builtin {
    qr_fnhdr hdr;      /* hdr.name is the Lisp name; hdr.kind = FN_BUILTIN */
    qr_builtin_fn fn;
    int16_t min_args;
    int16_t max_args;  /* -1: variadic */
    const char *args;  /* usage, e.g. "[f coll]" */
    const char *doc;   /* one line */
    bool lazy_ok;      /* takes a bounded range as it is (else it gets the realised list) */
} qr_builtin;

#define QR_BUILTIN(lname, cfn, mn, mx, usage, docstr)                                        \
    {.hdr = {.name = lname, .kind = FN_BUILTIN}, .fn = cfn, .min_args = mn, .max_args = mx,  \
     .args = usage, .doc = docstr}

/* A builtin that reads a bounded range without realising it (take, first, count ...). */
#define QR_BUILTIN_LAZY(lname, cfn, mn, mx, usage, docstr)                                   \
    {.hdr = {.name = lname, .kind = FN_BUILTIN}, .fn = cfn, .min_args = mn, .max_args = mx,  \
     .args = usage, .doc = docstr, .lazy_ok = true}

/* ---- analyzed code ---- */
typedef enum node_kind {
    N_CONST,
    N_LOCAL,
    N_CAPTURE,
    N_GLOBAL,
    N_IF,
    N_DO,
    N_LET,
    N_LOOP,
    N_RECUR,
    N_FN,
    N_CALL,
    N_KWGET,  /* (:k m) and (:k m default) */
    N_DEF,
    N_AND,
    N_OR,
    N_CASE,
    N_TOOL,
    N_DATA,
    N_VEC,    /* literal with evaluated items */
    N_MAP,
    N_SET,
    N_LETFN,
    N_RETURN,
    N_FAIL,
    N_OP2,    /* a call of a two-argument arithmetic or comparison builtin (fast path) */
} node_kind;

/* N_OP2 operators: integers take a fast path; anything else calls the builtin. */
enum { OP_ADD, OP_SUB, OP_LT, OP_GT, OP_LE, OP_GE, OP_EQ };

typedef struct global {
    const qr_sym *sym;
    qr_val value;
    bool bound;
    qr_var var;  /* #'name */
} global;

typedef struct capture_src {
    bool from_capture; /* else from a local slot of the enclosing frame */
    int index;
} capture_src;

typedef struct arity {
    int nparams;     /* fixed parameters */
    bool variadic;   /* one more slot receives the rest as a vector (nil when empty) */
    int nslots;      /* frame size */
    int self_slot;   /* slot holding the function itself (named fns), or -1 */
    node *body;
} arity;

typedef struct lambda {
    const char *name;
    int narities;
    arity *arities;
    int ncaptures;
    capture_src *captures;
} lambda;

typedef struct closure {
    qr_fnhdr hdr; /* kind = FN_CLOSURE */
    const lambda *lam;
    qr_val caps[];
} closure;

struct node {
    uint8_t kind;
    uint32_t line, col;
    qr_val form; /* the source form, for error messages (nil when synthesized) */
    union {
        qr_val k;              /* N_CONST */
        int slot;              /* N_LOCAL, N_CAPTURE */
        global *g;             /* N_GLOBAL */
        struct {
            node *test, *then, *els;
        } if_;
        struct {
            int n;
            node **items;      /* N_DO, N_AND, N_OR, N_VEC, N_SET, N_MAP (k v k v) */
        } seq;
        struct {
            int n;
            int *slots;
            node **inits;
            node *body;        /* N_LET, N_LOOP, N_LETFN */
        } let;
        struct {
            int n;
            int first_slot;    /* recur writes slots first_slot.. (params or loop) */
            int *slots;        /* or explicit slots */
            node **args;
        } recur;
        const lambda *fn;      /* N_FN */
        struct {
            node *fn;
            int argc;
            node **args;
            int op;            /* N_OP2 only */
        } call;                /* N_CALL, N_OP2 */
        struct {
            global *g;
            node *init;
        } def;
        struct {
            node *test;
            qr_val table;      /* map constant -> branch index */
            int n;
            node **branches;
            node *dflt;        /* NULL: no default */
        } case_;
        struct {
            const char *name;
            node *arg;         /* NULL: no argument */
        } tool;
        struct {
            qr_val key;        /* N_DATA: keyword */
        } data;
        struct {
            qr_val kw;         /* N_KWGET: (:kw map) or (:kw map default) */
            int argc;
            node *args[2];
        } kwget;
        node *arg;             /* N_RETURN, N_FAIL */
    };
};

/* ---- the session and the run context ---- */
typedef struct global_table {
    global **slots;
    size_t mask, count;
} global_table;

typedef struct undo_entry {
    global *g;
    qr_val value;
    bool bound;
} undo_entry;

struct qr_lisp_session {
    qr_arena arena;
    qr_arena text;  /* text of data given to the session (never rewound by a run) */
    qr_lisp_limits limits;
    global_table globals;
    qr_val data;
    qr_lisp_tool_fn tool_fn;
    void *tool_ud;
    qr_req *req; /* qr_lisp_set_req: the request runs belong to, or NULL */
    qr_val *stack; /* value stack for frames and arguments */
    size_t stack_cap;
    /* undo log of a run's defs */
    undo_entry *undo;
    size_t undo_len, undo_cap;
    void *regex_match_ctx; /* pcre2_match_context, owned */
    qr_val pending_defs;   /* set of names the running program defs somewhere */
    qr_req own_req; /* the runs' request when none is set (qr_lisp_interrupt cancels it) */
    uint64_t runs;           /* runs started, so state a run keeps (memoize) is its own */
    uint64_t rand_state;     /* rand and friends (splitmix64), seeded by qr_lisp_set_seed */
};

struct qr_lx {
    qr_lisp_session *s;
    qr_arena *a;
    jmp_buf jb;
    /* frames */
    qr_val *stack;
    size_t sp, fp, stack_cap;
    const closure *cur_closure;
    const void *cur_combo;  /* the FN_COMBO being called */
    const node *cur;        /* the call being evaluated, for error positions */
    uint32_t depth;
    uint32_t max_depth;     /* copies of the session's limits, read on every call */
    size_t stack_bytes;
    char *stack_base;       /* address of a local in qr_lisp_run */
    /* limits */
    uint64_t steps, max_steps;
    qr_req *req; /* the session's request, or its own_req: never NULL during a run */
    size_t saved_memory; /* the request's memory budget before lx_begin */
    /* counts the work of printing, equality, hashing and ordering (installed on the
     * thread for the run; see qr_meter) */
    qr_meter meter;
    /* output */
    qr_buf out;
    bool out_truncated;
    /* room for builtins to print and format in (lx_scratch): it belongs to the run and
     * qr_lisp_run releases it, so an error raised while it is in use (an arena refusal
     * unwinds from inside a constructor) leaks nothing */
    qr_buf scratch;
    /* result */
    qr_lisp_result *res;
    qr_val return_value;
    qr_val thrown;          /* the exception of a QR_LE_THROW in flight */
    /* recur */
    qr_val recur_vals[64];
    /* where each keyword was last found in a map, by keyword address (see lx_get_kw) */
    uint32_t kw_hint[64];
};



/* A function made at run time from values (comp, partial, some-fn, ...): body finds them
 * in ((const lx_combo *)lx->cur_combo)->fns. */
typedef struct lx_combo {
    qr_builtin b; /* b.hdr.kind = FN_COMBO */
    int n;
    qr_val fns[];
} lx_combo;
qr_val lx_make_combo(qr_lx *lx, const char *name, qr_builtin_fn body, int n, const qr_val *fns);

/* Marks a recur in flight: propagated from tail positions to the loop or fn. */
#define QR_T_RECUR 200
/* (reduced x): stops reduce early; .p points to the wrapped value in the arena. */
#define QR_T_REDUCED 201
qr_val lx_reduced(qr_lx *lx, qr_val v);
static inline bool lx_is_reduced(qr_val v)
{
    return v.t == QR_T_REDUCED;
}
static inline qr_val lx_unreduced(qr_val v)
{
    return *(const qr_val *)v.p;
}

/* ---- raising errors (never return) ---- */
_Noreturn void lx_throw(qr_lx *lx, qr_lisp_errkind kind, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
/* "NAME expects WHAT as argument N, got TYPE VALUE" */
_Noreturn void lx_type_error(qr_lx *lx, const char *fname, int argn, const char *expected,
                             qr_val got);

/* ---- limits ----
 * The one choke point for work: lx_check_time raises step-limit, timeout or interrupted.
 * lx_tick calls it every 1024 steps (closure and combinator calls, loop iterations), and
 * the meter every QR_LX_METER_PERIOD units of value work. */
#define QR_LX_METER_PERIOD 4096
/* Starts a run (or a builtin call) of session s allocating in a: clears lx and sets its
 * session, arena, stack, result and output, and its limits: its request (the session's,
 * or the session's own_req), steps and depth as the smaller of the session's own and
 * what the request has left, the request's deadline narrowed to the session's time limit
 * and its memory budget to the session's memory limit (so the tools a program calls keep
 * their scratch memory within it). stack_base is the address of a local of the caller.
 * lx_end_limits lifts the narrowing and spends the steps. */
qr_req_saved lx_begin(qr_lx *lx, qr_lisp_session *s, qr_arena *a, qr_lisp_result *res,
                      char *stack_base);
void lx_end_limits(qr_lx *lx, qr_req_saved saved);
void lx_check_time(qr_lx *lx);
void lx_meter_init(qr_lx *lx);
static inline void lx_tick(qr_lx *lx)
{
    if ((++lx->steps & 1023) == 0)
        lx_check_time(lx);
}
/* For builtins looping over n items without calling back into Lisp. */
void lx_tick_n(qr_lx *lx, size_t n);

/* ---- calling ---- */
qr_val lx_apply(qr_lx *lx, qr_val f, int argc, const qr_val *argv);
static inline qr_val lx_call1(qr_lx *lx, qr_val f, qr_val x)
{
    return lx_apply(lx, f, 1, &x);
}
static inline qr_val lx_call2(qr_lx *lx, qr_val f, qr_val x, qr_val y)
{
    qr_val a[2] = {x, y};
    return lx_apply(lx, f, 2, a);
}
bool lx_is_callable(qr_val f);

/* ---- sequences ----
 * Any seqable value (nil, vector, list, map, set, string) as a contiguous array of
 * items: maps give [k v] vectors, strings one-character strings. Unbounded sequences
 * raise a type-error naming fname. The array may be the collection's own storage. */
typedef struct lx_seq {
    const qr_val *items;
    size_t n;
} lx_seq;
lx_seq lx_items(qr_lx *lx, qr_val coll, const char *fname, int argn);
bool lx_seqable(qr_val v);

/* ---- argument checks ---- */
int64_t lx_arg_int(qr_lx *lx, const char *fname, int argn, qr_val v);
double lx_arg_num(qr_lx *lx, const char *fname, int argn, qr_val v);
const qr_str *lx_arg_str(qr_lx *lx, const char *fname, int argn, qr_val v);

/* ---- values ---- */
qr_val lx_str(qr_lx *lx, const char *s, size_t n);
/* pr-str into a buffer that belongs to the run's arena */
qr_val lx_pr_str(qr_lx *lx, qr_val v, int mode);
/* How lx_print_pieces joins values: QR_PRINT_READABLY or QR_PRINT_DISPLAY, space
 * separated (pr-str, print-str, println), or LX_PRINT_STR: str's rules (nil prints
 * nothing, strings raw, the rest readably, nothing between). */
enum { LX_PRINT_STR = 2 };
/* Appends the printed forms of argv joined as `how` says to b, at most max bytes (cut at
 * a character start); QR_PRINT_DONE or QR_PRINT_CUT. */
int lx_print_pieces(qr_lx *lx, qr_buf *b, int argc, const qr_val *argv, int how, size_t max);
/* The same as a string of the run's arena, built in place when long (never held twice),
 * or memory-exceeded when it would not fit in the room left. */
qr_val lx_print_str(qr_lx *lx, int argc, const qr_val *argv, int how);
/* Bytes the run may still allocate. */
size_t lx_room(qr_lx *lx);
/* The run's scratch buffer, emptied. One user at a time: hold it only across code that
 * does not use it itself (printing, arena constructors, lx_throw), never across a call
 * back into Lisp. A heap buffer of a builtin's own would leak when an arena refusal or a
 * limit unwinds past it. */
static inline qr_buf *lx_scratch(qr_lx *lx)
{
    qr_buf_reset(&lx->scratch);
    return &lx->scratch;
}
/* Appends at most max bytes of v's printed form to b (qr_print_max); b must belong to the
 * run (lx_scratch, lx->out). When the meter stopped the printing, raises the limit error.
 * Returns QR_PRINT_DONE or QR_PRINT_CUT. */
int lx_print(qr_lx *lx, qr_buf *b, qr_val v, int mode, size_t max);
/* Copies b (the scratch buffer, printed within lx_room) into a string of the run's arena;
 * raises memory-exceeded when b failed or st is QR_PRINT_CUT. */
qr_val lx_buf_to_str(qr_lx *lx, qr_buf *b, int st);
/* Raises memory-exceeded unless v prints within the memory limit (what names v in the
 * message): bounds what a host does with a value leaving the sandbox (the result, tool
 * arguments), whatever v shares. */
void lx_check_size(qr_lx *lx, qr_val v, const char *what);
/* Vector of one-character strings of s. */
qr_val lx_str_chars(qr_lx *lx, const qr_str *s);
/* (get coll k) with Clojure semantics on maps, sets, vectors, strings and nil. */
bool lx_get(qr_val coll, qr_val k, qr_val *out);
/* (:kw m): like lx_get, remembering where the keyword was found so a scan over records
 * of one shape finds each with one probe. */
static inline uint32_t *lx_kw_hint(qr_lx *lx, qr_val kw)
{
    return &lx->kw_hint[((uintptr_t)kw.sym >> 5) & 63];
}
static inline bool lx_get_kw(qr_lx *lx, qr_val m, qr_val kw, qr_val *out)
{
    if (m.t == QR_T_MAP) {
        uint32_t *hint = lx_kw_hint(lx, kw);
        const qr_coll *c = m.c;
        if (*hint < c->len) { /* the common case inline: the key is where it was last time */
            const qr_val *e = &c->mbuf->kv[2 * (size_t)*hint];
            if (e->t == QR_T_KW && e->sym == kw.sym) {
                *out = e[1];
                return true;
            }
        }
        return qr_map_lookup_hint(m, kw, hint, out);
    }
    return lx_get(m, kw, out);
}
/* Output capture for println and friends. */
void lx_write(qr_lx *lx, const char *s, size_t n);

/* ---- generators: (range), (repeat x), (iterate f x), (cycle coll), and bounded ranges
 * of integers, (range 10000000): a bounded range is realised (as a list) only when a
 * builtin that is not lazy_ok receives it or lx_items views it, so (take 10 (range
 * 10000000)) reads ten items and (count (range 10000000)) none. ---- */
typedef enum { LAZY_RANGE, LAZY_REPEAT, LAZY_ITERATE, LAZY_CYCLE } lazy_kind;
typedef struct lazy_seq {
    qr_lazyhdr h; /* h.bounded: a bounded range of integers (kind LAZY_RANGE) */
    lazy_kind kind;
    qr_val a, b; /* range: start, step; repeat: x; iterate: f, x; cycle: coll */
} lazy_seq;
static inline const lazy_seq *lx_lazy(qr_val v)
{
    return (const lazy_seq *)v.p;
}
static inline bool lx_unbounded(qr_val v)
{
    return v.t == QR_T_LAZY && !lx_lazy(v)->h.bounded;
}
/* A bounded range of count integers from start by step. */
qr_val lx_range_new(qr_lx *lx, int64_t start, int64_t step, uint64_t count);
/* v itself, or the list of a bounded range's items. */
qr_val lx_realize(qr_lx *lx, qr_val v);
/* v with every bounded range inside it realised (what leaves the sandbox: a program's
 * value, a tool's arguments); call it once v is known to print within the limits. */
qr_val lx_realize_deep(qr_lx *lx, qr_val v);
/* argv itself, or a copy in the run's arena with bounded ranges realised. */
const qr_val *lx_realize_args(qr_lx *lx, int argc, const qr_val *argv);
/* Item i of an unbounded sequence (iterate: computes up to i). */
qr_val lx_lazy_nth(qr_lx *lx, const lazy_seq *z, size_t i);
/* First n items of any sequence, bounded or not, as a vector. */
qr_val lx_take(qr_lx *lx, qr_val coll, size_t n, const char *fname);

/* ---- builtin tables (one per library, terminated by an entry with NULL name) ---- */
extern const qr_builtin qr_lib_core[];
extern const qr_builtin qr_lib_seq[];
extern const qr_builtin qr_lib_seq_sort[];
extern const qr_builtin qr_lib_map[];
extern const qr_builtin qr_lib_num[];
extern const qr_builtin qr_lib_string[];
extern const qr_builtin qr_lib_regex[];
extern const qr_builtin qr_lib_compat[];
extern const qr_builtin qr_lib_except[];
extern const qr_builtin qr_lib_xf[];
extern const qr_builtin qr_lib_ptc[];
extern const qr_builtin qr_lib_date[];
/* The transducer (map f), (filter p), (take n) ... named fname (lib_xf.c). */
qr_val lx_transducer(qr_lx *lx, const char *fname, qr_val arg);
/* (into to xf from) */
qr_val lx_into_xf(qr_lx *lx, qr_val to, qr_val xf, qr_val from);
/* The value of a constant a program names (Math/PI, Double/NaN, Long/MAX_VALUE ...). */
bool lx_constant_find(const char *name, size_t n, qr_val *out);

/* Finds a builtin by name ("inc", "clojure.string/join"; the namespaces str and string
 * are aliases of clojure.string). */
const qr_builtin *lx_builtin_find(const char *name, size_t n);
/* Up to `max` names close to name (edit distance), for "did you mean". */
int lx_suggest(qr_lisp_session *s, const char *name, size_t n, const char **out, int max);

/* ---- analysis ---- */
typedef struct lx_analyze_error {
    qr_lisp_errkind kind;
    char msg[600];
    uint32_t line, col;
} lx_analyze_error;
/* Analyzes one top-level form. Returns the node and sets *nslots to the frame size it
 * needs, or NULL with err filled in. */
node *lx_analyze(qr_lisp_session *s, qr_val form, int *nslots, lx_analyze_error *err);
global *lx_global_find(qr_lisp_session *s, const qr_sym *sym);
global *lx_global_intern(qr_lisp_session *s, const qr_sym *sym);

/* ---- macro expansion (expand.c), used by the analyzer ---- */
typedef struct lx_ax lx_ax;
_Noreturn void ax_error(lx_ax *ax, qr_val form, qr_lisp_errkind kind, const char *fmt, ...)
    __attribute__((format(printf, 4, 5)));
qr_arena *ax_arena(lx_ax *ax);
qr_val ax_gensym(lx_ax *ax, const char *base);
qr_val ax_sym(lx_ax *ax, const char *name);
qr_val ax_list(lx_ax *ax, int n, ...);
/* If form's head names a derived form (when, cond, ->, for, defn, ...), returns true and
 * its expansion into core forms in *out. */
bool lx_expand(lx_ax *ax, qr_val form, qr_val *out);
/* True when name is a special form or derived form (cannot be used as a value). */
bool lx_is_special(const qr_sym *sym);

/* ---- evaluation ---- */
qr_val lx_eval(qr_lx *lx, const node *n);

#endif

/*
 * analyze.c: turns read forms into nodes the evaluator runs: special forms, symbol
 * resolution to frame slots, flat closures, destructuring, recur checking.
 *
 * Locals live in numbered frame slots; a fn copies the values it uses from enclosing
 * scopes into its closure when it is created (flat closures: values are immutable, so a
 * copy is indistinguishable from a reference, and frames can stay on a stack). Derived
 * forms (when, cond, ->, for, defn, ...) are first rewritten into core forms by
 * expand.c. Destructuring becomes plain bindings that call nth/get. Calls to builtins
 * with a wrong number of arguments, recur outside a tail position and names that are
 * neither local, builtin, nor defined anywhere in the program are reported before
 * anything runs, so a tool is never called by a program that cannot finish.
 * Rejected: resolving globals by name at run time (slower, and typos surface late).
 */
#include "lisp_int.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct name_ent {
    const qr_sym *sym;
    int slot;
} name_ent;

typedef struct fscope {
    struct fscope *parent;
    name_ent *names;
    int nnames, names_cap;
    int next_slot, max_slot;
    const qr_sym **cap_syms;
    capture_src *caps;
    int ncaps, caps_cap;
    /* recur target */
    bool can_recur;
    int recur_n;
    int *recur_slots;
    bool in_fn;
} fscope;

struct lx_ax {
    qr_lisp_session *s;
    qr_arena *a;
    jmp_buf jb;
    lx_analyze_error *err;
    fscope *sc;
    int depth;
};

static uint64_t gensym_counter;

qr_arena *ax_arena(lx_ax *ax)
{
    return ax->a;
}

static const qr_val *form_items(qr_val f, size_t *n)
{
    *n = f.c->len;
    return qr_vec_items(f);
}

static void form_pos(qr_val form, uint32_t *line, uint32_t *col)
{
    *line = *col = 0;
    if ((form.t == QR_T_LIST || form.t == QR_T_VEC) && form.c->line) {
        *line = form.c->line;
        *col = form.c->col;
    }
}

void ax_error(lx_ax *ax, qr_val form, qr_lisp_errkind kind, const char *fmt, ...)
{
    qr_buf b;
    qr_buf_init(&b);
    va_list ap;
    va_start(ap, fmt);
    qr_buf_vprintf(&b, fmt, ap);
    va_end(ap);
    if (!qr_is_nil(form)) {
        qr_buf_puts(&b, " in ");
        qr_print_short(&b, form, 70);
    }
    snprintf(ax->err->msg, sizeof ax->err->msg, "%s", b.p ? b.p : "error");
    qr_buf_release(&b);
    ax->err->kind = kind;
    form_pos(form, &ax->err->line, &ax->err->col);
    longjmp(ax->jb, 1);
}

qr_val ax_sym(lx_ax *ax, const char *name)
{
    return qr_symbol(ax->a, name, strlen(name));
}

qr_val ax_gensym(lx_ax *ax, const char *base)
{
    char name[64];
    int n = snprintf(name, sizeof name, "%s__%llu__auto", base,
                     (unsigned long long)++gensym_counter);
    return qr_symbol(ax->a, name, (size_t)n);
}

qr_val ax_list(lx_ax *ax, int n, ...)
{
    qr_val items[16];
    va_list ap;
    va_start(ap, n);
    for (int i = 0; i < n && i < 16; i++)
        items[i] = va_arg(ap, qr_val);
    va_end(ap);
    return qr_vec_from(ax->a, QR_T_LIST, items, (size_t)n);
}

static void *ax_alloc(lx_ax *ax, size_t n)
{
    return qr_arena_zalloc(ax->a, n);
}

static node *mk(lx_ax *ax, node_kind k, qr_val form)
{
    node *n = ax_alloc(ax, sizeof *n);
    n->kind = (uint8_t)k;
    n->form = form;
    form_pos(form, &n->line, &n->col);
    return n;
}

static node *mk_const(lx_ax *ax, qr_val v)
{
    node *n = mk(ax, N_CONST, qr_nil());
    n->k = v;
    return n;
}

static bool sym_is(qr_val v, const char *name)
{
    return v.t == QR_T_SYM && v.sym->ns_len == 0 && strcmp(v.sym->text, name) == 0;
}

/* ---------------- scopes ---------------- */

static void grow(lx_ax *ax, void **p, int *cap, int need, size_t elem)
{
    if (need <= *cap)
        return;
    int ncap = *cap ? *cap * 2 : 8;
    while (ncap < need)
        ncap *= 2;
    void *q = qr_arena_realloc(ax->a, *p, (size_t)*cap * elem, (size_t)ncap * elem);
    *p = q;
    *cap = ncap;
}

static int new_slot(lx_ax *ax)
{
    fscope *sc = ax->sc;
    int slot = sc->next_slot++;
    if (sc->next_slot > sc->max_slot)
        sc->max_slot = sc->next_slot;
    if (sc->max_slot > 4096)
        ax_error(ax, qr_nil(), QR_LE_DEPTH, "too many local bindings in one function (4096)");
    return slot;
}

static void push_name(lx_ax *ax, const qr_sym *sym, int slot)
{
    fscope *sc = ax->sc;
    grow(ax, (void **)&sc->names, &sc->names_cap, sc->nnames + 1, sizeof(name_ent));
    sc->names[sc->nnames].sym = sym;
    sc->names[sc->nnames].slot = slot;
    sc->nnames++;
}

/* Resolves sym as a local of scope sc (adding captures along the way). Returns the
 * node kind (N_LOCAL / N_CAPTURE) and index, or -1 when not a local. */
static int resolve_in(lx_ax *ax, fscope *sc, const qr_sym *sym, int *index)
{
    for (int i = sc->nnames - 1; i >= 0; i--) {
        if (sc->names[i].sym == sym || qr_sym_eq(sc->names[i].sym, sym)) {
            *index = sc->names[i].slot;
            return N_LOCAL;
        }
    }
    for (int i = 0; i < sc->ncaps; i++) {
        if (qr_sym_eq(sc->cap_syms[i], sym)) {
            *index = i;
            return N_CAPTURE;
        }
    }
    if (!sc->parent)
        return -1;
    int pidx;
    int kind = resolve_in(ax, sc->parent, sym, &pidx);
    if (kind < 0)
        return -1;
    grow(ax, (void **)&sc->cap_syms, &sc->caps_cap, sc->ncaps + 1, sizeof(qr_sym *));
    /* caps_cap tracks cap_syms; keep caps in step */
    capture_src *nc = ax_alloc(ax, sizeof(capture_src) * (size_t)sc->caps_cap);
    if (sc->ncaps)
        memcpy(nc, sc->caps, sizeof(capture_src) * (size_t)sc->ncaps);
    sc->caps = nc;
    sc->cap_syms[sc->ncaps] = sym;
    sc->caps[sc->ncaps].from_capture = kind == N_CAPTURE;
    sc->caps[sc->ncaps].index = pidx;
    *index = sc->ncaps++;
    return N_CAPTURE;
}

/* ---------------- analysis ---------------- */

static node *analyze(lx_ax *ax, qr_val form, bool tail);

static node *analyze_body(lx_ax *ax, const qr_val *forms, size_t n, bool tail, qr_val whole)
{
    if (n == 0)
        return mk_const(ax, qr_nil());
    if (n == 1)
        return analyze(ax, forms[0], tail);
    node *d = mk(ax, N_DO, whole);
    d->seq.n = (int)n;
    d->seq.items = ax_alloc(ax, sizeof(node *) * n);
    for (size_t i = 0; i < n; i++)
        d->seq.items[i] = analyze(ax, forms[i], tail && i == n - 1);
    return d;
}

typedef struct binds {
    int n, cap;
    int *slots;
    node **inits;
} binds;

static void bind_add(lx_ax *ax, binds *b, int slot, node *init)
{
    if (b->n == b->cap) {
        int ncap = b->cap ? b->cap * 2 : 8;
        int *ns = ax_alloc(ax, sizeof(int) * (size_t)ncap);
        node **ni = ax_alloc(ax, sizeof(node *) * (size_t)ncap);
        if (b->n) {
            memcpy(ns, b->slots, sizeof(int) * (size_t)b->n);
            memcpy(ni, b->inits, sizeof(node *) * (size_t)b->n);
        }
        b->slots = ns;
        b->inits = ni;
        b->cap = ncap;
    }
    b->slots[b->n] = slot;
    b->inits[b->n] = init;
    b->n++;
}

static node *local_ref(lx_ax *ax, int slot)
{
    node *n = mk(ax, N_LOCAL, qr_nil());
    n->slot = slot;
    return n;
}

static node *call_builtin(lx_ax *ax, const char *name, int argc, node **args, qr_val form)
{
    const qr_builtin *b = lx_builtin_find(name, strlen(name));
    if (!b)
        ax_error(ax, form, QR_LE_UNBOUND, "internal: builtin '%s' is missing", name);
    node *n = mk(ax, N_CALL, form);
    qr_val f = {.t = QR_T_FN};
    f.fn = &b->hdr;
    n->call.fn = mk_const(ax, f);
    n->call.argc = argc;
    n->call.args = ax_alloc(ax, sizeof(node *) * (size_t)(argc ? argc : 1));
    for (int i = 0; i < argc; i++)
        n->call.args[i] = args[i];
    return n;
}

/* Binds pattern to the value of `init` (already analyzed), adding bindings to b and
 * names to the scope. */
static void destructure(lx_ax *ax, binds *b, qr_val pat, node *init)
{
    if (pat.t == QR_T_SYM) {
        if (pat.sym->ns_len)
            ax_error(ax, pat, QR_LE_PARSE, "cannot bind a qualified name '%s'", pat.sym->text);
        int slot = new_slot(ax);
        bind_add(ax, b, slot, init);
        push_name(ax, pat.sym, slot);
        return;
    }
    if (pat.t == QR_T_VEC) {
        int tmp = new_slot(ax);
        bind_add(ax, b, tmp, init);
        size_t n;
        const qr_val *items = form_items(pat, &n);
        int64_t pos = 0;
        for (size_t i = 0; i < n; i++) {
            if (sym_is(items[i], "&")) {
                if (i + 1 >= n)
                    ax_error(ax, pat, QR_LE_PARSE, "'&' must be followed by a binding");
                node *args[2] = {local_ref(ax, tmp), mk_const(ax, qr_int(pos))};
                destructure(ax, b, items[i + 1], call_builtin(ax, "--nthnext", 2, args, pat));
                i++;
                continue;
            }
            if (items[i].t == QR_T_KW && strcmp(items[i].sym->text, "as") == 0) {
                if (i + 1 >= n || items[i + 1].t != QR_T_SYM)
                    ax_error(ax, pat, QR_LE_PARSE, ":as must be followed by a symbol");
                destructure(ax, b, items[i + 1], local_ref(ax, tmp));
                i++;
                continue;
            }
            node *args[3] = {local_ref(ax, tmp), mk_const(ax, qr_int(pos)),
                             mk_const(ax, qr_nil())};
            destructure(ax, b, items[i], call_builtin(ax, "nth", 3, args, pat));
            pos++;
        }
        return;
    }
    if (pat.t == QR_T_MAP) {
        int tmp = new_slot(ax);
        node *args1[1] = {init};
        bind_add(ax, b, tmp, call_builtin(ax, "--destructure-map", 1, args1, pat));
        qr_val defaults = qr_map_empty();
        size_t n = qr_map_len(pat);
        for (size_t i = 0; i < n; i++) {
            qr_val k = qr_map_key_at(pat, i);
            if (k.t == QR_T_KW && strcmp(k.sym->text, "or") == 0) {
                defaults = qr_map_val_at(pat, i);
                if (defaults.t != QR_T_MAP)
                    ax_error(ax, pat, QR_LE_PARSE, ":or must be followed by a map");
            }
        }
        for (size_t i = 0; i < n; i++) {
            qr_val k = qr_map_key_at(pat, i), v = qr_map_val_at(pat, i);
            if (k.t == QR_T_KW && (strcmp(k.sym->text, "keys") == 0 ||
                                   strcmp(k.sym->text, "strs") == 0 ||
                                   strcmp(k.sym->text, "syms") == 0)) {
                if (v.t != QR_T_VEC)
                    ax_error(ax, pat, QR_LE_PARSE, ":%s must be followed by a vector of names",
                             k.sym->text);
                size_t m;
                const qr_val *names = form_items(v, &m);
                for (size_t j = 0; j < m; j++) {
                    qr_val nm = names[j];
                    if (nm.t != QR_T_SYM && nm.t != QR_T_KW)
                        ax_error(ax, pat, QR_LE_PARSE, "expected names in :%s", k.sym->text);
                    size_t ln;
                    const char *local = qr_sym_name(nm.sym, &ln);
                    qr_val key;
                    if (k.sym->text[0] == 'k')
                        key = qr_kw(ax->a, nm.sym->text, nm.sym->len);
                    else if (k.sym->text[1] == 't')
                        key = qr_str_new(ax->a, local, ln);
                    else
                        key = qr_symbol(ax->a, nm.sym->text, nm.sym->len);
                    qr_val lsym = qr_symbol(ax->a, local, ln);
                    qr_val dflt = qr_nil();
                    bool has_default = qr_map_lookup(defaults, lsym, &dflt);
                    node *args[3] = {local_ref(ax, tmp), mk_const(ax, key),
                                     has_default ? analyze(ax, dflt, false)
                                                 : mk_const(ax, qr_nil())};
                    destructure(ax, b, lsym, call_builtin(ax, "get", 3, args, pat));
                }
                continue;
            }
            if (k.t == QR_T_KW && strcmp(k.sym->text, "as") == 0) {
                destructure(ax, b, v, local_ref(ax, tmp));
                continue;
            }
            if (k.t == QR_T_KW && strcmp(k.sym->text, "or") == 0)
                continue;
            /* {pattern key} */
            qr_val dflt = qr_nil();
            bool has_default = k.t == QR_T_SYM && qr_map_lookup(defaults, k, &dflt);
            node *args[3] = {local_ref(ax, tmp), analyze(ax, v, false),
                             has_default ? analyze(ax, dflt, false) : mk_const(ax, qr_nil())};
            destructure(ax, b, k, call_builtin(ax, "get", 3, args, pat));
        }
        return;
    }
    ax_error(ax, pat, QR_LE_PARSE,
             "cannot bind to %s: expected a symbol, a vector or a map pattern",
             qr_type_name((qr_type)pat.t));
}

static node *analyze_let(lx_ax *ax, qr_val form, bool tail, bool is_loop)
{
    size_t n;
    const qr_val *it = form_items(form, &n);
    const char *what = is_loop ? "loop" : "let";
    if (n < 2 || it[1].t != QR_T_VEC)
        ax_error(ax, form, QR_LE_PARSE, "%s expects a binding vector, as in (%s [x 1] body)",
                 what, what);
    size_t nb;
    const qr_val *bv = form_items(it[1], &nb);
    if (nb % 2)
        ax_error(ax, form, QR_LE_PARSE,
                 "%s binding vector needs an even number of forms (name value ...), got %zu",
                 what, nb);
    fscope *sc = ax->sc;
    int saved_names = sc->nnames, saved_slot = sc->next_slot;
    binds b = {0};
    node *n_ = mk(ax, is_loop ? N_LOOP : N_LET, form);
    if (!is_loop) {
        for (size_t i = 0; i < nb; i += 2) {
            node *init = analyze(ax, bv[i + 1], false);
            destructure(ax, &b, bv[i], init);
        }
        n_->let.body = analyze_body(ax, it + 2, n - 2, tail, form);
    } else {
        /* loop slots first (one per binding), then destructuring inside the body */
        int k = (int)(nb / 2);
        int *lslots = ax_alloc(ax, sizeof(int) * (size_t)(k ? k : 1));
        node **inits = ax_alloc(ax, sizeof(node *) * (size_t)(k ? k : 1));
        for (int i = 0; i < k; i++)
            inits[i] = analyze(ax, bv[2 * i + 1], false);
        for (int i = 0; i < k; i++) {
            lslots[i] = new_slot(ax);
            bind_add(ax, &b, lslots[i], inits[i]);
        }
        binds inner = {0};
        for (int i = 0; i < k; i++) {
            if (bv[2 * i].t == QR_T_SYM)
                push_name(ax, bv[2 * i].sym, lslots[i]);
            else
                destructure(ax, &inner, bv[2 * i], local_ref(ax, lslots[i]));
        }
        bool saved_can = sc->can_recur;
        int saved_n = sc->recur_n;
        int *saved_slots = sc->recur_slots;
        sc->can_recur = true;
        sc->recur_n = k;
        sc->recur_slots = lslots;
        node *body = analyze_body(ax, it + 2, n - 2, true, form);
        sc->can_recur = saved_can;
        sc->recur_n = saved_n;
        sc->recur_slots = saved_slots;
        if (inner.n) {
            node *l = mk(ax, N_LET, form);
            l->let.n = inner.n;
            l->let.slots = inner.slots;
            l->let.inits = inner.inits;
            l->let.body = body;
            body = l;
        }
        n_->let.body = body;
    }
    n_->let.n = b.n;
    n_->let.slots = b.slots;
    n_->let.inits = b.inits;
    sc->nnames = saved_names;
    sc->next_slot = saved_slot;
    return n_;
}

static void analyze_arity(lx_ax *ax, qr_val whole, qr_val params, const qr_val *body,
                          size_t nbody, const qr_sym *self, arity *ar)
{
    if (params.t != QR_T_VEC)
        ax_error(ax, whole, QR_LE_PARSE, "fn expects a parameter vector, as in (fn [x] ...)");
    fscope *sc = ax->sc;
    size_t np;
    const qr_val *ps = form_items(params, &np);
    int fixed = 0;
    bool variadic = false;
    for (size_t i = 0; i < np; i++) {
        if (sym_is(ps[i], "&")) {
            if (i + 2 != np)
                ax_error(ax, whole, QR_LE_PARSE,
                         "'&' in a parameter vector must be followed by exactly one binding");
            variadic = true;
            break;
        }
        fixed++;
    }
    ar->nparams = fixed;
    ar->variadic = variadic;
    int total = fixed + (variadic ? 1 : 0);
    int *pslots = ax_alloc(ax, sizeof(int) * (size_t)(total ? total : 1));
    for (int i = 0; i < total; i++)
        pslots[i] = new_slot(ax);
    ar->self_slot = -1;
    if (self) {
        ar->self_slot = new_slot(ax);
        push_name(ax, self, ar->self_slot);
    }
    binds inner = {0};
    for (int i = 0; i < total; i++) {
        qr_val p = i < fixed ? ps[i] : ps[np - 1];
        if (p.t == QR_T_SYM)
            push_name(ax, p.sym, pslots[i]);
        else
            destructure(ax, &inner, p, local_ref(ax, pslots[i]));
    }
    sc->can_recur = true;
    sc->recur_n = total;
    sc->recur_slots = pslots;
    node *b = analyze_body(ax, body, nbody, true, whole);
    if (inner.n) {
        node *l = mk(ax, N_LET, whole);
        l->let.n = inner.n;
        l->let.slots = inner.slots;
        l->let.inits = inner.inits;
        l->let.body = b;
        b = l;
    }
    ar->body = b;
}

static node *analyze_fn(lx_ax *ax, qr_val form)
{
    size_t n;
    const qr_val *it = form_items(form, &n);
    size_t i = 1;
    const qr_sym *self = NULL;
    if (i < n && it[i].t == QR_T_SYM) {
        self = it[i].sym;
        i++;
    }
    if (i >= n)
        ax_error(ax, form, QR_LE_PARSE, "fn expects a parameter vector");
    lambda *lam = ax_alloc(ax, sizeof *lam);
    lam->name = self ? self->text : NULL;
    int nar;
    bool multi = it[i].t == QR_T_LIST;
    nar = multi ? (int)(n - i) : 1;
    lam->narities = nar;
    lam->arities = ax_alloc(ax, sizeof(arity) * (size_t)nar);
    fscope sc = {.parent = ax->sc, .in_fn = true};
    ax->sc = &sc;
    for (int k = 0; k < nar; k++) {
        qr_val params, whole = form;
        const qr_val *body;
        size_t nbody;
        if (multi) {
            whole = it[i + (size_t)k];
            if (whole.t != QR_T_LIST || whole.c->len == 0)
                ax_error(ax, form, QR_LE_PARSE,
                         "multi-arity fn expects clauses like ([x] body) ([x y] body)");
            size_t wn;
            const qr_val *w = form_items(whole, &wn);
            params = w[0];
            body = w + 1;
            nbody = wn - 1;
        } else {
            params = it[i];
            body = it + i + 1;
            nbody = n - i - 1;
        }
        sc.nnames = 0;
        sc.next_slot = 0;
        analyze_arity(ax, whole, params, body, nbody, self, &lam->arities[k]);
        for (int j = 0; j < k; j++) {
            arity *a = &lam->arities[j], *b = &lam->arities[k];
            if (a->nparams == b->nparams && a->variadic == b->variadic)
                ax_error(ax, form, QR_LE_PARSE, "fn has two clauses taking %d arguments",
                         a->nparams);
        }
    }
    for (int k = 0; k < nar; k++)
        lam->arities[k].nslots = sc.max_slot;
    lam->ncaptures = sc.ncaps;
    lam->captures = sc.caps;
    ax->sc = sc.parent;
    node *nd = mk(ax, N_FN, form);
    nd->fn = lam;
    return nd;
}

static node *analyze_letfn(lx_ax *ax, qr_val form, bool tail)
{
    size_t n;
    const qr_val *it = form_items(form, &n);
    if (n < 2 || it[1].t != QR_T_VEC)
        ax_error(ax, form, QR_LE_PARSE, "letfn expects a vector of (name [params] body) forms");
    size_t nf;
    const qr_val *fs = form_items(it[1], &nf);
    fscope *sc = ax->sc;
    int saved_names = sc->nnames, saved_slot = sc->next_slot;
    binds b = {0};
    int *slots = ax_alloc(ax, sizeof(int) * (nf ? nf : 1));
    for (size_t i = 0; i < nf; i++) {
        if (fs[i].t != QR_T_LIST || fs[i].c->len < 2 || qr_vec_at(fs[i], 0).t != QR_T_SYM)
            ax_error(ax, form, QR_LE_PARSE, "letfn expects (name [params] body) forms");
        slots[i] = new_slot(ax);
        push_name(ax, qr_vec_at(fs[i], 0).sym, slots[i]);
    }
    for (size_t i = 0; i < nf; i++) {
        size_t fn_n;
        const qr_val *f = form_items(fs[i], &fn_n);
        qr_vecb vb;
        qr_vecb_init(&vb, ax->a, fn_n + 1);
        qr_vecb_push(&vb, ax_sym(ax, "fn"));
        for (size_t j = 0; j < fn_n; j++)
            qr_vecb_push(&vb, f[j]);
        qr_val fnform = qr_vecb_finish(&vb, QR_T_LIST);
        ((qr_coll *)fnform.c)->line = fs[i].c->line;
        ((qr_coll *)fnform.c)->col = fs[i].c->col;
        bind_add(ax, &b, slots[i], analyze_fn(ax, fnform));
    }
    node *nd = mk(ax, N_LETFN, form);
    nd->let.n = b.n;
    nd->let.slots = b.slots;
    nd->let.inits = b.inits;
    nd->let.body = analyze_body(ax, it + 2, n - 2, tail, form);
    sc->nnames = saved_names;
    sc->next_slot = saved_slot;
    return nd;
}

static node *analyze_case(lx_ax *ax, qr_val form, bool tail)
{
    size_t n;
    const qr_val *it = form_items(form, &n);
    if (n < 2)
        ax_error(ax, form, QR_LE_PARSE, "case expects an expression and clauses");
    node *nd = mk(ax, N_CASE, form);
    nd->case_.test = analyze(ax, it[1], false);
    size_t nclauses = (n - 2) / 2;
    bool has_default = (n - 2) % 2 == 1;
    nd->case_.n = (int)nclauses;
    nd->case_.branches = ax_alloc(ax, sizeof(node *) * (nclauses ? nclauses : 1));
    qr_mapb mb;
    qr_mapb_init(&mb, ax->a, nclauses * 2 + 1);
    for (size_t k = 0; k < nclauses; k++) {
        qr_val c = it[2 + 2 * k];
        if (c.t == QR_T_LIST) {
            size_t cn;
            const qr_val *cs = form_items(c, &cn);
            for (size_t j = 0; j < cn; j++) {
                if (qr_mapb_slot(&mb, cs[j]))
                    ax_error(ax, form, QR_LE_PARSE, "case has a duplicate test constant");
                qr_mapb_put(&mb, cs[j], qr_int((int64_t)k));
            }
        } else {
            if (qr_mapb_slot(&mb, c))
                ax_error(ax, form, QR_LE_PARSE, "case has a duplicate test constant");
            qr_mapb_put(&mb, c, qr_int((int64_t)k));
        }
        nd->case_.branches[k] = analyze(ax, it[3 + 2 * k], tail);
    }
    nd->case_.table = qr_mapb_finish(&mb, QR_T_MAP);
    nd->case_.dflt = has_default ? analyze(ax, it[n - 1], tail) : NULL;
    return nd;
}

static node *analyze_symbol(lx_ax *ax, qr_val form)
{
    const qr_sym *sym = form.sym;
    int idx;
    int kind = resolve_in(ax, ax->sc, sym, &idx);
    if (kind >= 0) {
        node *n = mk(ax, (node_kind)kind, qr_nil());
        n->slot = idx;
        return n;
    }
    size_t nlen;
    const char *name = qr_sym_name(sym, &nlen);
    if (sym->ns_len == 4 && memcmp(sym->text, "data", 4) == 0) {
        node *n = mk(ax, N_DATA, qr_nil());
        n->data.key = qr_kw(ax->a, name, nlen);
        return n;
    }
    if (sym->ns_len == 4 && memcmp(sym->text, "tool", 4) == 0)
        ax_error(ax, form, QR_LE_PARSE,
                 "'%s' must be called, as in (%s {:param value})", sym->text, sym->text);
    bool core_ns = sym->ns_len == 12 && memcmp(sym->text, "clojure.core", 12) == 0;
    if (!sym->ns_len) {
        /* a global counts once defined, or when this program defines it somewhere;
         * one left unbound by a failed program does not hide a builtin */
        global *g = lx_global_find(ax->s, sym);
        qr_val pending = ax->s->pending_defs;
        if (g && !g->bound && !(pending.t == QR_T_SET && qr_set_has(pending, form)))
            g = NULL;
        if (g) {
            node *n = mk(ax, N_GLOBAL, qr_nil());
            n->g = g;
            return n;
        }
    }
    qr_val k;
    if (sym->ns_len && lx_constant_find(sym->text, sym->len, &k))
        return mk_const(ax, k);
    const qr_builtin *b = lx_builtin_find(core_ns ? name : sym->text, core_ns ? nlen : sym->len);
    if (b) {
        qr_val f = {.t = QR_T_FN};
        f.fn = &b->hdr;
        return mk_const(ax, f);
    }
    if (lx_is_special(sym))
        ax_error(ax, form, QR_LE_PARSE, "'%s' is a special form and cannot be used as a value",
                 sym->text);
    /* defined somewhere later in the program: resolve when it runs */
    if (!sym->ns_len) {
        qr_val pending = ax->s->pending_defs;
        if (pending.t == QR_T_SET && qr_set_has(pending, form)) {
            node *n = mk(ax, N_GLOBAL, qr_nil());
            n->g = lx_global_intern(ax->s, sym);
            return n;
        }
    }
    const char *sugg[3];
    int ns = lx_suggest(ax->s, sym->text, sym->len, sugg, 3);
    qr_buf hint;
    qr_buf_init(&hint);
    if (ns) {
        qr_buf_puts(&hint, "; did you mean ");
        for (int i = 0; i < ns; i++)
            qr_buf_printf(&hint, "%s'%s'", i ? (i == ns - 1 ? " or " : ", ") : "", sugg[i]);
    } else if (sym->ns_len) {
        qr_buf_puts(&hint, "; namespaces are data/, tool/, clojure.string/ (str/, string/), "
                               "clojure.set/ (set/), clojure.walk/ (walk/), Math/");
    }
    char msg[300];
    snprintf(msg, sizeof msg, "%s", hint.p ? hint.p : "");
    qr_buf_release(&hint);
    ax_error(ax, qr_nil(), QR_LE_UNBOUND, "unable to resolve symbol '%s'%s", sym->text, msg);
}

static node *analyze_call(lx_ax *ax, qr_val form, bool tail)
{
    size_t n;
    const qr_val *it = form_items(form, &n);
    qr_val head = it[0];
    if (head.t == QR_T_SYM && !head.sym->ns_len) {
        int idx;
        bool local = resolve_in(ax, ax->sc, head.sym, &idx) >= 0;
        const char *h = head.sym->text;
        if (!local) {
            if (!strcmp(h, "quote")) {
                if (n != 2)
                    ax_error(ax, form, QR_LE_PARSE, "quote expects one form");
                return mk_const(ax, it[1]);
            }
            if (!strcmp(h, "if")) {
                if (n < 3 || n > 4)
                    ax_error(ax, form, QR_LE_PARSE,
                             "if expects a test, a then branch and an optional else branch");
                node *nd = mk(ax, N_IF, form);
                nd->if_.test = analyze(ax, it[1], false);
                nd->if_.then = analyze(ax, it[2], tail);
                nd->if_.els = n == 4 ? analyze(ax, it[3], tail) : mk_const(ax, qr_nil());
                return nd;
            }
            if (!strcmp(h, "do"))
                return analyze_body(ax, it + 1, n - 1, tail, form);
            if (!strcmp(h, "let") || !strcmp(h, "let*"))
                return analyze_let(ax, form, tail, false);
            if (!strcmp(h, "loop") || !strcmp(h, "loop*"))
                return analyze_let(ax, form, tail, true);
            if (!strcmp(h, "fn") || !strcmp(h, "fn*"))
                return analyze_fn(ax, form);
            if (!strcmp(h, "letfn"))
                return analyze_letfn(ax, form, tail);
            if (!strcmp(h, "case"))
                return analyze_case(ax, form, tail);
            if (!strcmp(h, "recur")) {
                fscope *sc = ax->sc;
                if (!sc->can_recur)
                    ax_error(ax, form, QR_LE_PARSE, "recur outside of a loop or fn");
                if (!tail)
                    ax_error(ax, form, QR_LE_PARSE,
                             "recur must be in tail position (the last thing its loop or fn "
                             "does)");
                if ((int)n - 1 != sc->recur_n)
                    ax_error(ax, form, QR_LE_ARITY,
                             "recur expects %d arguments (one per loop binding or parameter), "
                             "got %zu",
                             sc->recur_n, n - 1);
                if (n - 1 > 64)
                    ax_error(ax, form, QR_LE_ARITY, "recur takes at most 64 arguments");
                node *nd = mk(ax, N_RECUR, form);
                nd->recur.n = (int)n - 1;
                nd->recur.slots = sc->recur_slots;
                nd->recur.args = ax_alloc(ax, sizeof(node *) * (n ? n : 1));
                for (size_t i = 1; i < n; i++)
                    nd->recur.args[i - 1] = analyze(ax, it[i], false);
                return nd;
            }
            if (!strcmp(h, "def")) {
                if (n < 2 || n > 4 || it[1].t != QR_T_SYM || it[1].sym->ns_len)
                    ax_error(ax, form, QR_LE_PARSE, "def expects a name and a value, as in "
                                                    "(def x 1)");
                node *nd = mk(ax, N_DEF, form);
                nd->def.g = lx_global_intern(ax->s, it[1].sym);
                nd->def.init = n >= 3 ? analyze(ax, it[n - 1], false) : NULL;
                return nd;
            }
            if (!strcmp(h, "var")) {
                if (n != 2 || it[1].t != QR_T_SYM)
                    ax_error(ax, form, QR_LE_PARSE, "var expects a symbol");
                global *g = lx_global_find(ax->s, it[1].sym);
                qr_val pending = ax->s->pending_defs;
                if (!g && pending.t == QR_T_SET && qr_set_has(pending, it[1]))
                    g = lx_global_intern(ax->s, it[1].sym);
                if (!g)
                    ax_error(ax, form, QR_LE_UNBOUND, "unable to resolve var '%s'",
                             it[1].sym->text);
                qr_val v = {.t = QR_T_VAR};
                v.var = &g->var;
                return mk_const(ax, v);
            }
            if (!strcmp(h, "and") || !strcmp(h, "or")) {
                bool is_and = h[0] == 'a';
                if (n == 1)
                    return mk_const(ax, is_and ? qr_bool(true) : qr_nil());
                if (n == 2)
                    return analyze(ax, it[1], tail);
                node *nd = mk(ax, is_and ? N_AND : N_OR, form);
                nd->seq.n = (int)n - 1;
                nd->seq.items = ax_alloc(ax, sizeof(node *) * n);
                for (size_t i = 1; i < n; i++)
                    nd->seq.items[i - 1] = analyze(ax, it[i], false);
                return nd;
            }
            if (!strcmp(h, "return") || !strcmp(h, "fail")) {
                if (n > 2)
                    ax_error(ax, form, QR_LE_ARITY, "%s expects one value", h);
                node *nd = mk(ax, h[0] == 'r' ? N_RETURN : N_FAIL, form);
                nd->arg = n == 2 ? analyze(ax, it[1], false) : mk_const(ax, qr_nil());
                return nd;
            }
            qr_val expanded;
            if (lx_expand(ax, form, &expanded)) {
                if (++ax->depth > 400)
                    ax_error(ax, form, QR_LE_DEPTH, "forms nested too deeply");
                node *r = analyze(ax, expanded, tail);
                ax->depth--;
                return r;
            }
        }
    }
    if (head.t == QR_T_SYM && head.sym->ns_len == 4 && memcmp(head.sym->text, "tool", 4) == 0) {
        if (n > 2)
            ax_error(ax, form, QR_LE_ARITY,
                     "a tool takes one map of parameters, as in (%s {:since \"1 week ago\"})",
                     head.sym->text);
        node *nd = mk(ax, N_TOOL, form);
        nd->tool.name = head.sym->text + 5;
        nd->tool.arg = n == 2 ? analyze(ax, it[1], false) : NULL;
        return nd;
    }
    if (head.t == QR_T_KW && (n == 2 || n == 3)) {
        node *nd = mk(ax, N_KWGET, form);
        nd->kwget.kw = head;
        nd->kwget.argc = (int)n - 1;
        for (size_t i = 1; i < n; i++)
            nd->kwget.args[i - 1] = analyze(ax, it[i], false);
        return nd;
    }
    node *nd = mk(ax, N_CALL, form);
    nd->call.fn = analyze(ax, head, false);
    nd->call.argc = (int)n - 1;
    nd->call.args = ax_alloc(ax, sizeof(node *) * (n ? n : 1));
    for (size_t i = 1; i < n; i++)
        nd->call.args[i - 1] = analyze(ax, it[i], false);
    if (n - 1 > 1000)
        ax_error(ax, form, QR_LE_ARITY, "too many arguments (%zu)", n - 1);
    if (nd->call.fn->kind == N_CONST && nd->call.fn->k.t == QR_T_FN &&
        nd->call.fn->k.fn->kind == FN_BUILTIN) {
        const qr_builtin *b = (const qr_builtin *)nd->call.fn->k.fn;
        int argc = (int)n - 1;
        if (argc < b->min_args || (b->max_args >= 0 && argc > b->max_args))
            ax_error(ax, form, QR_LE_ARITY, "wrong number of arguments (%d) to '%s'; usage: (%s %s)",
                     argc, b->hdr.name, b->hdr.name, b->args);
        static const struct {
            const char *name;
            int op;
        } ops[] = {{"+", OP_ADD}, {"-", OP_SUB}, {"<", OP_LT}, {">", OP_GT},
                   {"<=", OP_LE}, {">=", OP_GE}, {"=", OP_EQ}};
        for (size_t i = 0; argc == 2 && i < sizeof ops / sizeof ops[0]; i++) {
            if (!strcmp(b->hdr.name, ops[i].name)) {
                nd->kind = N_OP2;
                nd->call.op = ops[i].op;
            }
        }
    }
    return nd;
}

static node *analyze_coll(lx_ax *ax, qr_val form)
{
    bool is_map = form.t == QR_T_MAP;
    size_t n = is_map ? 2 * qr_map_len(form) : form.c->len;
    node **items = ax_alloc(ax, sizeof(node *) * (n ? n : 1));
    bool all_const = true;
    for (size_t i = 0; i < n; i++) {
        qr_val x = is_map ? (i % 2 ? qr_map_val_at(form, i / 2) : qr_map_key_at(form, i / 2))
                   : form.t == QR_T_SET ? qr_map_key_at(form, i)
                                        : qr_vec_at(form, i);
        items[i] = analyze(ax, x, false);
        if (items[i]->kind != N_CONST)
            all_const = false;
    }
    if (all_const) {
        if (form.t == QR_T_VEC) {
            qr_vecb vb;
            qr_vecb_init(&vb, ax->a, n);
            for (size_t i = 0; i < n; i++)
                qr_vecb_push(&vb, items[i]->k);
            return mk_const(ax, qr_vecb_finish(&vb, QR_T_VEC));
        }
        /* build the value from the constants: quoted items are not their own value */
        qr_mapb mb;
        qr_mapb_init(&mb, ax->a, n);
        for (size_t i = 0; i < n; i += is_map ? 2 : 1) {
            if (qr_mapb_slot(&mb, items[i]->k))
                ax_error(ax, form, QR_LE_PARSE, "duplicate %s in literal",
                         is_map ? "key" : "item");
            qr_mapb_put(&mb, items[i]->k, is_map ? items[i + 1]->k : items[i]->k);
        }
        return mk_const(ax, qr_mapb_finish(&mb, form.t == QR_T_MAP ? QR_T_MAP : QR_T_SET));
    }
    node *nd = mk(ax, form.t == QR_T_VEC ? N_VEC : is_map ? N_MAP : N_SET, form);
    nd->seq.n = (int)n;
    nd->seq.items = items;
    return nd;
}

static node *analyze(lx_ax *ax, qr_val form, bool tail)
{
    if (++ax->depth > 800)
        ax_error(ax, form, QR_LE_DEPTH, "forms nested too deeply");
    node *r;
    switch ((qr_type)form.t) {
    case QR_T_SYM: r = analyze_symbol(ax, form); break;
    case QR_T_LIST:
        r = form.c->len == 0 ? mk_const(ax, form) : analyze_call(ax, form, tail);
        break;
    case QR_T_VEC:
    case QR_T_MAP:
    case QR_T_SET: r = analyze_coll(ax, form); break;
    default: r = mk_const(ax, form); break;
    }
    ax->depth--;
    return r;
}

node *lx_analyze(qr_lisp_session *s, qr_val form, int *nslots, lx_analyze_error *err)
{
    lx_ax ax = {.s = s, .a = &s->arena, .err = err};
    fscope top = {0};
    ax.sc = &top;
    memset(err, 0, sizeof *err);
    if (setjmp(ax.jb))
        return NULL;
    node *n = analyze(&ax, form, false);
    *nslots = top.max_slot;
    return n;
}

/*
 * ppconf.c: what the C preprocessor would decide without the build. The host's predefined
 * macros (gcc 12 on x86-64 GNU/Linux with glibc, the platform quarry indexes for); the
 * directive a line holds; and one configuration of a file's #if groups, read a line at a
 * time: each group takes the branch the preprocessor would, judged from the #define and
 * #undef lines met so far in taken code and the host's facts, other names undefined (0,
 * as #if reads them).
 *
 * extract.c asks it which branch a group takes where the grammar cannot read the group
 * with all its branches (a brace opened in one and closed in another), so that groups on
 * one condition (`#ifdef X ... #else` then `#ifndef X ... #endif`) are read alike, and,
 * as a last resort, for a whole file read as one configuration.
 *
 * Design: a line scanner, not a preprocessor: a name's value is a number it is #defined
 * as, 1 when it is defined otherwise; function-like macros in #if are unknown (0); nothing
 * is included (what another file defines is the assembled graph's business, judged with
 * the build's -D flags). Rejected: running cpp (needs the build's flags and include
 * paths, and yields one branch of each group where the graph keeps them all, marked).
 */
#include "ppconf.h"

#include <ctype.h>
#include <limits.h>
#include <stdlib.h>
#include <string.h>

#define CONF_NAMES 512
#define CONF_DEPTH 64

static bool is_ident_char(int c)
{
    return isalnum(c) || c == '_';
}

/* ---- the host ---- */

#define HOST_UNDEF (-0x7fffffffffffffffLL)

typedef struct host_macro {
    const char *name;
    long long value; /* HOST_UNDEF: known not to be defined */
} host_macro;

static const host_macro host_macros[] = {
    {"BIG_ENDIAN", 4321},
    {"BYTE_ORDER", 1234},
    {"CHAR_BIT", 8},
    {"LITTLE_ENDIAN", 1234},
    {"PDP_ENDIAN", 3412},
    {"_AIX", HOST_UNDEF},
    {"_LP64", 1},
    {"_MSC_BUILD", HOST_UNDEF},
    {"_MSC_VER", HOST_UNDEF},
    {"_M_AMD64", HOST_UNDEF},
    {"_M_ARM", HOST_UNDEF},
    {"_M_ARM64", HOST_UNDEF},
    {"_M_IA64", HOST_UNDEF},
    {"_M_IX86", HOST_UNDEF},
    {"_M_X64", HOST_UNDEF},
    {"_WIN32", HOST_UNDEF},
    {"_WIN64", HOST_UNDEF},
    {"_X86_", HOST_UNDEF},
    {"__386__", HOST_UNDEF},
    {"__ANDROID_API__", HOST_UNDEF},
    {"__ANDROID__", HOST_UNDEF},
    {"__APPLE__", HOST_UNDEF},
    {"__ARM_ARCH", HOST_UNDEF},
    {"__BIG_ENDIAN", 4321},
    {"__BIG_ENDIAN__", HOST_UNDEF},
    {"__BIONIC__", HOST_UNDEF},
    {"__BORLANDC__", HOST_UNDEF},
    {"__BYTE_ORDER", 1234},
    {"__BYTE_ORDER__", 1234},
    {"__CHAR_BIT__", 8},
    {"__CYGWIN32__", HOST_UNDEF},
    {"__CYGWIN__", HOST_UNDEF},
    {"__DJGPP__", HOST_UNDEF},
    {"__DragonFly__", HOST_UNDEF},
    {"__ELF__", 1},
    {"__EMSCRIPTEN__", HOST_UNDEF},
    {"__FreeBSD__", HOST_UNDEF},
    {"__FreeBSD_kernel__", HOST_UNDEF},
    {"__GLIBC__", 2},
    {"__GNUC_MINOR__", 2},
    {"__GNUC__", 12},
    {"__GNU__", HOST_UNDEF},
    {"__HAIKU__", HOST_UNDEF},
    {"__IBMC__", HOST_UNDEF},
    {"__INTEL_COMPILER", HOST_UNDEF},
    {"__LITTLE_ENDIAN", 1234},
    {"__LITTLE_ENDIAN__", 1},
    {"__LP64__", 1},
    {"__MACH__", HOST_UNDEF},
    {"__MINGW32__", HOST_UNDEF},
    {"__MINGW64__", HOST_UNDEF},
    {"__MSYS__", HOST_UNDEF},
    {"__MVS__", HOST_UNDEF},
    {"__NetBSD__", HOST_UNDEF},
    {"__ORDER_BIG_ENDIAN__", 4321},
    {"__ORDER_LITTLE_ENDIAN__", 1234},
    {"__ORDER_PDP_ENDIAN__", 3412},
    {"__OS2__", HOST_UNDEF},
    {"__OpenBSD__", HOST_UNDEF},
    {"__OpenBSD_version", HOST_UNDEF},
    {"__PDP_ENDIAN", 3412},
    {"__POWERPC__", HOST_UNDEF},
    {"__PPC64__", HOST_UNDEF},
    {"__PPC__", HOST_UNDEF},
    {"__QNXNTO__", HOST_UNDEF},
    {"__QNX__", HOST_UNDEF},
    {"__SIZEOF_INT__", 4},
    {"__SIZEOF_LONG_LONG__", 8},
    {"__SIZEOF_LONG__", 8},
    {"__SIZEOF_POINTER__", 8},
    {"__SIZEOF_SHORT__", 2},
    {"__SIZEOF_SIZE_T__", 8},
    {"__STDC_HOSTED__", 1},
    {"__STDC_VERSION__", 201710},
    {"__STDC__", 1},
    {"__SUNPRO_C", HOST_UNDEF},
    {"__SVR4", HOST_UNDEF},
    {"__TINYC__", HOST_UNDEF},
    {"__VMS", HOST_UNDEF},
    {"__WATCOMC__", HOST_UNDEF},
    {"__aarch64__", HOST_UNDEF},
    {"__alpha__", HOST_UNDEF},
    {"__amd64", 1},
    {"__amd64__", 1},
    {"__arch64__", HOST_UNDEF},
    {"__arm64__", HOST_UNDEF},
    {"__arm__", HOST_UNDEF},
    {"__bsdi__", HOST_UNDEF},
    {"__gnu_hurd__", HOST_UNDEF},
    {"__gnu_linux__", 1},
    {"__hppa__", HOST_UNDEF},
    {"__hpux", HOST_UNDEF},
    {"__i386__", HOST_UNDEF},
    {"__i486__", HOST_UNDEF},
    {"__i586__", HOST_UNDEF},
    {"__i686__", HOST_UNDEF},
    {"__ia64", HOST_UNDEF},
    {"__ia64__", HOST_UNDEF},
    {"__illumos__", HOST_UNDEF},
    {"__linux", 1},
    {"__linux__", 1},
    {"__loongarch64", HOST_UNDEF},
    {"__loongarch__", HOST_UNDEF},
    {"__m68k__", HOST_UNDEF},
    {"__minix", HOST_UNDEF},
    {"__mips", HOST_UNDEF},
    {"__mips64", HOST_UNDEF},
    {"__mips__", HOST_UNDEF},
    {"__powerpc64__", HOST_UNDEF},
    {"__powerpc__", HOST_UNDEF},
    {"__ppc64__", HOST_UNDEF},
    {"__ppc__", HOST_UNDEF},
    {"__riscv", HOST_UNDEF},
    {"__riscv_xlen", HOST_UNDEF},
    {"__s390__", HOST_UNDEF},
    {"__s390x__", HOST_UNDEF},
    {"__sh__", HOST_UNDEF},
    {"__sparc", HOST_UNDEF},
    {"__sparc__", HOST_UNDEF},
    {"__sparcv9", HOST_UNDEF},
    {"__sun", HOST_UNDEF},
    {"__sun__", HOST_UNDEF},
    {"__thumb__", HOST_UNDEF},
    {"__unix", 1},
    {"__unix__", 1},
    {"__wasm32__", HOST_UNDEF},
    {"__wasm64__", HOST_UNDEF},
    {"__wasm__", HOST_UNDEF},
    {"__x86_64", 1},
    {"__x86_64__", 1},
    {"linux", 1},
    {"unix", 1},
};

static int host_cmp(const void *k, const void *m)
{
    return strcmp(k, ((const host_macro *)m)->name);
}


bool qr__pp_host_macro(const char *name, bool *defined, long long *value)
{
    if (!name)
        return false;
    const host_macro *m = bsearch(name, host_macros, sizeof host_macros / sizeof *host_macros,
                                  sizeof *host_macros, host_cmp);
    if (!m)
        return false;
    *defined = m->value != HOST_UNDEF;
    *value = *defined ? m->value : 0;
    return true;
}

/* Whether the host knows the name w[0..n), with whether it defines it and its value. */
static bool host_word(const char *w, size_t n, bool *def, long long *v)
{
    char buf[64];
    if (n >= sizeof buf)
        return false;
    memcpy(buf, w, n);
    buf[n] = 0;
    return qr__pp_host_macro(buf, def, v);
}

/* ---- lines and directives ---- */

bool qr__pp_next_line(const char *src, size_t len, size_t *i, size_t *b, size_t *e)
{
    if (*i >= len)
        return false;
    *b = *i;
    while (*i < len && src[*i] != '\n')
        (*i)++;
    *e = *i;
    if (*i < len)
        (*i)++;
    return true;
}

/* The word of the directive line src[b..e) holds (`if`, `define`; empty for a `#` alone)
 * as [*w, *we): false when the line is no directive. */
static bool directive_word(const char *src, size_t b, size_t e, size_t *w, size_t *we)
{
    while (b < e && (src[b] == ' ' || src[b] == '\t'))
        b++;
    if (b >= e || src[b] != '#')
        return false;
    for (b++; b < e && (src[b] == ' ' || src[b] == '\t'); b++)
        ;
    *w = b;
    while (b < e && isalpha((unsigned char)src[b]))
        b++;
    *we = b;
    return true;
}

bool qr__pp_define_name(const char *src, size_t b, size_t e, size_t *nb, size_t *ne)
{
    size_t w, k;
    if (!directive_word(src, b, e, &w, &k) || k - w != 6 || memcmp(src + w, "define", 6) ||
        k >= e || (src[k] != ' ' && src[k] != '\t'))
        return false;
    while (k < e && (src[k] == ' ' || src[k] == '\t'))
        k++;
    w = k;
    while (k < e && is_ident_char((unsigned char)src[k]))
        k++;
    if (k == w || isdigit((unsigned char)src[w]))
        return false;
    *nb = w;
    *ne = k;
    return true;
}

int qr__pp_directive(const char *src, size_t b, size_t e)
{
    size_t w;
    if (!directive_word(src, b, e, &b, &w))
        return 0;
    size_t n = w - b;
    if ((n == 2 && !memcmp(src + b, "if", 2)) || (n == 5 && !memcmp(src + b, "ifdef", 5)) ||
        (n == 6 && !memcmp(src + b, "ifndef", 6)))
        return 1;
    if ((n == 4 && (!memcmp(src + b, "elif", 4) || !memcmp(src + b, "else", 4))) ||
        (n >= 7 && !memcmp(src + b, "elifdef", 7)) || (n == 8 && !memcmp(src + b, "elifndef", 8)))
        return 2;
    if (n == 5 && !memcmp(src + b, "endif", 5))
        return 3;
    return 0;
}

/* ---- #if expressions ---- */

typedef struct conf {
    const char *src;
    struct {
        size_t b, n;
        long long v;
        bool num;
        bool undef; /* known not to be defined: #undef */
    } names[CONF_NAMES];
    int nn;
    const char *p, *end; /* the #if expression being read */
    bool unknown;        /* it names a macro neither the file nor the host knows */
} conf;

static int conf_find(const conf *c, const char *w, size_t n)
{
    for (int i = 0; i < c->nn; i++)
        if (c->names[i].n == n && !memcmp(c->src + c->names[i].b, w, n))
            return i;
    return -1;
}

static void conf_skip(conf *c)
{
    while (c->p < c->end && (*c->p == ' ' || *c->p == '\t' || *c->p == '\\' || *c->p == '\n' ||
                             *c->p == '\r'))
        c->p++;
    if (c->p + 1 < c->end && c->p[0] == '/' && (c->p[1] == '*' || c->p[1] == '/'))
        c->p = c->end; /* a comment ends what is read */
}

/* The name that comes next, past blanks (the X of `defined X`, `#ifdef X`, `#define X`),
 * its length in *n (0: none). */
static const char *conf_next_name(conf *c, size_t *n)
{
    conf_skip(c);
    const char *x = c->p;
    while (c->p < c->end && is_ident_char((unsigned char)*c->p))
        c->p++;
    *n = (size_t)(c->p - x);
    return x;
}

static bool conf_op(conf *c, const char *op)
{
    conf_skip(c);
    size_t n = strlen(op);
    if ((size_t)(c->end - c->p) < n || memcmp(c->p, op, n))
        return false;
    /* `<` is not `<<` or `<=`, `&` not `&&`, `|` not `||` */
    if (n == 1 && c->p + 1 < c->end && strchr("<>&|=", *op) && c->p[1] == *op)
        return false;
    if (n == 1 && (*op == '<' || *op == '>' || *op == '!') && c->p + 1 < c->end &&
        c->p[1] == '=')
        return false;
    c->p += n;
    return true;
}

static long long conf_expr(conf *c, int prec, int depth);

/* A name's value in #if: a number it is defined as, 1 when defined otherwise (`#define
 * IEEE_8087`), the host's facts (__GNUC__, _WIN32), 0 when undefined. */
static long long conf_name(conf *c, const char *w, size_t n)
{
    int i = conf_find(c, w, n);
    if (i >= 0)
        return c->names[i].undef ? 0 : c->names[i].num ? c->names[i].v : 1;
    long long v;
    bool def;
    if (host_word(w, n, &def, &v))
        return v;
    c->unknown = true;
    return 0;
}

/* Whether the name w[0..n) is defined: by the file so far, or by the host; a name
 * neither knows is not, and makes the expression unknown. */
static bool conf_is_defined(conf *c, const char *w, size_t n)
{
    int i = conf_find(c, w, n);
    if (i >= 0)
        return !c->names[i].undef;
    long long v;
    bool def;
    if (host_word(w, n, &def, &v))
        return def;
    c->unknown = true;
    return false;
}

static long long conf_primary(conf *c, int depth)
{
    conf_skip(c);
    if (c->p >= c->end || depth > 64)
        return 0;
    if (conf_op(c, "(")) {
        long long v = conf_expr(c, 0, depth + 1);
        conf_op(c, ")");
        return v;
    }
    if (conf_op(c, "!"))
        return !conf_primary(c, depth + 1);
    if (conf_op(c, "-"))
        return -conf_primary(c, depth + 1);
    if (conf_op(c, "~"))
        return ~conf_primary(c, depth + 1);
    if (isdigit((unsigned char)*c->p)) {
        char *e;
        long long v = strtoll(c->p, &e, 0);
        c->p = e;
        while (c->p < c->end && is_ident_char((unsigned char)*c->p))
            c->p++; /* 1UL */
        return v;
    }
    if (is_ident_char((unsigned char)*c->p)) {
        const char *w = c->p;
        while (c->p < c->end && is_ident_char((unsigned char)*c->p))
            c->p++;
        size_t n = (size_t)(c->p - w);
        if (n == 7 && !memcmp(w, "defined", 7)) {
            bool paren = conf_op(c, "(");
            size_t xn;
            const char *x = conf_next_name(c, &xn);
            if (paren)
                conf_op(c, ")");
            return conf_is_defined(c, x, xn);
        }
        conf_skip(c);
        if (c->p < c->end && *c->p == '(') { /* a function-like macro: unknown, 0 */
            int d = 0;
            for (; c->p < c->end; c->p++) {
                if (*c->p == '(')
                    d++;
                else if (*c->p == ')' && --d == 0) {
                    c->p++;
                    break;
                }
            }
            return 0;
        }
        return conf_name(c, w, n);
    }
    c->p = c->end; /* what this reader does not know ends the expression */
    return 0;
}

/* The binary operators by precedence, lowest first. */
static const char *const conf_ops[][5] = {
    {"||", NULL}, {"&&", NULL}, {"|", NULL}, {"^", NULL}, {"&", NULL}, {"==", "!=", NULL},
    {"<=", ">=", "<", ">", NULL}, {"<<", ">>", NULL}, {"+", "-", NULL}, {"*", "/", "%", NULL}};

static long long conf_expr(conf *c, int prec, int depth)
{
    if (prec >= (int)(sizeof conf_ops / sizeof *conf_ops) || depth > 64)
        return conf_primary(c, depth + 1);
    long long a = conf_expr(c, prec + 1, depth + 1);
    for (;;) {
        const char *op = NULL;
        for (int k = 0; conf_ops[prec][k] && !op; k++)
            if (conf_op(c, conf_ops[prec][k]))
                op = conf_ops[prec][k];
        if (!op)
            break;
        long long b = conf_expr(c, prec + 1, depth + 1);
        unsigned long long ua = (unsigned long long)a, ub = (unsigned long long)b;
        if (!strcmp(op, "||")) a = a || b;
        else if (!strcmp(op, "&&")) a = a && b;
        else if (!strcmp(op, "|")) a = a | b;
        else if (!strcmp(op, "^")) a = a ^ b;
        else if (!strcmp(op, "&")) a = a & b;
        else if (!strcmp(op, "==")) a = a == b;
        else if (!strcmp(op, "!=")) a = a != b;
        else if (!strcmp(op, "<=")) a = a <= b;
        else if (!strcmp(op, ">=")) a = a >= b;
        else if (!strcmp(op, "<")) a = a < b;
        else if (!strcmp(op, ">")) a = a > b;
        else if (!strcmp(op, "<<")) a = b >= 0 && b < 64 ? (long long)(ua << b) : 0;
        else if (!strcmp(op, ">>")) a = b >= 0 && b < 64 ? a >> b : 0;
        else if (!strcmp(op, "+")) a = (long long)(ua + ub);
        else if (!strcmp(op, "-")) a = (long long)(ua - ub);
        else if (!strcmp(op, "*")) a = (long long)(ua * ub);
        else if (b == 0) a = 0;
        else if (!strcmp(op, "/")) a = a == LLONG_MIN && b == -1 ? a : a / b;
        else a = b == -1 ? 0 : a % b;
    }
    return a;
}


/* ---- one configuration, a line at a time ---- */

struct qr_ppconf {
    conf c;
    struct {
        bool active, taken; /* the enclosing code's state; a branch of this group taken */
    } st[CONF_DEPTH];
    int depth, over; /* over: groups deeper than CONF_DEPTH */
    bool active;
};

qr_ppconf *qr__ppconf_new(const char *src)
{
    qr_ppconf *p = calloc(1, sizeof *p);
    if (p) {
        p->c.src = src;
        p->active = true;
    }
    return p;
}

void qr__ppconf_free(qr_ppconf *p)
{
    free(p);
}

bool qr__ppconf_active(const qr_ppconf *p)
{
    return p->active;
}

/* #ifdef X (ifdef) or #ifndef X: whether X is defined, the expression at c->p. */
static bool conf_defined(conf *c)
{
    size_t xn;
    const char *x = conf_next_name(c, &xn);
    return conf_is_defined(c, x, xn);
}

int qr__ppconf_line(qr_ppconf *p, size_t b, size_t e, bool *taken, bool *unknown)
{
    conf *c = &p->c;
    const char *src = c->src;
    int d = qr__pp_directive(src, b, e);
    *taken = false;
    c->unknown = false;
    size_t w, we;
    if (!directive_word(src, b, e, &w, &we))
        return d;
    c->p = src + we;
    c->end = src + e;
    size_t wn = we - w;
    if (d == 1) {
        bool v;
        if (wn == 5) /* #ifdef */
            v = conf_defined(c);
        else if (wn == 6) /* #ifndef */
            v = !conf_defined(c);
        else
            v = conf_expr(c, 0, 0) != 0;
        *taken = v;
        if (p->depth < CONF_DEPTH) {
            p->st[p->depth].active = p->active;
            p->st[p->depth].taken = v;
            p->depth++;
            p->active = p->active && v;
        } else {
            p->over++;
        }
    } else if (d == 2 && !p->over && p->depth > 0) {
        bool is_else = wn == 4 && !memcmp(src + w, "else", 4);
        bool v = !p->st[p->depth - 1].taken;
        if (v && !is_else) {
            if (wn == 7 && !memcmp(src + w, "elifdef", 7))
                v = conf_defined(c);
            else if (wn == 8 && !memcmp(src + w, "elifndef", 8))
                v = !conf_defined(c);
            else
                v = conf_expr(c, 0, 0) != 0;
        }
        if (v)
            p->st[p->depth - 1].taken = true;
        *taken = v;
        p->active = p->st[p->depth - 1].active && v;
    } else if (d == 3) {
        if (p->over)
            p->over--;
        else if (p->depth > 0)
            p->active = p->st[--p->depth].active;
    } else if (d == 0 && p->active && ((wn == 6 && !memcmp(src + w, "define", 6)) ||
                                       (wn == 5 && !memcmp(src + w, "undef", 5)))) {
        size_t xn;
        const char *x = conf_next_name(c, &xn);
        int at = xn ? conf_find(c, x, xn) : -1;
        if (xn && (at >= 0 || c->nn < CONF_NAMES)) {
            if (at < 0)
                at = c->nn++;
            c->names[at].b = (size_t)(x - src);
            c->names[at].n = xn;
            c->names[at].undef = src[w] == 'u';
            conf_skip(c);
            char *num_end;
            long long v = c->p < c->end ? strtoll(c->p, &num_end, 0) : 0;
            c->names[at].num = c->p < c->end && num_end > c->p &&
                               (num_end >= c->end || !is_ident_char((unsigned char)*num_end));
            c->names[at].v = c->names[at].num ? v : 0;
        }
    }
    *unknown = c->unknown;
    return d;
}

bool qr__ppconf_defines(const char *src, size_t len,
                        void (*name)(void *ud, const char *w, size_t n, bool zero), void *ud)
{
    qr_ppconf *p = qr__ppconf_new(src);
    if (!p)
        return false;
    size_t i = 0, b, e;
    while (qr__pp_next_line(src, len, &i, &b, &e)) {
        /* a directive goes on past a backslash at the end of its line */
        size_t nb, ne;
        while (e > b && src[e - 1] == '\\' && qr__pp_next_line(src, len, &i, &nb, &ne))
            e = ne;
        bool active = qr__ppconf_active(p), taken, unknown;
        qr__ppconf_line(p, b, e, &taken, &unknown);
        size_t w, k;
        if (!active || !qr__pp_define_name(src, b, e, &w, &k))
            continue;
        /* its value: the number 0, then nothing but blanks or a comment */
        size_t v = k;
        while (v < e && (src[v] == ' ' || src[v] == '\t'))
            v++;
        bool zero = v > k && v < e && src[v] == '0';
        for (v++; zero && v < e && strchr("uUlL", src[v]); v++)
            ;
        while (zero && v < e && (src[v] == ' ' || src[v] == '\t'))
            v++;
        zero = zero && (v >= e || (src[v] == '/' && v + 1 < e && (src[v + 1] == '*' || src[v + 1] == '/')));
        name(ud, src + w, k - w, zero);
    }
    qr__ppconf_free(p);
    return true;
}

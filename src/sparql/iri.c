/*
 * iri.c: resolution of relative IRIs against a base (RFC 3986, section 5.2, with the
 * removal of dot segments), for the query's BASE, its relative IRIs and IRI().
 */
#include "sparql_int.h"

#include <ctype.h>
#include <string.h>

/* ---- IRIs ---- */
static void remove_dots(char *out, size_t *n)
{
    /* RFC 3986 5.2.4 over out[0..*n) in place */
    char *in = out;
    size_t len = *n, o = 0, i = 0;
    char *buf = in;
    while (i < len) {
        if (!strncmp(buf + i, "../", 3) && i + 3 <= len) {
            i += 3;
        } else if (!strncmp(buf + i, "./", 2) && i + 2 <= len) {
            i += 2;
        } else if (i + 3 <= len && !strncmp(buf + i, "/./", 3)) {
            i += 2;
        } else if (i + 2 == len && !strncmp(buf + i, "/.", 2)) {
            buf[i + 1] = '/';
            i += 1;
        } else if (i + 4 <= len && !strncmp(buf + i, "/../", 4)) {
            i += 3;
            while (o > 0 && out[o - 1] != '/')
                o--;
            if (o > 0)
                o--;
        } else if (i + 3 == len && !strncmp(buf + i, "/..", 3)) {
            i += 2;
            buf[i] = '/';
            while (o > 0 && out[o - 1] != '/')
                o--;
            if (o > 0)
                o--;
        } else if ((i + 1 == len && buf[i] == '.') || (i + 2 == len && !strncmp(buf + i, "..", 2))) {
            break;
        } else {
            do {
                out[o++] = buf[i++];
            } while (i < len && buf[i] != '/');
        }
    }
    *n = o;
}

static bool has_scheme(const char *s, size_t n)
{
    if (!n || !isalpha((unsigned char)s[0]))
        return false;
    for (size_t i = 1; i < n; i++) {
        if (s[i] == ':')
            return true;
        if (!isalnum((unsigned char)s[i]) && s[i] != '+' && s[i] != '-' && s[i] != '.')
            return false;
    }
    return false;
}

char *sq_resolve_iri(qr_arena *a, const char *base, const char *r, size_t rn)
{
    if (!base || has_scheme(r, rn))
        return qr_arena_strndup(a, r, rn);
    size_t bn = strlen(base);
    size_t cap = bn + rn + 4;
    char *out = qr_arena_alloc(a, cap);
    if (!out)
        return NULL;
    /* split the base: scheme, authority, path, query */
    const char *colon = strchr(base, ':');
    size_t scheme_end = colon ? (size_t)(colon - base) + 1 : 0;
    size_t auth_end = scheme_end;
    if (bn >= scheme_end + 2 && base[scheme_end] == '/' && base[scheme_end + 1] == '/') {
        auth_end = scheme_end + 2;
        while (auth_end < bn && base[auth_end] != '/' && base[auth_end] != '?' &&
               base[auth_end] != '#')
            auth_end++;
    }
    size_t path_end = auth_end;
    while (path_end < bn && base[path_end] != '?' && base[path_end] != '#')
        path_end++;
    size_t query_end = path_end;
    while (query_end < bn && base[query_end] != '#')
        query_end++;
    size_t o = 0;
    if (rn >= 2 && r[0] == '/' && r[1] == '/') {
        memcpy(out, base, scheme_end);
        o = scheme_end;
        memcpy(out + o, r, rn);
        o += rn;
    } else if (rn == 0) {
        memcpy(out, base, query_end);
        o = query_end;
    } else if (r[0] == '#') {
        memcpy(out, base, query_end);
        o = query_end;
        memcpy(out + o, r, rn);
        o += rn;
    } else if (r[0] == '?') {
        memcpy(out, base, path_end);
        o = path_end;
        memcpy(out + o, r, rn);
        o += rn;
    } else {
        memcpy(out, base, auth_end);
        o = auth_end;
        size_t pstart = o;
        if (r[0] == '/') {
            memcpy(out + o, r, rn);
            o += rn;
        } else {
            /* merge: base path up to its last '/' */
            size_t last = path_end;
            while (last > auth_end && base[last - 1] != '/')
                last--;
            if (last == auth_end && auth_end > scheme_end) {
                out[o++] = '/';
            } else {
                memcpy(out + o, base + auth_end, last - auth_end);
                o += last - auth_end;
            }
            memcpy(out + o, r, rn);
            o += rn;
        }
        /* remove dot segments from the path part (stop at ? or #) */
        size_t pe = pstart;
        while (pe < o && out[pe] != '?' && out[pe] != '#')
            pe++;
        size_t plen = pe - pstart, tail = o - pe;
        char *tmp = qr_arena_alloc(a, tail + 1);
        if (!tmp)
            return NULL;
        memcpy(tmp, out + pe, tail);
        remove_dots(out + pstart, &plen);
        memcpy(out + pstart + plen, tmp, tail);
        o = pstart + plen + tail;
    }
    out[o] = 0;
    return out;
}


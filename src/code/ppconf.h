/*
 * ppconf.h: what the C preprocessor would decide without the build (ppconf.c), for
 * extract.c: the host's predefined macros, the directive a line holds, and one
 * configuration of a file's #if groups read line by line.
 */
#ifndef QUARRY_CODE_PPCONF_H
#define QUARRY_CODE_PPCONF_H

#include <stdbool.h>
#include <stddef.h>

/* The host's knowledge of macro `name` (gcc 12 on x86-64 GNU/Linux and glibc): true when
 * known, with *defined and *value set (value 0 when not defined). __cplusplus is not
 * known here (it depends on how the file is read). */
bool qr__pp_host_macro(const char *name, bool *defined, long long *value);

/* The next line of src from *i: its bounds [*b, *e) without the newline; false at the
 * end. */
bool qr__pp_next_line(const char *src, size_t len, size_t *i, size_t *b, size_t *e);

/* The macro a `#define` line src[b..e) defines (`#  define NAME(a) x`, blanks allowed
 * around the '#'): true with [*nb, *ne) the name's bounds, the name's end being where its
 * parameter list or its replacement begins; false for any other line, or a #define with
 * no name. */
bool qr__pp_define_name(const char *src, size_t b, size_t e, size_t *nb, size_t *ne);

/* The directive the line src[b..e) holds: 1 #if/#ifdef/#ifndef, 2 #elif/#else (and
 * #elifdef), 3 #endif, 0 another line. */
int qr__pp_directive(const char *src, size_t b, size_t e);

/* One configuration of a file, read a logical line at a time (a directive with its
 * backslash-continued lines): each group takes the branch the preprocessor would, judged
 * from the #define and #undef lines read so far in taken code and the host's facts;
 * other names are undefined (0). */
typedef struct qr_ppconf qr_ppconf;

/* NULL when out of memory. src must outlive the reader. */
qr_ppconf *qr__ppconf_new(const char *src);
void qr__ppconf_free(qr_ppconf *c);

/* Reads the logical line src[b..e) and returns qr__pp_directive's answer for it. For an
 * #if line or an #elif/#else line, *taken says whether the branch it opens is the one the
 * group takes (whatever the enclosing groups take), and *unknown whether its condition
 * names a macro neither the file (a #define or #undef so far) nor the host knows: one the
 * build defines (-D, a generated config.h) or not, which this reading cannot tell. */
int qr__ppconf_line(qr_ppconf *c, size_t b, size_t e, bool *taken, bool *unknown);

/* Whether the lines after the last one read are compiled in this configuration. */
bool qr__ppconf_active(const qr_ppconf *c);

/* The macros a header defines in its one configuration (a configuration header the build
 * generated, curl_config.h or ngx_auto_config.h, read as the build reads it): calls
 * name(ud, w, n, zero) for each #define in compiled-in code, in order, zero when it
 * defines the object-like macro as the number 0 (`#define HAVE_DECL_X 0`). false when
 * out of memory. */
bool qr__ppconf_defines(const char *src, size_t len,
                        void (*name)(void *ud, const char *w, size_t n, bool zero), void *ud);

#endif

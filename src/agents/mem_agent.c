/*
 * mem_agent.c: reading and checking a memory agent's file (agents/NAME.toml,
 * see quarry/mem_agent.h and docs/memory-agents.md): the TOML document, its
 * schema (three tables, six keys), the pipeline (parsed by the pipeline
 * language), the template (its placeholders), the actions and the schedule.
 *
 * Design: the file is read with quarry's TOML reader into a map, then walked
 * against one table of known keys per table, so an unknown table or key is an
 * error with a "did you mean" hint, never ignored. The TOML value carries no
 * positions, so the line an error names is found again by scanning the text for
 * the key under its table header (as the model configuration does); for a
 * template the placeholder's line inside the string is added. Every check fails
 * on the first problem with one line "PATH:LINE: message": an agent file is
 * small and written by hand, one fix at a time. Rejected: defaults for a
 * missing pipeline or template (an agent that silently reads the whole store);
 * `placeholders = [...]` in [prompt] as the seed sketched (the template already
 * says which it uses; a second list can only disagree with it); ignoring
 * unknown keys (a typo such as "shedule" would silently make a daily agent
 * on-demand).
 */
#define _XOPEN_SOURCE 700 /* realpath */
#include "quarry/mem_agent.h"
#include "quarry/pipeline.h"
#include "quarry/toml.h"

#include <errno.h>
#include <fcntl.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <sys/stat.h>
#include <unistd.h>

static const struct {
    unsigned bit;
    const char *name;
} action_names[] = {
    {QR_MEM_AGENT_LINK_ADD, "link-add"},
    {QR_MEM_AGENT_WEIGHT, "weight"},
    {QR_MEM_AGENT_WRITE, "write"},
    {QR_MEM_AGENT_REFINE, "refine"},
};
#define NACTIONS (sizeof action_names / sizeof action_names[0])

const char *qr_mem_agent_action_name(unsigned kind)
{
    for (size_t i = 0; i < NACTIONS; i++)
        if (action_names[i].bit == kind)
            return action_names[i].name;
    return NULL;
}

bool qr_mem_agent_name_valid(const char *s, size_t n)
{
    if (n == 0 || n > QR_MEM_WORD_MAX)
        return false;
    for (size_t i = 0; i < n; i++)
        if (!((s[i] >= 'a' && s[i] <= 'z') || (s[i] >= '0' && s[i] <= '9') || s[i] == '-'))
            return false;
    return true;
}

int qr_mem_agent_schedule_parse(const char *s, size_t n, int64_t *period)
{
    static const struct {
        const char *word;
        int64_t secs;
    } words[] = {{"on-demand", 0}, {"hourly", 3600}, {"daily", 86400}, {"weekly", 604800}};
    for (size_t i = 0; i < sizeof words / sizeof words[0]; i++)
        if (strlen(words[i].word) == n && !memcmp(words[i].word, s, n)) {
            *period = words[i].secs;
            return QR_OK;
        }
    size_t i = 0;
    int64_t count = 0;
    while (i < n && s[i] >= '0' && s[i] <= '9' && count < 1000000)
        count = count * 10 + (s[i++] - '0');
    if (i == 0 || i + 1 != n)
        return QR_EINVAL;
    int64_t unit = s[i] == 'm'   ? 60
                   : s[i] == 'h' ? 3600
                   : s[i] == 'd' ? 86400
                   : s[i] == 'w' ? 604800
                                 : 0;
    if (!unit || count <= 0 || count * unit > 365 * 86400)
        return QR_EINVAL;
    *period = count * unit;
    return QR_OK;
}

/* ---- did you mean ---- */

/* The candidate closest to s[0..n) when it is close enough to be a typo, else
 * NULL. */
static const char *near(const char *s, size_t n, const char *const *cands, size_t ncands)
{
    const char *best = NULL;
    size_t bestd = (size_t)-1;
    for (size_t i = 0; i < ncands; i++) {
        size_t d = qr_edit_distance(s, n, cands[i], strlen(cands[i]), 0);
        if (d < bestd) {
            bestd = d;
            best = cands[i];
        }
    }
    size_t limit = n < 6 ? 2 : n / 3 + 1;
    return bestd <= limit ? best : NULL;
}

/* ---- positions ---- */

static bool is_blank(char c)
{
    return c == ' ' || c == '\t';
}

/* Reads the key at the start of a line (bare or quoted) into buf; returns its
 * length or 0 when the line does not start with one. */
static size_t line_key(const char *p, const char *end, char *buf, size_t cap)
{
    size_t n = 0;
    if (p < end && (*p == '"' || *p == '\'')) {
        char q = *p++;
        while (p < end && *p != q && *p != '\n' && n + 1 < cap)
            buf[n++] = *p++;
        if (p >= end || *p != q)
            return 0;
    } else {
        while (p < end && n + 1 < cap &&
               ((*p >= 'a' && *p <= 'z') || (*p >= 'A' && *p <= 'Z') || (*p >= '0' && *p <= '9') ||
                *p == '_' || *p == '-'))
            buf[n++] = *p++;
    }
    buf[n] = 0;
    return n;
}

/* The 1-based line where `key` is written under [table] (table "" for the root;
 * key NULL for the header itself), or 0 when it cannot be found. *after (may be
 * NULL) gets the text after the '=' of that line. */
static uint32_t find_line(const char *text, size_t len, const char *table, const char *key,
                          const char **after)
{
    const char *p = text, *end = text + len;
    char cur[80] = "";
    uint32_t line = 1;
    while (p < end) {
        const char *eol = memchr(p, '\n', (size_t)(end - p));
        if (!eol)
            eol = end;
        const char *q = p;
        while (q < eol && is_blank(*q))
            q++;
        if (q < eol && *q == '[') {
            q++;
            bool arr = q < eol && *q == '[';
            q += arr;
            while (q < eol && is_blank(*q))
                q++;
            char name[80];
            if (line_key(q, eol, name, sizeof name)) {
                snprintf(cur, sizeof cur, "%s", name);
                if (!key && !strcmp(cur, table))
                    return line;
            } else {
                cur[0] = 0;
            }
        } else if (key && !strcmp(cur, table)) {
            char name[80];
            size_t n = line_key(q, eol, name, sizeof name);
            if (n && !strcmp(name, key)) {
                const char *r = q + n + (*q == '"' || *q == '\'' ? 2 : 0);
                while (r < eol && is_blank(*r))
                    r++;
                if (r < eol && (*r == '=' || *r == '.')) {
                    if (after)
                        *after = r + 1;
                    return line;
                }
            }
        }
        p = eol + 1;
        line++;
    }
    return 0;
}

typedef struct load_ctx {
    const char *path;
    const char *text;
    size_t len;
    qr_buf *err;
} load_ctx;

static int fail_at(load_ctx *c, uint32_t line, const char *fmt, ...)
    __attribute__((format(printf, 3, 4)));
static int fail_at(load_ctx *c, uint32_t line, const char *fmt, ...)
{
    if (c->err) {
        qr_buf_reset(c->err);
        qr_buf_printf(c->err, "%s:%u: ", c->path, line ? line : 1);
        va_list ap;
        va_start(ap, fmt);
        qr_buf_vprintf(c->err, fmt, ap);
        va_end(ap);
        /* one line: a message quoting the file's text (a pipeline with a newline in it)
         * gets its control characters as spaces */
        for (size_t i = 0; c->err->p && i < c->err->len; i++)
            if ((unsigned char)c->err->p[i] < 0x20)
                c->err->p[i] = ' ';
    }
    return QR_EINVAL;
}

static uint32_t line_of(load_ctx *c, const char *table, const char *key)
{
    uint32_t l = find_line(c->text, c->len, table, key, NULL);
    if (!l && key)
        l = find_line(c->text, c->len, table, NULL, NULL);
    return l;
}

/* A key's name (string or keyword) as a C string, cut to fit. */
static void key_name(qr_val k, char *buf, size_t cap)
{
    const char *s = "";
    size_t n = 0;
    if (k.t == QR_T_STR) {
        s = k.s->data;
        n = k.s->len;
    } else if (k.t == QR_T_KW) {
        s = qr_sym_name(k.sym, &n);
    }
    size_t o = 0;
    for (size_t i = 0; i < n && o + 1 < cap; i++)
        buf[o++] = (unsigned char)s[i] < 0x20 ? '?' : s[i];
    if (o < n) /* cut at a character boundary */
        while (o > 0 && ((unsigned char)s[o] & 0xC0) == 0x80)
            o--;
    buf[o] = 0;
}

static const char *const tables[] = {"query", "prompt", "execution"};
static const char *const query_keys[] = {"pipeline"};
static const char *const prompt_keys[] = {"template", "template_file"};
static const char *const exec_keys[] = {"model", "actions", "schedule"};

static const char *table_of_key(const char *k)
{
    for (size_t i = 0; i < 1; i++)
        if (!strcmp(k, query_keys[i]))
            return "query";
    for (size_t i = 0; i < 2; i++)
        if (!strcmp(k, prompt_keys[i]))
            return "prompt";
    for (size_t i = 0; i < 3; i++)
        if (!strcmp(k, exec_keys[i]))
            return "execution";
    return NULL;
}

/* Checks that every key of table `name` is one of keys[]. */
static int check_keys(load_ctx *c, const char *name, qr_val t, const char *const *keys,
                      size_t nkeys)
{
    for (size_t i = 0; i < qr_map_len(t); i++) {
        char k[80];
        key_name(qr_map_key_at(t, i), k, sizeof k);
        bool known = false;
        for (size_t j = 0; j < nkeys; j++)
            known |= !strcmp(k, keys[j]);
        if (known)
            continue;
        uint32_t line = line_of(c, name, k);
        if (!strcmp(name, "prompt") && !strcmp(k, "placeholders"))
            return fail_at(c, line,
                           "unknown key [prompt] placeholders: the template's placeholders are "
                           "read from the template itself; remove this key");
        const char *other = table_of_key(k);
        if (other)
            return fail_at(c, line, "key '%s' belongs in the [%s] table, not [%s]", k, other, name);
        const char *sug = near(k, strlen(k), keys, nkeys);
        if (sug)
            return fail_at(c, line, "unknown key [%s] %s; did you mean '%s'?", name, k, sug);
        qr_buf known_list;
        qr_buf_init(&known_list);
        for (size_t j = 0; j < nkeys; j++)
            qr_buf_printf(&known_list, "%s%s", j ? ", " : "", keys[j]);
        int rc = fail_at(c, line, "unknown key [%s] %s; [%s] holds %s", name, k, name,
                         known_list.p ? known_list.p : "");
        qr_buf_release(&known_list);
        return rc;
    }
    return QR_OK;
}

/* A string value of table t: QR_OK with *s (NULL when absent), or an error for
 * a value of another type or an empty one. */
static int get_string(load_ctx *c, const char *table, qr_val t, const char *key, const qr_str **s)
{
    *s = NULL;
    for (size_t i = 0; !qr_is_nil(t) && i < qr_map_len(t); i++) {
        char k[80];
        key_name(qr_map_key_at(t, i), k, sizeof k);
        if (strcmp(k, key))
            continue;
        qr_val v = qr_map_val_at(t, i);
        if (v.t != QR_T_STR) {
            qr_buf d;
            qr_buf_init(&d);
            qr_describe(&d, v);
            int rc = fail_at(c, line_of(c, table, key), "[%s] %s must be a string, not %s", table,
                             key, d.p ? d.p : "that");
            qr_buf_release(&d);
            return rc;
        }
        if (v.s->len == 0 || strspn(v.s->data, " \t\r\n") == v.s->len)
            return fail_at(c, line_of(c, table, key), "[%s] %s must not be empty", table, key);
        *s = v.s;
        return QR_OK;
    }
    return QR_OK;
}

static char *dup_n(const char *s, size_t n)
{
    char *p = malloc(n + 1);
    if (p) {
        memcpy(p, s, n);
        p[n] = 0;
    }
    return p;
}

void qr_mem_agent_free(qr_mem_agent *a)
{
    if (!a)
        return;
    free(a->name);
    free(a->path);
    free(a->pipeline_text);
    qr_pipeline_free(a->pipeline);
    free(a->template);
    free(a->template_path);
    free(a->model);
    free(a->schedule);
    free(a);
}

/* The line of the template's first line in the agent file: the key's line, one
 * more when a multi-line string starts right after its opening quotes. */
static uint32_t template_first_line(load_ctx *c)
{
    const char *after = NULL;
    uint32_t line = find_line(c->text, c->len, "prompt", "template", &after);
    if (!line || !after)
        return line;
    const char *end = c->text + c->len;
    while (after < end && is_blank(*after))
        after++;
    if (end - after >= 3 && (!memcmp(after, "\"\"\"", 3) || !memcmp(after, "'''", 3))) {
        const char *r = after + 3;
        while (r < end && is_blank(*r))
            r++;
        if (r < end && (*r == '\n' || *r == '\r'))
            line++;
    }
    return line;
}

/* ---- template_file ---- */

/* The agent file's directory: "" for a bare name, else up to and with its '/'. */
static size_t dir_len(const char *path)
{
    const char *slash = strrchr(path, '/');
    return slash ? (size_t)(slash - path) + 1 : 0;
}

/* True when rel is relative and has no ".." component. */
static bool rel_path_ok(const char *rel)
{
    if (!*rel || rel[0] == '/')
        return false;
    for (const char *p = rel; *p;) {
        size_t n = strcspn(p, "/");
        if (n == 2 && p[0] == '.' && p[1] == '.')
            return false;
        p += n;
        p += *p == '/';
    }
    return true;
}

/* Opens rel below the directory dfd, one component at a time, never following a
 * symbolic link (O_NOFOLLOW on each) and never blocking (O_NONBLOCK: a FIFO
 * opens at once and is then refused as not a regular file). Returns the fd or -1
 * with errno. Takes dfd. */
static int open_below(int dfd, const char *rel)
{
    char comp[256];
    const char *p = rel;
    for (;;) {
        size_t n = strcspn(p, "/");
        if (n >= sizeof comp) {
            close(dfd);
            errno = ENAMETOOLONG;
            return -1;
        }
        memcpy(comp, p, n);
        comp[n] = 0;
        p += n;
        while (*p == '/')
            p++;
        bool last = *p == 0;
        if (n == 0) { /* unreachable: rel_path_ok refuses a leading '/' */
            close(dfd);
            errno = ENOENT;
            return -1;
        }
        int fd = openat(dfd, comp,
                        last ? O_RDONLY | O_NOFOLLOW | O_NONBLOCK | O_CLOEXEC
                             : O_RDONLY | O_DIRECTORY | O_NOFOLLOW | O_CLOEXEC);
        int e = errno;
        close(dfd);
        errno = e;
        if (fd < 0 || last)
            return fd;
        dfd = fd;
    }
}

/* Reads [prompt] template_file into ag->template. The file must stay inside the
 * agent's directory: a relative path without "..", no symbolic link on the way
 * (an agent file is data, and the template is sent to a model and printed by
 * --dry-run: a link to ~/.ssh/id_rsa must not be read), a regular file of at most
 * QR_MEM_AGENT_FILE_MAX bytes, and realpath() inside the directory's realpath as
 * a second check. */
static int read_template_file(load_ctx *c, qr_mem_agent *ag, const char *rel, uint32_t kline)
{
    if (!rel_path_ok(rel))
        return fail_at(c, kline,
                       "template_file '%s' must be a path relative to the agent file's "
                       "directory, without '..'; put the template beside the agent file",
                       rel);
    size_t dl = dir_len(c->path);
    qr_buf p;
    qr_buf_init(&p);
    qr_buf_append(&p, c->path, dl);
    qr_buf_puts(&p, rel);
    char *dir = dup_n(dl ? c->path : ".", dl ? dl : 1);
    if (p.failed || !dir) {
        qr_buf_release(&p);
        free(dir);
        return QR_ENOMEM;
    }
    ag->template_path = qr_buf_detach(&p, NULL);
    const char *tp = ag->template_path;
    char *rdir = NULL, *rfile = NULL;
    int rc = QR_OK, fd = -1;
    int dfd = open(dir, O_RDONLY | O_DIRECTORY | O_CLOEXEC);
    fd = dfd < 0 ? -1 : open_below(dfd, rel);
    struct stat st;
    if (fd < 0) {
        if (errno == ELOOP || errno == ENOTDIR)
            rc = fail_at(c, kline,
                         "template_file '%s' is or passes through a symbolic link (or a "
                         "path component is not a directory); links are not followed: "
                         "copy the template into the agent directory",
                         tp);
        else
            rc = fail_at(c, kline,
                         "cannot read template_file '%s': %s; the path is relative to the "
                         "agent file's directory",
                         tp, strerror(errno));
        goto done;
    }
    if (fstat(fd, &st) != 0 || !S_ISREG(st.st_mode)) {
        rc = fail_at(c, kline, "template_file '%s' is not a regular file", tp);
        goto done;
    }
    if (st.st_size > (off_t)QR_MEM_AGENT_FILE_MAX) {
        rc = fail_at(c, kline, "template_file '%s' is larger than %u bytes", tp,
                     QR_MEM_AGENT_FILE_MAX);
        goto done;
    }
    rdir = realpath(dir, NULL);
    rfile = realpath(tp, NULL);
    size_t rl = rdir ? strlen(rdir) : 0;
    if (!rdir || !rfile || strncmp(rfile, rdir, rl) || (rl > 1 && rfile[rl] != '/')) {
        rc = fail_at(c, kline, "template_file '%s' is outside the agent directory '%s'", tp, dir);
        goto done;
    }
    size_t cap = (size_t)st.st_size, n = 0;
    rc = QR_ENOMEM;
    if (!(ag->template = malloc(cap + 1)))
        goto done;
    while (n < cap) {
        ssize_t r = read(fd, ag->template + n, cap - n);
        if (r < 0 && errno == EINTR)
            continue;
        if (r < 0) {
            rc = fail_at(c, kline, "cannot read template_file '%s': %s", tp, strerror(errno));
            goto done;
        }
        if (r == 0)
            break;
        n += (size_t)r;
    }
    ag->template[n] = 0;
    ag->template_len = n;
    rc = QR_OK;
    if (!qr_utf8_valid(ag->template, n) || memchr(ag->template, 0, n))
        rc = fail_at(c, kline, "template_file '%s' is not UTF-8 text", tp);
done:
    if (fd >= 0)
        close(fd);
    free(rdir);
    free(rfile);
    free(dir);
    return rc;
}

static int load_template(load_ctx *c, qr_mem_agent *ag, const qr_str *inline_t,
                         const qr_str *file_t, int flags)
{
    if (inline_t && file_t)
        return fail_at(c, line_of(c, "prompt", "template_file"),
                       "[prompt] has both template and template_file; keep one");
    if (!inline_t && !file_t)
        return fail_at(c, line_of(c, "prompt", NULL),
                       "missing [prompt] template: give template = \"\"\"...\"\"\" or "
                       "template_file = \"NAME.md\" (beside the agent file)");
    const char *where = c->path;
    uint32_t first = 1;
    if (inline_t) {
        ag->template = dup_n(inline_t->data, inline_t->len);
        ag->template_len = inline_t->len;
        if (!ag->template)
            return QR_ENOMEM;
        first = template_first_line(c);
    } else {
        uint32_t kline = line_of(c, "prompt", "template_file");
        if (flags & QR_MEM_AGENT_NO_FILES)
            return fail_at(c, kline,
                           "[prompt] template_file is not allowed here; write the "
                           "template inline");
        if (memchr(file_t->data, 0, file_t->len))
            return fail_at(c, kline, "[prompt] template_file holds a NUL byte");
        int rc = read_template_file(c, ag, file_t->data, kline);
        if (rc != QR_OK)
            return rc;
        where = ag->template_path;
    }
    uint32_t tline = 0;
    qr_buf terr;
    qr_buf_init(&terr);
    int rc = qr_mem_agent_template_check(ag->template, ag->template_len, &tline, &terr);
    if (rc == QR_EINVAL) {
        load_ctx tc = *c;
        tc.path = where;
        rc = fail_at(&tc, first + tline - 1, "%s", terr.p ? terr.p : "bad template");
    }
    qr_buf_release(&terr);
    return rc;
}

static int load_execution(load_ctx *c, qr_mem_agent *ag, qr_val ex)
{
    const qr_str *model = NULL, *sched = NULL;
    int rc = get_string(c, "execution", ex, "model", &model);
    if (rc == QR_OK)
        rc = get_string(c, "execution", ex, "schedule", &sched);
    if (rc != QR_OK)
        return rc;
    if (model) {
        for (uint32_t i = 0; i < model->len; i++)
            if ((unsigned char)model->data[i] < 0x20 || model->data[i] == 0x7f)
                return fail_at(c, line_of(c, "execution", "model"),
                               "[execution] model holds a control character");
        if (!(ag->model = dup_n(model->data, model->len)))
            return QR_ENOMEM;
    }
    const char *stext = sched ? sched->data : "on-demand";
    size_t slen = sched ? sched->len : strlen(stext);
    if (qr_mem_agent_schedule_parse(stext, slen, &ag->period) != QR_OK) {
        char shown[40];
        size_t k = slen < 30 ? slen : 30;
        while (k < slen && k > 0 && ((unsigned char)stext[k] & 0xC0) == 0x80)
            k--;
        snprintf(shown, sizeof shown, "%.*s", (int)k, stext);
        return fail_at(c, line_of(c, "execution", "schedule"),
                       "bad schedule \"%s\": expected daily, hourly, weekly, on-demand, or a "
                       "duration such as 30m, 6h, 2d, 1w (1 minute to 365 days)",
                       shown);
    }
    if (!(ag->schedule = dup_n(stext, slen)))
        return QR_ENOMEM;
    qr_val acts = qr_nil();
    bool has = false;
    for (size_t i = 0; !qr_is_nil(ex) && i < qr_map_len(ex); i++) {
        char k[80];
        key_name(qr_map_key_at(ex, i), k, sizeof k);
        if (!strcmp(k, "actions")) {
            acts = qr_map_val_at(ex, i);
            has = true;
        }
    }
    uint32_t aline = line_of(c, "execution", "actions");
    if (!has)
        return fail_at(c, line_of(c, "execution", NULL),
                       "missing [execution] actions: list what the reply may do, e.g. "
                       "actions = [\"link-add\", \"weight\"] (link-add, weight, write, "
                       "refine; "
                       "[] for none)");
    if (acts.t != QR_T_VEC)
        return fail_at(c, aline,
                       "[execution] actions must be a list of action names, e.g. "
                       "[\"link-add\", \"weight\"]");
    static const char *const names[] = {"link-add", "weight", "write", "refine"};
    for (size_t i = 0; i < qr_vec_len(acts); i++) {
        qr_val a = qr_vec_at(acts, i);
        if (a.t != QR_T_STR)
            return fail_at(c, aline, "[execution] actions[%zu] must be a string", i);
        unsigned bit = 0;
        for (size_t j = 0; j < NACTIONS; j++)
            if (!strcmp(a.s->data, action_names[j].name) &&
                strlen(action_names[j].name) == a.s->len)
                bit = action_names[j].bit;
        if (!bit) {
            char shown[40];
            key_name(a, shown, sizeof shown);
            const char *sug = near(a.s->data, a.s->len, names, 4);
            if (sug)
                return fail_at(c, aline, "unknown action '%s'; did you mean '%s'?", shown, sug);
            return fail_at(
                c, aline, "unknown action '%s': expected link-add, weight, write or refine", shown);
        }
        if (ag->actions & bit)
            return fail_at(c, aline, "action '%s' is listed twice", a.s->data);
        ag->actions |= bit;
    }
    return QR_OK;
}

static int parse_doc(load_ctx *c, qr_mem_agent *ag, qr_arena *a, int flags)
{
    if (!qr_utf8_valid(c->text, c->len))
        return fail_at(c, 1, "the agent file is not UTF-8 text");
    qr_val doc;
    qr_read_error rerr;
    int rc = qr_toml_read_ex(a, c->text, c->len, QR_TOML_NO_TEXT, &doc, &rerr);
    if (rc == QR_ENOMEM)
        return rc;
    if (rc != QR_OK)
        return fail_at(c, rerr.line, "%s (column %u)", rerr.msg, rerr.col);
    qr_val query = qr_nil(), prompt = qr_nil(), ex = qr_nil();
    for (size_t i = 0; i < qr_map_len(doc); i++) {
        char k[80];
        key_name(qr_map_key_at(doc, i), k, sizeof k);
        qr_val v = qr_map_val_at(doc, i);
        qr_val *slot = !strcmp(k, "query")       ? &query
                       : !strcmp(k, "prompt")    ? &prompt
                       : !strcmp(k, "execution") ? &ex
                                                 : NULL;
        if (!slot) {
            uint32_t line = find_line(c->text, c->len, k, NULL, NULL);
            if (!line)
                line = find_line(c->text, c->len, "", k, NULL);
            const char *other = table_of_key(k);
            if (other)
                return fail_at(c, line,
                               "key '%s' belongs in the [%s] table: write [%s] on a "
                               "line before it",
                               k, other, other);
            const char *sug = near(k, strlen(k), tables, 3);
            if (sug)
                return fail_at(c, line, "unknown table [%s]; did you mean [%s]?", k, sug);
            return fail_at(c, line,
                           "unknown table [%s]: an agent file has [query], [prompt] and "
                           "[execution]",
                           k);
        }
        if (v.t != QR_T_MAP)
            return fail_at(c, find_line(c->text, c->len, "", k, NULL),
                           "'%s' must be a table: write [%s] on its own line, then its keys", k, k);
        *slot = v;
    }
    if (!qr_is_nil(query) && (rc = check_keys(c, "query", query, query_keys, 1)) != QR_OK)
        return rc;
    if (!qr_is_nil(prompt) && (rc = check_keys(c, "prompt", prompt, prompt_keys, 2)) != QR_OK)
        return rc;
    if (!qr_is_nil(ex) && (rc = check_keys(c, "execution", ex, exec_keys, 3)) != QR_OK)
        return rc;

    /* [query] */
    const qr_str *pipe = NULL;
    if ((rc = get_string(c, "query", query, "pipeline", &pipe)) != QR_OK)
        return rc;
    if (!pipe)
        return fail_at(c, line_of(c, "query", NULL),
                       "missing [query] pipeline: which nodes the agent looks at, e.g. "
                       "pipeline = \"all | type:episodic | limit:20\"");
    if (!(ag->pipeline_text = dup_n(pipe->data, pipe->len)))
        return QR_ENOMEM;
    qr_pipeline_error perr;
    memset(&perr, 0, sizeof perr);
    rc = qr_pipeline_parse(pipe->data, pipe->len, &ag->pipeline, &perr);
    if (rc == QR_ENOMEM)
        return rc;
    if (rc != QR_OK)
        return fail_at(c, line_of(c, "query", "pipeline"), "[query] pipeline: %s",
                       perr.message[0] ? perr.message : "does not parse");

    /* [prompt] */
    const qr_str *tin = NULL, *tfile = NULL;
    if ((rc = get_string(c, "prompt", prompt, "template", &tin)) != QR_OK ||
        (rc = get_string(c, "prompt", prompt, "template_file", &tfile)) != QR_OK)
        return rc;
    if (qr_is_nil(prompt))
        return fail_at(c, 0,
                       "missing [prompt] table with template = \"\"\"...\"\"\" or "
                       "template_file = \"NAME.md\"");
    if ((rc = load_template(c, ag, tin, tfile, flags)) != QR_OK)
        return rc;

    /* [execution] */
    if (qr_is_nil(ex))
        return fail_at(c, 0,
                       "missing [execution] table with actions = [...] (and "
                       "optionally schedule and model)");
    return load_execution(c, ag, ex);
}

int qr_mem_agent_parse(qr_mem_agent **out, const char *name, const char *path, const char *text,
                       size_t len, int flags, qr_buf *err)
{
    *out = NULL;
    load_ctx c = {.path = path ? path : "agent", .text = text, .len = len, .err = err};
    if (!name || !qr_mem_agent_name_valid(name, strlen(name))) {
        if (err) {
            qr_buf_reset(err);
            qr_buf_printf(err,
                          "%s: '%s' is not an agent name: the file's stem must be 1 to %d "
                          "characters of a-z, 0-9 and '-'",
                          c.path, name ? name : "", QR_MEM_WORD_MAX);
        }
        return QR_EINVAL;
    }
    if (len > QR_MEM_AGENT_FILE_MAX)
        return fail_at(&c, 1, "the agent file is larger than %u bytes", QR_MEM_AGENT_FILE_MAX);
    qr_mem_agent *ag = calloc(1, sizeof *ag);
    if (!ag)
        return QR_ENOMEM;
    int rc = QR_ENOMEM;
    if (!(ag->name = dup_n(name, strlen(name))) || !(ag->path = dup_n(c.path, strlen(c.path))))
        goto done;
    qr_arena a;
    qr_arena_init(&a, 64u << 20);
    rc = parse_doc(&c, ag, &a, flags);
    qr_arena_release(&a);
done:
    if (rc != QR_OK) {
        if (rc == QR_ENOMEM && err) {
            qr_buf_reset(err);
            qr_buf_printf(err, "%s: out of memory", c.path);
        }
        qr_mem_agent_free(ag);
        return rc;
    }
    *out = ag;
    return QR_OK;
}

int qr_mem_agent_load(qr_mem_agent **out, const char *path, qr_buf *err)
{
    *out = NULL;
    const char *base = strrchr(path, '/');
    base = base ? base + 1 : path;
    size_t bl = strlen(base);
    if (bl < 6 || strcmp(base + bl - 5, ".toml")) {
        if (err) {
            qr_buf_reset(err);
            qr_buf_printf(err, "%s: an agent file's name ends in .toml", path);
        }
        return QR_EINVAL;
    }
    char name[QR_MEM_WORD_MAX + 8];
    snprintf(name, sizeof name, "%.*s",
             (int)(bl - 5 < QR_MEM_WORD_MAX + 2 ? bl - 5 : QR_MEM_WORD_MAX + 2), base);
    char *text = NULL;
    size_t len = 0;
    const char *why = NULL;
    int rc = qr_read_regular_file(path, QR_MEM_AGENT_FILE_MAX, &text, &len, &why);
    if (rc != QR_OK) {
        if (err) {
            qr_buf_reset(err);
            if (rc == QR_EINVAL)
                qr_buf_printf(err, "%s: the agent file is larger than %u bytes", path,
                              QR_MEM_AGENT_FILE_MAX);
            else if (rc == QR_EIO && (errno == ELOOP || errno == ENXIO))
                qr_buf_printf(err,
                              "%s: the agent file %s; agent files are read only when they "
                              "are regular files in the agent directory",
                              path, why);
            else
                qr_buf_printf(err, "%s: cannot read the agent file: %s", path,
                              why ? why : strerror(errno));
        }
        return rc == QR_EINVAL ? QR_EINVAL : rc == QR_ENOMEM ? QR_ENOMEM : QR_EIO;
    }
    rc = qr_mem_agent_parse(out, name, path, text, len, 0, err);
    free(text);
    return rc;
}

/*
 * config_file.c: where the model configuration comes from (qr_llm_config_load): the
 * defaults, then the user's config.toml ($XDG_CONFIG_HOME/quarry/config.toml, else
 * ~/.config/quarry/config.toml), then the repository's .quarry.toml, then the QUARRY_LLM_*
 * environment, each later source overriding earlier ones key by key; last, the provider is
 * guessed from the URL when no source named one.
 *
 * Design: files are read with quarry's own TOML reader (quarry/toml.h) and only their [llm]
 * table is looked at; every key goes through config.c's table, so validation and the
 * "did you mean" hint are the same for every source. The TOML value carries no line, so
 * the line quoted in an error is found again by scanning the text for the key under an
 * [llm] header (when the key was written some other way, the error names the file only).
 * A repository's .quarry.toml may set the model and the tuning keys but not url, api_key
 * or provider: with a key in the user's file or the environment, a cloned repository
 * naming its own url would receive it.
 * Rejected: ignoring unknown keys (a typo such as "timeout_sm" would silently do nothing);
 * a key in the environment that names a file of settings (one more place to look).
 */
#include "llm_int.h"
#include "quarry/toml.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Largest configuration file read. */
#define CONFIG_MAX (1u << 20)

static bool is_space(char c)
{
    return c == ' ' || c == '\t';
}

/* The 1-based line where key is written inside an [llm] table of text, or 0. */
static unsigned key_line(const char *text, size_t n, const char *key)
{
    size_t kl = strlen(key);
    bool in_llm = false;
    unsigned line = 1;
    size_t i = 0;
    while (i < n) {
        size_t end = i;
        while (end < n && text[end] != '\n')
            end++;
        size_t p = i;
        while (p < end && is_space(text[p]))
            p++;
        if (p < end && text[p] == '[') {
            p++;
            while (p < end && is_space(text[p]))
                p++;
            size_t q = p;
            while (q < end && text[q] != ']' && !is_space(text[q]))
                q++;
            in_llm = q - p == 3 && memcmp(text + p, "llm", 3) == 0;
        } else if (in_llm) {
            bool quoted = p < end && (text[p] == '"' || text[p] == '\'');
            size_t k = p + quoted;
            if (end - k >= kl && memcmp(text + k, key, kl) == 0) {
                size_t after = k + kl + quoted;
                if (after <= end && (after == end || is_space(text[after]) || text[after] == '=') &&
                    (!quoted || text[k + kl] == text[p]))
                    return line;
            }
        }
        line++;
        i = end + 1;
    }
    return 0;
}

/* Applies the [llm] table of the file at path. A missing file is not an error. A
 * repository's file (repo) may not say where requests go or with which key: a cloned
 * repository could otherwise send the user's key to a server of its choosing. */
static int load_file(qr_llm_config *c, const char *path, bool repo, char *err, size_t errlen)
{
    char *text = NULL;
    size_t n = 0;
    const char *why = NULL;
    int rc = qr_read_regular_file(path, CONFIG_MAX, &text, &n, &why);
    if (rc == QR_EIO && (errno == ENOENT || errno == ENOTDIR))
        return QR_OK;
    if (rc == QR_EINVAL) {
        snprintf(err, errlen, "%s: larger than %u KB; is this the right file?", path,
                 CONFIG_MAX >> 10);
        return QR_EINVAL;
    }
    if (rc != QR_OK) {
        if (rc == QR_EIO)
            snprintf(err, errlen,
                     "cannot read '%s': it %s; configuration is read only from a regular file "
                     "in place",
                     path, why);
        else
            snprintf(err, errlen, "out of memory reading '%s'", path);
        return rc == QR_EIO ? QR_EINVAL : rc;
    }
    qr_arena a;
    qr_arena_init(&a, 64u << 20);
    qr_val root, llm;
    qr_read_error rerr;
    rc = qr_toml_read_ex(&a, text, n, QR_TOML_NO_TEXT, &root, &rerr);
    if (rc != QR_OK) {
        if (rc == QR_ENOMEM)
            snprintf(err, errlen, "out of memory reading '%s'", path);
        else
            snprintf(err, errlen, "%s:%u:%u: %s", path, rerr.line, rerr.col, rerr.msg);
        rc = rc == QR_ENOMEM ? QR_ENOMEM : QR_EINVAL;
        goto done;
    }
    if (!llm_field(&a, root, "llm", &llm))
        goto done;
    if (llm.t != QR_T_MAP) {
        snprintf(err, errlen, "%s: 'llm' must be a table ([llm] followed by key = value lines)",
                 path);
        rc = QR_EINVAL;
        goto done;
    }
    for (size_t i = 0; i < qr_map_len(llm) && rc == QR_OK; i++) {
        qr_val k = qr_map_key_at(llm, i);
        char name[64];
        if (k.t == QR_T_STR)
            llm_one_line(name, sizeof name, k.s->data, k.s->len);
        else
            snprintf(name, sizeof name, "?");
        char where[1100];
        unsigned line = key_line(text, n, name);
        if (line)
            snprintf(where, sizeof where, "%s:%u", path, line);
        else
            snprintf(where, sizeof where, "%s", path);
        if (repo && (!strcmp(name, "url") || !strcmp(name, "api_key") ||
                     !strcmp(name, "provider"))) {
            snprintf(err, errlen,
                     "%s: [llm] %s cannot be set in a repository's .quarry.toml (a cloned "
                     "repository could send your API key elsewhere); set it in "
                     "~/.config/quarry/config.toml or the environment",
                     where, name);
            rc = QR_EINVAL;
            break;
        }
        rc = llm_config_set_value(c, name, qr_map_val_at(llm, i), where, err, errlen);
    }
done:
    qr_arena_release(&a);
    free(text);
    return rc;
}

static bool good_url(const char *u)
{
    return strncmp(u, "http://", 7) == 0 || strncmp(u, "https://", 8) == 0;
}

int qr_llm_config_load(qr_llm_config *c, const char *repo_root, char *err, size_t errlen)
{
    char dummy[8];
    if (!err || !errlen) {
        err = dummy;
        errlen = sizeof dummy;
    }
    err[0] = 0;
    qr_llm_config_init(c);
    char path[4096];
    const char *xdg = getenv("XDG_CONFIG_HOME");
    const char *home = getenv("HOME");
    int rc = QR_OK;
    path[0] = 0;
    if (xdg && *xdg)
        snprintf(path, sizeof path, "%s/quarry/config.toml", xdg);
    else if (home && *home)
        snprintf(path, sizeof path, "%s/.config/quarry/config.toml", home);
    if (path[0])
        rc = load_file(c, path, false, err, errlen);
    if (rc == QR_OK && repo_root && *repo_root) {
        snprintf(path, sizeof path, "%s/.quarry.toml", repo_root);
        rc = load_file(c, path, true, err, errlen);
    }
    if (rc == QR_OK)
        rc = llm_config_env(c, err, errlen);
    if (rc == QR_OK) {
        llm_config_finish(c);
        if (c->url && *c->url && !good_url(c->url)) {
            char u[120];
            llm_one_line(u, sizeof u, c->url, strlen(c->url));
            snprintf(err, errlen,
                     "the model URL '%s' must start with http:// or https:// (QUARRY_LLM_URL or "
                     "[llm] url)",
                     u);
            rc = QR_EINVAL;
        }
    }
    if (rc != QR_OK)
        qr_llm_config_clear(c);
    return rc;
}

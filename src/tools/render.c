/*
 * render.c: tool results prepared for a reader outside the sandbox: the row cap on what
 * is printed to a person or handed to a model, and the plain-text table `quarry tool`
 * prints on a terminal.
 *
 * Design: the cap applies only where a result leaves quarry (the CLI, later the MCP
 * server); inside a Lisp program results are whole, since the program is what reduces
 * them. The table is for eyes: a vector of maps becomes columns (the union of the keys in
 * the order first seen), numbers are right-aligned, cells are cut at 60 columns and
 * newlines become spaces, so one row is one line; a map prints as key and value (values
 * cut at 200), a vector of scalars one per line, uncut. Widths are terminal columns
 * (qr_utf8_width: a CJK character takes two, a combining accent none), so rows line up
 * whatever the script. Given the terminal's width, a table that would be wider is made to
 * fit by cutting its widest column of prose (subjects, names), a column at a time, down
 * to MIN_PROSE columns, then every text column (hashes, dates too) down to MIN_CELL; numbers
 * are never cut, and a cut cell ends in "...". What still does not fit (a dozen columns
 * in 60) is left out from the right, with a line saying how many columns were. A tool
 * names the columns a reader needs (its record's `columns`): in a table too wide, the
 * others go first (from the right), before any cut, and these last; a result with no
 * named columns keeps the column it is ranked by (numbers ordered from row to row).
 *
 * Rejected: capping inside the registry (a program that counts commits must see them
 * all); box-drawing borders (noise when pasted into an issue or a prompt); wrapping cells
 * onto several lines (one row per line is what grep and a reader's eye expect).
 */
#include "tools_int.h"

#include <string.h>

#define CELL_MAX 60       /* cells of a table of rows */
#define MAP_VALUE_MAX 200 /* values of a map shown as key and value */
#define MAX_COLUMNS 32
#define MIN_CELL 8   /* a text column is not cut narrower than this to fit the width */
#define MIN_PROSE 20 /* nor a column of prose before the others are cut */

qr_val qr_tools_cap_output(qr_arena *a, qr_val v, size_t max_rows, size_t *omitted)
{
    *omitted = 0;
    if (!qr_is_seqcoll(v) || max_rows == 0 || qr_vec_len(v) <= max_rows)
        return v;
    *omitted = qr_vec_len(v) - max_rows;
    qr_val cut = qr_vec_slice(a, v, 0, max_rows);
    return qr_is_nil(cut) ? v : cut;
}

qr_val qr_tools_page_of(qr_arena *a, qr_val v, size_t offset, size_t max_rows, qr_tools_page *pg)
{
    memset(pg, 0, sizeof *pg);
    if (!qr_is_seqcoll(v)) {
        pg->total = pg->shown = 1;
        return v;
    }
    size_t n = qr_vec_len(v);
    size_t from = offset < n ? offset : n;
    size_t to = max_rows && n - from > max_rows ? from + max_rows : n;
    pg->offset = offset;
    pg->total = n;
    pg->shown = to - from;
    pg->next = to < n ? to : 0;
    if (from == 0 && to == n && v.t == QR_T_VEC)
        return v;
    qr_val page = qr_vec_slice(a, v, from, to);
    return qr_is_nil(page) && to > from ? v : page;
}

/* The text of one cell: strings raw, nil empty, everything else as pr-str; control
 * characters become spaces; cut to max terminal columns (0: no cut), ending in "...". */
static void cell_text_max(qr_buf *out, qr_val v, size_t max)
{
    if (qr_is_nil(v))
        return;
    qr_buf tmp;
    qr_buf_init(&tmp);
    qr_print(&tmp, v, v.t == QR_T_STR ? QR_PRINT_DISPLAY : QR_PRINT_READABLY);
    const char *s = tmp.p ? tmp.p : "";
    size_t n = tmp.len;
    bool cut = max && qr_utf8_width(s, n) > max;
    size_t room = cut ? (max > 3 ? max - 3 : 0) : SIZE_MAX, used = 0;
    for (size_t i = 0; i < n;) {
        unsigned char c = (unsigned char)s[i];
        if (c < 0x20 || c == 0x7f) {
            if (used + 1 > room)
                break;
            qr_buf_putc(out, ' ');
            used++;
            i++;
            continue;
        }
        uint32_t cp;
        size_t k = qr_utf8_decode(s + i, n - i, &cp);
        size_t w = (size_t)qr_cp_width(cp);
        if (used + w > room)
            break;
        qr_buf_append(out, s + i, k);
        used += w;
        i += k;
    }
    if (cut) {
        while (used + 3 < max) { /* a wide character left a column unused */
            qr_buf_putc(out, ' ');
            used++;
        }
        qr_buf_puts(out, max >= 3 ? "..." : "");
    }
    qr_buf_release(&tmp);
}

static void cell_text(qr_buf *out, qr_val v)
{
    cell_text_max(out, v, CELL_MAX);
}

static size_t text_width(const qr_buf *b)
{
    return b->p ? qr_utf8_width(b->p, b->len) : 0;
}

static void pad(qr_buf *out, size_t n)
{
    while (n--)
        qr_buf_putc(out, ' ');
}

/* Rows are maps: columns are their keys. width: the terminal's (0: no limit). */
/* The column a ranked result is ordered by: a column of numbers whose values never rise
 * (or never fall) from row to row and are not all equal, over at least 3 rows; the first
 * such from the right (a count or a size ranked by, after the ids). nc when none. */
static size_t ranked_column(qr_val rows, qr_val cols, const bool *numeric)
{
    size_t n = qr_vec_len(rows), nc = qr_map_len(cols);
    if (n < 3)
        return nc;
    for (size_t c = nc; c-- > 0;) {
        if (!numeric[c])
            continue;
        bool up = true, down = true, differ = false, all = true;
        double prev = 0;
        for (size_t r = 0; r < n && all; r++) {
            qr_val v;
            if (!qr_map_get(qr_vec_at(rows, r), qr_map_key_at(cols, c), &v) || !qr_is_number(v)) {
                all = false;
                break;
            }
            double d = v.t == QR_T_INT ? (double)v.i : v.d;
            if (r) {
                up = up && d >= prev;
                down = down && d <= prev;
                differ = differ || d != prev;
            }
            prev = d;
        }
        if (all && differ && (up || down))
            return c;
    }
    return nc;
}

/* Rows are maps: columns are their keys. width: the terminal's (0: no limit); keys: the
 * columns a reader needs, most needed first (NULL: none named). */
static void render_rows(qr_buf *out, qr_val rows, size_t width, const char *const *keys)
{
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_mapb cols_b;
    qr_mapb_init(&cols_b, &a, 8);
    size_t n = qr_vec_len(rows);
    for (size_t r = 0; r < n; r++) {
        qr_val m = qr_vec_at(rows, r);
        for (size_t k = 0; k < qr_map_len(m); k++) {
            qr_val key = qr_map_key_at(m, k);
            if (!qr_mapb_slot(&cols_b, key) && cols_b.buf && cols_b.buf->used >= MAX_COLUMNS)
                continue;
            qr_mapb_put(&cols_b, key, qr_nil());
        }
    }
    qr_val cols = qr_mapb_finish(&cols_b, QR_T_MAP);
    size_t nc = qr_map_len(cols);
    size_t widths[MAX_COLUMNS];
    bool numeric[MAX_COLUMNS], prose[MAX_COLUMNS];
    qr_buf head[MAX_COLUMNS];
    for (size_t c = 0; c < nc; c++) {
        qr_buf_init(&head[c]);
        qr_val key = qr_map_key_at(cols, c);
        if (key.t == QR_T_KW)
            qr_buf_append(&head[c], key.sym->text, key.sym->len);
        else
            cell_text(&head[c], key);
        widths[c] = text_width(&head[c]);
        numeric[c] = true;
        prose[c] = false;
    }
    /* one pass for widths, one to print (cells are cheap to redo) */
    for (size_t r = 0; r < n; r++) {
        qr_val m = qr_vec_at(rows, r);
        for (size_t c = 0; c < nc; c++) {
            qr_val v;
            if (!qr_map_get(m, qr_map_key_at(cols, c), &v))
                continue;
            if (!qr_is_number(v) && !qr_is_nil(v))
                numeric[c] = false;
            qr_buf cell;
            qr_buf_init(&cell);
            cell_text(&cell, v);
            size_t w = text_width(&cell);
            widths[c] = w > widths[c] ? w : widths[c];
            if (cell.p && memchr(cell.p, ' ', cell.len))
                prose[c] = true;
            qr_buf_release(&cell);
        }
    }
    /* the columns a reader needs (key[c], need[c]: their rank, 0 first): the tool's,
     * else the column a ranked result is ordered by */
    bool key[MAX_COLUMNS], kept[MAX_COLUMNS];
    size_t need[MAX_COLUMNS];
    bool named = false;
    for (size_t c = 0; c < nc; c++) {
        key[c] = false;
        kept[c] = true;
        need[c] = 0;
        qr_val k = qr_map_key_at(cols, c);
        for (size_t i = 0; keys && keys[i]; i++)
            if (k.t == QR_T_KW && strlen(keys[i]) == k.sym->len &&
                !memcmp(keys[i], k.sym->text, k.sym->len)) {
                key[c] = named = true;
                need[c] = i;
            }
    }
    if (!named) {
        size_t r = ranked_column(rows, cols, numeric);
        if (r < nc)
            key[r] = true;
    }
    size_t total = nc ? 2 * (nc - 1) : 0;
    for (size_t c = 0; c < nc; c++)
        total += widths[c];
    /* too wide, and the tool names its columns: the others are left out first, from the
     * right, so what a reader needs is kept whole where it can be */
    for (size_t c = nc; named && width && total > width && c-- > 0;)
        if (!key[c]) {
            kept[c] = false;
            total -= widths[c] + 2;
        }
    /* still too wide: first the columns of prose (cells with words: subjects, messages,
     * names) give up a column at a time, the widest first, so cuts spread over several
     * when one is not enough, down to MIN_PROSE; then (when the tool names its columns)
     * the least needed of those are left out; then every text column (hashes, dates too)
     * is cut the same way down to MIN_CELL; numbers never. What still does not fit is left
     * out from the right, a ranked result's column last, and a line says so. */
    size_t natural[MAX_COLUMNS], shown = 0;
    for (size_t c = 0; c < nc; c++) {
        natural[c] = widths[c];
        shown += kept[c];
    }
    for (int pass = 0; pass < 3; pass++) {
        if (pass == 1) {
            while (named && width && total > width && shown > 1) {
                size_t victim = nc; /* the least needed, the rightmost of equals */
                for (size_t c = 0; c < nc; c++)
                    if (kept[c] && (victim == nc || need[c] >= need[victim]))
                        victim = c;
                kept[victim] = false;
                total -= widths[victim] + 2;
                shown--;
            }
            continue;
        }
        while (width && total > width) {
            size_t widest = nc;
            for (size_t c = 0; c < nc; c++)
                if (kept[c] && !numeric[c] && (prose[c] || pass) &&
                    widths[c] > (pass ? MIN_CELL : MIN_PROSE) &&
                    (widest == nc || widths[c] > widths[widest]))
                    widest = c;
            if (widest == nc)
                break; /* every such column is as narrow as it goes */
            widths[widest]--;
            total--;
        }
    }
    while (width && total > width && shown > 1) {
        size_t victim = nc;
        for (size_t c = nc; c-- > 0 && victim == nc;)
            if (kept[c] && !key[c])
                victim = c; /* the rightmost column not needed */
        if (victim == nc) /* only needed ones: the least needed, the rightmost of equals */
            for (size_t c = 0; c < nc; c++)
                if (kept[c] && (victim == nc || need[c] >= need[victim]))
                    victim = c;
        kept[victim] = false;
        total -= widths[victim] + 2;
        shown--;
    }
    /* room left by the columns left out goes back to the cut ones: the needed ones in
     * their order, then prose, then the rest */
    for (size_t pass = 0; pass < nc + 2 && width && shown < nc; pass++)
        for (size_t c = 0; c < nc && total < width; c++)
            if (kept[c] && widths[c] < natural[c] &&
                (pass < nc ? key[c] && need[c] == pass : prose[c] || pass == nc + 1)) {
                size_t more = natural[c] - widths[c];
                if (more > width - total)
                    more = width - total;
                widths[c] += more;
                total += more;
            }
    for (size_t r = 0; r <= n; r++) {
        qr_buf line;
        qr_buf_init(&line);
        size_t pending = 0; /* spaces owed before the next non-empty text */
        bool first = true;
        for (size_t c = 0; c < nc; c++) {
            if (!kept[c])
                continue;
            qr_buf cell;
            qr_buf_init(&cell);
            qr_val v;
            if (r == 0 && text_width(&head[c]) <= widths[c])
                qr_buf_append(&cell, head[c].p ? head[c].p : "", head[c].len);
            else if (r == 0)
                cell_text_max(&cell, qr_str_new(&a, head[c].p ? head[c].p : "", head[c].len), widths[c]);
            else if (qr_map_get(qr_vec_at(rows, r - 1), qr_map_key_at(cols, c), &v))
                cell_text_max(&cell, v, widths[c] < CELL_MAX ? widths[c] : CELL_MAX);
            size_t w = text_width(&cell), gap = w < widths[c] ? widths[c] - w : 0;
            if (!first)
                pending += 2;
            first = false;
            if (numeric[c] && r > 0)
                pending += gap;
            if (cell.len) {
                pad(&line, pending);
                qr_buf_append(&line, cell.p, cell.len);
                pending = 0;
            }
            if (!numeric[c] || r == 0)
                pending += gap;
            qr_buf_release(&cell);
        }
        qr_buf_append(out, line.p ? line.p : "", line.len);
        qr_buf_putc(out, '\n');
        qr_buf_release(&line);
    }
    if (shown < nc)
        qr_buf_printf(out, "(%zu of %zu columns left out to fit %zu columns; --format json shows all)\n",
                      nc - shown, nc, width);
    for (size_t c = 0; c < nc; c++)
        qr_buf_release(&head[c]);
    qr_arena_release(&a);
}

static void render_map(qr_buf *out, qr_val m, size_t width)
{
    size_t n = qr_map_len(m), wk = 0;
    for (size_t i = 0; i < n; i++) {
        qr_buf k;
        qr_buf_init(&k);
        qr_val key = qr_map_key_at(m, i);
        if (key.t == QR_T_KW)
            qr_buf_append(&k, key.sym->text, key.sym->len);
        else
            cell_text(&k, key);
        size_t w = text_width(&k);
        wk = w > wk ? w : wk;
        qr_buf_release(&k);
    }
    for (size_t i = 0; i < n; i++) {
        qr_buf k;
        qr_buf_init(&k);
        qr_val key = qr_map_key_at(m, i);
        if (key.t == QR_T_KW)
            qr_buf_append(&k, key.sym->text, key.sym->len);
        else
            cell_text(&k, key);
        qr_buf_append(out, k.p ? k.p : "", k.len);
        qr_buf cell;
        qr_buf_init(&cell);
        size_t max = MAP_VALUE_MAX;
        if (width && width > wk + 2 && width - wk - 2 < max)
            max = width - wk - 2 > MIN_CELL ? width - wk - 2 : MIN_CELL;
        cell_text_max(&cell, qr_map_val_at(m, i), max);
        if (cell.len) {
            pad(out, wk - text_width(&k) + 2);
            qr_buf_append(out, cell.p, cell.len);
        }
        qr_buf_putc(out, '\n');
        qr_buf_release(&cell);
        qr_buf_release(&k);
    }
}

void qr_tools_render_table(qr_buf *out, qr_val v)
{
    qr_tools_render_table_width(out, v, 0);
}

void qr_tools_render_table_width(qr_buf *out, qr_val v, size_t width)
{
    qr_tools_render_table_keys(out, v, width, NULL);
}

void qr_tools_render_table_keys(qr_buf *out, qr_val v, size_t width, const char *const *keys)
{
    if (qr_is_seqcoll(v) || v.t == QR_T_SET) {
        size_t n = v.c->len;
        if (n == 0) {
            qr_buf_puts(out, "(no results)\n");
            return;
        }
        bool maps = v.t != QR_T_SET;
        for (size_t i = 0; maps && i < n; i++)
            maps = qr_vec_at(v, i).t == QR_T_MAP;
        if (maps) {
            render_rows(out, v, width, keys);
            return;
        }
        for (size_t i = 0; i < n; i++) {
            cell_text_max(out, v.t == QR_T_SET ? qr_map_key_at(v, i) : qr_vec_at(v, i), 0);
            qr_buf_putc(out, '\n');
        }
        return;
    }
    if (v.t == QR_T_MAP) {
        if (qr_map_len(v) == 0)
            qr_buf_puts(out, "(no results)\n");
        else
            render_map(out, v, width);
        return;
    }
    qr_print(out, v, QR_PRINT_DISPLAY);
    qr_buf_putc(out, '\n');
}

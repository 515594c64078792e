/*
 * parse_forms.c: the query and update forms quarry refuses, parsed whole so that a broken
 * one is a syntax error and a valid one is refused by name: CONSTRUCT (with a template or
 * WHERE alone), DESCRIBE, and the update request (operations separated by ';', each with
 * its own prologue): LOAD, CLEAR, DROP, CREATE, ADD, MOVE, COPY, INSERT DATA, DELETE
 * DATA, DELETE WHERE, and INSERT/DELETE ... WHERE with WITH and USING. The checks the
 * update grammar makes (no variables in data, no blank nodes in DELETE, INSERT DATA labels
 * scoped to the request) are made here.
 */
#include "parse_int.h"

#include <string.h>

/* ---- CONSTRUCT, DESCRIBE and updates: parsed whole, then refused ---- */
static void parse_quads_body(parser *p, tlist *tl);
static void parse_quads(parser *p, tlist *tl)
{
    bool save = p->in_template;
    p->in_template = true;
    parse_quads_body(p, tl);
    p->in_template = save;
}

static void parse_quads_body(parser *p, tlist *tl)
{
    sqp_expect(p, '{');
    for (;;) {
        if (sqp_accept(p, '}'))
            break;
        if (sqp_accept_word(p, "GRAPH")) {
            if (p->tok.kind == T_VAR && p->no_vars)
                sqp_fail_at(p, p->tok.at, "variables are not allowed in INSERT DATA or DELETE DATA");
            sqp_parse_var_or_iri(p);
            sqp_expect(p, '{');
            if (p->tok.kind != '}')
                sqp_parse_triples_block(p, tl);
            sqp_expect(p, '}');
            sqp_accept(p, '.');
            continue;
        }
        if (!sqp_at_triples_start(p))
            sqp_unexpected(p, "triples, GRAPH or '}'");
        sqp_parse_triples_block(p, tl);
    }
}

static void check_template(parser *p, tlist *tl, size_t at)
{
    for (size_t i = 0; i < tl->n; i++)
        if (tl->t[i].path)
            sqp_fail_at(p, at, "property paths are not allowed in a template");
}

void sqp_parse_construct(parser *p)
{
    size_t at = p->tok.at;
    sq_select *s = sqp_select_new(p, QR_SPARQL_CONSTRUCT);
    tlist tl = {0};
    if (p->tok.kind == '{') {
        parse_quads(p, &tl);
        check_template(p, &tl, at);
        sqp_parse_dataset(p);
        sqp_accept_word(p, "WHERE");
        s->where = sqp_parse_group(p);
    } else {
        sqp_parse_dataset(p);
        sqp_expect_word(p, "WHERE");
        sqp_expect(p, '{');
        if (p->tok.kind != '}')
            sqp_parse_triples_block(p, &tl);
        check_template(p, &tl, at);
        sqp_expect(p, '}');
    }
    sqp_parse_solution_modifiers(p, s);
    p->q->top = s;
}

void sqp_parse_describe(parser *p)
{
    sq_select *s = sqp_select_new(p, QR_SPARQL_DESCRIBE);
    if (!sqp_accept(p, '*')) {
        bool any = false;
        while (p->tok.kind == T_VAR || sqp_at_iri(p)) {
            sqp_parse_var_or_iri(p);
            any = true;
        }
        if (!any)
            sqp_unexpected(p, "variables, IRIs or '*' after DESCRIBE");
    }
    sqp_parse_dataset(p);
    if (sqp_accept_word(p, "WHERE") || p->tok.kind == '{')
        s->where = sqp_parse_group(p);
    sqp_parse_solution_modifiers(p, s);
    p->q->top = s;
}

static void parse_graph_ref(parser *p, bool all)
{
    if (sqp_accept_word(p, "GRAPH")) {
        sqp_iri_of_token(p);
        return;
    }
    if (sqp_accept_word(p, "DEFAULT"))
        return;
    if (all && (sqp_accept_word(p, "NAMED") || sqp_accept_word(p, "ALL")))
        return;
    if (!all && sqp_at_iri(p)) {
        sqp_iri_of_token(p);
        return;
    }
    sqp_unexpected(p, all ? "GRAPH <iri>, DEFAULT, NAMED or ALL" : "DEFAULT, GRAPH <iri> or <iri>");
}

static const char *parse_update1(parser *p)
{
    const char *name;
    if (sqp_accept_word(p, "LOAD")) {
        sqp_accept_word(p, "SILENT");
        sqp_iri_of_token(p);
        if (sqp_accept_word(p, "INTO")) {
            sqp_expect_word(p, "GRAPH");
            sqp_iri_of_token(p);
        }
        return "LOAD";
    }
    if (sqp_is_word(p, "CLEAR") || sqp_is_word(p, "DROP")) {
        name = sqp_is_word(p, "CLEAR") ? "CLEAR" : "DROP";
        sqp_next(p);
        sqp_accept_word(p, "SILENT");
        parse_graph_ref(p, true);
        return name;
    }
    if (sqp_accept_word(p, "CREATE")) {
        sqp_accept_word(p, "SILENT");
        sqp_expect_word(p, "GRAPH");
        sqp_iri_of_token(p);
        return "CREATE";
    }
    if (sqp_is_word(p, "ADD") || sqp_is_word(p, "MOVE") || sqp_is_word(p, "COPY")) {
        name = sqp_is_word(p, "ADD") ? "ADD" : sqp_is_word(p, "MOVE") ? "MOVE" : "COPY";
        sqp_next(p);
        sqp_accept_word(p, "SILENT");
        parse_graph_ref(p, false);
        sqp_expect_word(p, "TO");
        parse_graph_ref(p, false);
        return name;
    }
    tlist tl = {0};
    bool with = false;
    if (sqp_accept_word(p, "WITH")) {
        sqp_iri_of_token(p);
        with = true;
    }
    if (sqp_accept_word(p, "INSERT")) {
        if (!with && sqp_accept_word(p, "DATA")) {
            /* blank node labels of INSERT DATA are scoped to the whole request: one used
             * by two operations is an error (a fresh serial per operation) */
            p->no_vars = true;
            p->bgp_serial++;
            parse_quads_body(p, &tl);
            p->no_vars = false;
            return "INSERT DATA";
        }
        parse_quads(p, &tl);
        name = "INSERT";
    } else if (sqp_accept_word(p, "DELETE")) {
        if (!with && sqp_accept_word(p, "DATA")) {
            p->no_vars = p->no_bnodes = true;
            parse_quads(p, &tl);
            p->no_vars = p->no_bnodes = false;
            return "DELETE DATA";
        }
        if (!with && sqp_accept_word(p, "WHERE")) {
            p->no_bnodes = true;
            parse_quads(p, &tl);
            p->no_bnodes = false;
            return "DELETE WHERE";
        }
        p->no_bnodes = true;
        parse_quads(p, &tl);
        p->no_bnodes = false;
        name = "DELETE";
        if (sqp_accept_word(p, "INSERT"))
            parse_quads(p, &tl);
    } else {
        sqp_unexpected(p, "SELECT, ASK, CONSTRUCT, DESCRIBE or an update operation");
    }
    while (sqp_accept_word(p, "USING")) {
        sqp_accept_word(p, "NAMED");
        sqp_iri_of_token(p);
    }
    sqp_expect_word(p, "WHERE");
    sqp_parse_group(p);
    return name;
}

bool sqp_at_update_word(parser *p)
{
    static const char *const w[] = {"INSERT", "DELETE", "LOAD", "CLEAR", "DROP", "CREATE",
                                    "ADD", "MOVE", "COPY", "WITH"};
    for (size_t i = 0; i < sizeof w / sizeof w[0]; i++)
        if (sqp_is_word(p, w[i]))
            return true;
    return false;
}

void sqp_parse_update_request(parser *p)
{
    p->q->form = QR_SPARQL_UPDATE;
    for (;;) {
        if (p->tok.kind == T_EOF)
            break;
        const char *name = parse_update1(p);
        if (!p->q->update_name)
            p->q->update_name = name;
        if (!sqp_accept(p, ';'))
            break;
        sqp_parse_prologue(p);
    }
    if (!p->q->update_name)
        p->q->update_name = "an empty request";
}


/*
 * test_dwim.c: the DWIM intent parser as a table: phrasings per verb, aliases, typos,
 * case and -/_ variants, word order, natural wording, tool routes taken from the
 * registry's records, and lines that must be rejected, each with the expected verb (or
 * tool), target and confidence band. Lookups are a fixed set of paths and symbols here,
 * so the table does not depend on a repository; the CLI tests run the same parser on a
 * real one. Also: compiler diagnostics (gcc and clang shapes) parsed into records.
 */
#include "check.h"

#include "quarry/dwim.h"

#include <string.h>

static bool fake_path(void *ud, const char *p)
{
    (void)ud;
    static const char *const paths[] = {"src/lisp/eval.c", "src/lisp", "src", "README.md",
                                        "include/quarry/value.h", "Makefile", NULL};
    for (size_t i = 0; paths[i]; i++)
        if (!strcmp(p, paths[i]))
            return true;
    return false;
}

static bool fake_symbol(void *ud, const char *s)
{
    (void)ud;
    /* "show" too: a repository may have a function of that name (shell scripts do) */
    static const char *const syms[] = {"lx_eval", "main", "qr_value", "eval", "show", NULL};
    for (size_t i = 0; syms[i]; i++)
        if (!strcmp(s, syms[i]))
            return true;
    return false;
}

typedef struct row {
    const char *line;
    const char *verb; /* verb name, or the tool's name for a registry route */
    const char *target;
    const char *band;
} row;

static const row rows[] = {
    /* skeleton and its aliases */
    {"skeleton src/lisp/eval.c", "skeleton", "src/lisp/eval.c", "run"},
    {"skel src/lisp/eval.c", "skeleton", "src/lisp/eval.c", "run"},
    {"outline src/lisp/eval.c", "skeleton", "src/lisp/eval.c", "run"},
    {"structure src/lisp", "skeleton", "src/lisp", "run"},
    {"symbols include/quarry/value.h", "skeleton", "include/quarry/value.h", "run"},
    {"SKELETON src/lisp/eval.c", "skeleton", "src/lisp/eval.c", "run"},
    {"Skeleton src", "skeleton", "src", "run"},
    {"src/lisp/eval.c skeleton", "skeleton", "src/lisp/eval.c", "run"},
    {"skeletn src/lisp/eval.c", "skeleton", "src/lisp/eval.c", "run"},
    {"skeelton src/lisp/eval.c", "skeleton", "src/lisp/eval.c", "run"},
    {"outlien src/lisp/eval.c", "skeleton", "src/lisp/eval.c", "run"},
    /* a verb named alone is sure; its missing target is reported apart (issue 27) */
    {"skeleton", "skeleton", NULL, "run"},
    {"SKELETON", "skeleton", NULL, "run"},
    {"outline", "skeleton", NULL, "run"},
    {"tree src/lisp", "skeleton", "src/lisp", "run"},
    {"skeltn src/lisp/eval.c", "skeleton", "src/lisp/eval.c", "run"},
    {"vew src/lisp/eval.c", "read", "src/lisp/eval.c", "run"},
    {"read path=src/lisp/eval.c", "read", "src/lisp/eval.c", "run"},
    {"callers name=lx_eval", "callers", "lx_eval", "run"},
    {"grep pattern=lx_ path=src", "grep", "lx_", "run"},
    {"what functions are in this file", "skeleton", NULL, "clarify"},
    /* a natural request every word of which a frame explains, with one file, runs (issue 27) */
    {"what functions are in src/lisp/eval.c", "skeleton", "src/lisp/eval.c", "run"},
    {"show src/lisp/eval.c", "read", "src/lisp/eval.c", "run"},
    {"history of src/lisp/eval.c", "get_file_history", "src/lisp/eval.c", "run"},
    {"src/lisp/eval.c", "skeleton", "src/lisp/eval.c", "clarify"},
    /* expand */
    {"expand lx_eval", "expand", "lx_eval", "run"},
    {"expand eval.c:lx_eval", "expand", "eval.c:lx_eval", "run"},
    {"expand struct qr_value", "expand", "struct qr_value", "run"},
    {"expand qr_value.tag", "expand", "qr_value.tag", "run"},
    {"expnad lx_eval", "expand", "lx_eval", "run"},
    {"body lx_eval", "expand", "lx_eval", "run"},
    {"expand main", "expand", "main", "run"},
    {"show me the body of lx_eval", "expand", "lx_eval", "run"},
    {"lx_eval", "expand", "lx_eval", "clarify"},
    {"expand", "expand", NULL, "run"},
    /* read */
    {"read src/lisp/eval.c", "read", "src/lisp/eval.c", "run"},
    {"read src/lisp/eval.c:10-40", "read", "src/lisp/eval.c:10-40", "run"},
    {"cat README.md", "read", "README.md", "run"},
    {"view src/lisp/eval.c 10 20", "read", "src/lisp/eval.c:10-20", "run"},
    {"raed README.md", "read", "README.md", "run"},
    {"src/lisp/eval.c:120", "read", "src/lisp/eval.c:120", "clarify"},
    /* grep */
    {"grep 'qr_buf_'", "grep", "qr_buf_", "run"},
    {"grep \"static int\"", "grep", "static int", "run"},
    {"search 'TODO'", "grep", "TODO", "run"},
    {"find \"malloc\\(\"", "grep", "malloc\\(", "run"},
    {"locate 'lx_'", "grep", "lx_", "run"},
    {"GREP 'x'", "grep", "x", "run"},
    {"serach 'TODO'", "grep", "TODO", "run"},
    {"'TODO'", "grep", "TODO", "suggest"},
    /* fix */
    {"fix: bound the stack check", "fix", NULL, "run"},
    {"patch src/lisp/eval.c", "fix", "src/lisp/eval.c", "run"},
    {"edit src/lisp/eval.c", "fix", "src/lisp/eval.c", "run"},
    {"replace lx_eval", "fix", "lx_eval", "run"},
    {"change: rename the flag", "fix", NULL, "run"},
    /* validate */
    {"validate", "validate", NULL, "run"},
    {"check", "validate", NULL, "run"},
    {"lint", "validate", NULL, "run"},
    {"build", "validate", NULL, "run"},
    /* validate runs only the repository's own check: a typo of its name first runs */
    {"valdiate", "validate", NULL, "run"},
    /* two letters swapped beats a neighbour key: "callres" is callers, "calles" still asks */
    {"callres lx_eval", "callers", "lx_eval", "run"},
    {"where is lx_eval defined", "definition", "lx_eval", "run"},
    {"where does lx_eval live", "definition", "lx_eval", "run"},
    {"look at src/lisp/eval.c", "read", "src/lisp/eval.c", "run"},
    {"vaildate make test", "validate", "make test", "run"},
    {"does it compile", "validate", NULL, "clarify"},
    /* the check named on the line (issue 24): validate runs only the repository's own */
    {"validate make test", "validate", "make test", "run"},
    {"check make check", "validate", "make check", "run"},
    {"validate   go test ./...", "validate", "go test ./...", "run"},
    {"validate cargo test --all", "validate", "cargo test --all", "run"},
    {"validate npm test", "validate", "npm test", "run"},
    {"validate the build", "validate", NULL, "clarify"},
    /* done */
    {"done", "done", NULL, "run"},
    {"finished", "done", NULL, "run"},
    {"complete", "done", NULL, "run"},
    {"done: the stack check is bounded", "done", NULL, "run"},
    /* the code graph */
    {"callers lx_eval", "callers", "lx_eval", "run"},
    {"who-calls lx_eval", "callers", "lx_eval", "run"},
    {"callees lx_eval", "callees", "lx_eval", "run"},
    {"deps src/lisp/eval.c", "deps", "src/lisp/eval.c", "run"},
    {"includes src/lisp/eval.c", "deps", "src/lisp/eval.c", "run"},
    {"refs lx_eval", "references", "lx_eval", "run"},
    {"references lx_eval", "references", "lx_eval", "run"},
    {"definition lx_eval", "definition", "lx_eval", "run"},
    {"who calls lx_eval", "callers", "lx_eval", "run"},
    {"what does src/lisp/eval.c include", "deps", "src/lisp/eval.c", "run"},
    /* a request word asks for what the next word names */
    {"find callers of lx_eval", "callers", "lx_eval", "run"},
    {"find the callers of lx_eval", "callers", "lx_eval", "run"},
    {"search references to lx_eval", "references", "lx_eval", "run"},
    {"find definition of lx_eval", "definition", "lx_eval", "run"},
    {"find usages of lx_eval", "references", "lx_eval", "run"},
    {"find lx_eval", "grep", "lx_eval", "run"},
    {"show callers of lx_eval", "callers", "lx_eval", "run"},
    {"open the skeleton of src/lisp/eval.c", "skeleton", "src/lisp/eval.c", "run"},
    /* registry tools, from their own records */
    {"get_commits", "get_commits", NULL, "run"},
    {"get-commits limit=5", "get_commits", NULL, "run"},
    {"GET_COMMITS", "get_commits", NULL, "run"},
    {"get_comits", "get_commits", NULL, "run"},
    {"commits get", "get_commits", NULL, "run"},
    {"query_codebase query_type=get_skeleton", "query_codebase", NULL, "run"},
    {"memory_query", "memory_query", NULL, "run"},
    /* issue 27: lines written apart, who calls whom by word order, frames */
    {"show me lines 10-20 of src/lisp/eval.c", "read", "src/lisp/eval.c:10-20", "run"},
    {"read src/lisp/eval.c lines 5-8", "read", "src/lisp/eval.c:5-8", "run"},
    {"show the first 20 lines of src/lisp/eval.c", "read", "src/lisp/eval.c:1-20", "run"},
    {"what does lx_eval call", "callees", "lx_eval", "run"},
    {"what functions does lx_eval use", "callees", "lx_eval", "run"},
    {"which functions call lx_eval", "callers", "lx_eval", "run"},
    {"who uses lx_eval", "references", "lx_eval", "run"},
    {"functions called by lx_eval", "callees", "lx_eval", "run"},
    {"calls lx_eval", "callees", "lx_eval", "run"}, /* the terse verb, not word order */
    {"summarize the module src/lisp", "skeleton", "src/lisp", "run"},
    {"what is in src/lisp/eval.c", "skeleton", "src/lisp/eval.c", "run"},
    {"list functions in src/lisp/eval.c", "skeleton", "src/lisp/eval.c", "run"},
    {"who contributed most", "get_author_stats", NULL, "run"},
    {"who has contributed the most to this repo", "get_author_stats", NULL, "run"},
    {"show the last 5 commits", "get_commits", NULL, "run"},
    {"show the callers", "callers", NULL, "run"},
    {"expand the function", "expand", NULL, "run"},
    {"show me lx_eval's body", "expand", "lx_eval", "run"},
    {"src/lisp/eval.c's functions", "skeleton", "src/lisp/eval.c", "run"},
    {"what is lx_eval", "definition", "lx_eval", "run"},
    {"tell me about lx_eval", "definition", "lx_eval", "run"},
    {"what is the weather", "none", NULL, "reject"},
    {"list files in src/lisp", "skeleton", "src/lisp", "run"},
    {"grep -i LX_ src", "grep", "LX_", "run"},
    {"run make test", "validate", "make test", "run"},
    {"look for lx_eval in src", "grep", "lx_eval", "run"},
    {"jump to lx_eval", "definition", "lx_eval", "run"},
    /* another tool's command or an editor's action (cmdline.c) */
    {"cscope -dL3 lx_eval", "callers", "lx_eval", "run"},
    {"cscope -L1 lx_eval", "definition", "lx_eval", "run"},
    {"cscope -L 2 lx_eval", "none", NULL, "reject"}, /* -L then a space: not cscope's form */
    {"cscope -L2 lx_eval", "callees", "lx_eval", "run"},
    {"cscope -L0 lx_eval", "references", "lx_eval", "run"},
    {"global -rx lx_eval", "references", "lx_eval", "run"},
    {"global lx_eval", "definition", "lx_eval", "run"},
    {"readtags lx_eval", "definition", "lx_eval", "run"},
    {"vim -t lx_eval", "definition", "lx_eval", "run"},
    {"cflow -m lx_eval src/lisp/eval.c", "callees", "lx_eval", "run"},
    {"head -50 src/lisp/eval.c", "read", "src/lisp/eval.c:1-50", "run"},
    {"cat src/lisp/eval.c | head -20", "read", "src/lisp/eval.c:1-20", "run"},
    {"tail -n 30 src/lisp/eval.c", "read", "src/lisp/eval.c", "run"},
    {"nvim src/lisp/eval.c", "read", "src/lisp/eval.c", "run"},
    {"sed -n '5,8p' src/lisp/eval.c", "read", "src/lisp/eval.c:5-8", "run"},
    {"rg -i lx_eval src", "grep", "lx_eval", "run"},
    {"git log -n 5", "get_commits", NULL, "run"},
    {"git show --stat HEAD~1", "get_diff_stats", NULL, "run"},
    {"make -j4 check", "validate", "make -j4 check", "run"},
    {"ninja test", "validate", NULL, "run"},
    {":wq", "done", NULL, "run"},
    {"lgtm, ship it", "done", NULL, "run"},
    {"ok that's it, thanks", "done", NULL, "run"},
    {"find usages of lx_eval", "references", "lx_eval", "run"},
    {"go-to-definition lx_eval", "definition", "lx_eval", "run"},
    {"call hierarchy lx_eval", "callers", "lx_eval", "run"},
    {"document symbols src/lisp/eval.c", "skeleton", "src/lisp/eval.c", "run"},
    {"ls src/lisp", "skeleton", "src/lisp", "run"},
    /* ... and lines that only begin like one */
    {"more about lx_eval", "none", NULL, "reject"},
    {"tail recursion in lx_eval", "none", NULL, "reject"},
    {"make coffee now", "none", NULL, "reject"},
    /* a typo as close to two verbs asks (callers or callees?) */
    {"calles lx_eval", "callers", "lx_eval", "clarify"},
    {"hey, could you outline src/lisp/eval.c please", "skeleton", "src/lisp/eval.c", "run"},
    /* an edit, delete or exec never runs from a fuzzy match or from prose */
    {"edti src/lisp/eval.c", "fix", "src/lisp/eval.c", "suggest"},
    {"exit", "done", NULL, "run"}, /* a sign-off, not a typo of edit (docs/decisions.md) */
    {"memroy_add", "memory_add", NULL, "suggest"},
    {"memory_delet id=3", "memory_delete", NULL, "suggest"},
    {"does it compile", "validate", NULL, "clarify"},
    {"run the checks", "validate", NULL, "run"},
    {"open the pod bay doors", "read", "pod", "suggest"}, /* below 0.6 */
    /* rejects */
    {"make coffee", "none", NULL, "reject"},
    {"play some jazz", "none", NULL, "reject"}, /* "play" is a word, not a typo of "plan" */
    {"tell me a joke about cats", "none", NULL, "reject"}, /* "cats" is no typo of "cat" */
    {"shwo src/lisp/eval.c", "read", "src/lisp/eval.c", "run"}, /* a request misspelt */
    {"ls src/lisp", "skeleton", "src/lisp", "run"},
    {"less src/lisp/eval.c", "read", "src/lisp/eval.c", "run"},
    {"xrefs lx_eval", "references", "lx_eval", "run"},
    /* editors', ctags' and git's own words, flags and all (plain15 dev) */
    {"vim src/lisp/eval.c", "read", "src/lisp/eval.c", "run"},
    {"ctags -x src/lisp/eval.c", "skeleton", "src/lisp/eval.c", "run"},
    {"git log --follow src/lisp/eval.c", "get_file_history", "src/lisp/eval.c", "run"},
    {"git shortlog -sn", "get_author_stats", NULL, "run"},
    {"git log --oneline", "get_commits", NULL, "run"},
    {"emacs src/lisp/eval.c", "read", "src/lisp/eval.c", "run"},
    {"sed -n 10,20p src/lisp/eval.c", "read", "src/lisp/eval.c:10-20", "run"},
    {"git grep -n 'lx_eval'", "grep", "lx_eval", "run"},
    {"git tag --list", "get_tags", NULL, "run"},
    {"lgtm, finished", "done", NULL, "run"},
    {"list the commits that touched src/lisp/eval.c", "get_file_history", "src/lisp/eval.c", "run"},
    {"can you show me what src/lisp/eval.c looks like", "read", "src/lisp/eval.c", "run"},
    {"git blame src/lisp/eval.c", "get_file_history", "src/lisp/eval.c", "run"},
    {"hover lx_eval", "definition", "lx_eval", "run"},
    {"outgoing calls of lx_eval", "callees", "lx_eval", "run"},
    {"incoming calls to lx_eval", "callers", "lx_eval", "run"},
    {"calls-to lx_eval", "callers", "lx_eval", "run"},
    {"make test", "validate", "make test", "run"},
    {"make check", "validate", "make check", "run"},
    {"dispaly src/lisp/eval.c", "read", "src/lisp/eval.c", "run"},
    {"test", "validate", NULL, "run"},
    {"asdf qwer zxcv", "none", NULL, "reject"},
    {"", "none", NULL, "reject"},
    {"   ", "none", NULL, "reject"},
    {"!!!", "none", NULL, "reject"},
    {"the weather in paris", "none", NULL, "reject"},
    {"sing me a song", "none", NULL, "reject"},
    {"lorem ipsum dolor sit amet", "none", NULL, "reject"},
    /* commands as their editors and frameworks name them: prefixes, ids cut into words,
     * keys, menu paths, palette categories, runners (cmdline.c reread) */
    {":e src/lisp/eval.c", "read", "src/lisp/eval.c", "run"},
    {"edit src/lisp/eval.c", "fix", "src/lisp/eval.c", "run"}, /* edit is fix, :e is read */
    {"M-x xref-find-definitions lx_eval", "definition", "lx_eval", "run"},
    {"M-. lx_eval", "definition", "lx_eval", "run"},
    {"M-x imenu", "skeleton", NULL, "run"},
    {"textDocument/references lx_eval", "references", "lx_eval", "run"},
    {"textDocument/definition lx_eval", "definition", "lx_eval", "run"},
    {"callHierarchy/outgoingCalls lx_eval", "callees", "lx_eval", "run"},
    {"workbench.action.findInFiles LX_", "grep", "LX_", "run"},
    {"Edit.GoToDefinition lx_eval", "definition", "lx_eval", "run"},
    {"read_file src/lisp/eval.c", "read", "src/lisp/eval.c", "run"},
    {"read_file path=src/lisp/eval.c", "read", "src/lisp/eval.c", "run"},
    {"list_dir src/lisp", "skeleton", "src/lisp", "run"},
    {"search_files pattern=lx_eval", "grep", "lx_eval", "run"},
    {"symbol_picker", "skeleton", NULL, "run"},
    {"Go to Symbol in Editor src/lisp/eval.c", "skeleton", "src/lisp/eval.c", "run"},
    {"Go to Symbol in Workspace lx_eval", "definition", "lx_eval", "run"},
    {"Tasks: Run Build Task", "validate", NULL, "run"},
    {"Product > Build", "validate", NULL, "run"},
    {":vimgrep /lx_eval/ src/lisp", "grep", "lx_eval", "run"},
    {"awk 'NR>=3 && NR<=9' src/lisp/eval.c", "read", "src/lisp/eval.c:3-9", "run"},
    {"git show HEAD:src/lisp/eval.c", "read", "src/lisp/eval.c", "run"},
    {"git lgo", "get_commits", NULL, "run"},
    {"run_terminal_cmd make test", "validate", "make test", "run"},
    {":shipit:", "done", NULL, "run"},
    {":white_check_mark:", "done", NULL, "run"},
    {"attempt_completion", "done", NULL, "run"},
    {"we're all set", "done", NULL, "run"},
    {"fix: bound the stack check", "fix", NULL, "run"}, /* a verb's own colon stays */
    {":Make", "validate", "make", "run"},
    {":grep! LX_ src/lisp", "grep", "LX_", "run"},
    {":YcmCompleter GoToReferences lx_eval", "references", "lx_eval", "run"},
    {"Navigate > Declaration lx_eval", "definition", "lx_eval", "run"},
    {"Call Hierarchy > Callees lx_eval", "callees", "lx_eval", "run"},
    {"Explorer: Focus on Outline View", "skeleton", NULL, "run"},
    {"read_file(\"src/lisp/eval.c\")", "read", "src/lisp/eval.c", "run"},
    {"execute_command command=\"make check\"", "validate", "make check", "run"},
    {"git grep -e LX_ -- '*.c'", "grep", "LX_", "run"},
    {"ok, we're done here", "done", NULL, "run"},
    {"fix", "fix", NULL, "run"}, /* the verb alone: sure, its file asked for */
    {"apply_patch", "fix", NULL, "run"},
    {"rewrite everything", "fix", NULL, "clarify"},
    {"gd", "definition", NULL, "run"}, /* a key alone: the action, its symbol asked for */
    {":grep", "grep", NULL, "run"},
    {"cflow --main=lx_eval src/lisp/eval.c", "callees", "lx_eval", "run"},
    {"ctags -x --c-kinds=f src/lisp/eval.c", "skeleton", "src/lisp/eval.c", "run"},
    {"gti log", "get_commits", NULL, "run"},
    {"all tests pass, wrapping up", "done", NULL, "run"},
    {"./runtest --single unit/type/list", "validate", NULL, "run"},
    {"outline::Toggle", "skeleton", NULL, "run"},
    {"project symbols: toggle lx_eval", "definition", "lx_eval", "run"},
    /* programs that change things name no verb, whatever their words */
    {"rm -rf build", "none", NULL, "reject"},
    {"git push origin main", "none", NULL, "reject"},
    {"sudo make install", "none", NULL, "reject"},
    {"docker run --rm -it debian", "none", NULL, "reject"},
    {"git commit -m 'fix the grep'", "none", NULL, "reject"},
    /* a verb's word owned by someone is a thing, not an intent ("cat" is read's alias) */
    {"my cat is asleep on the keyboard", "none", NULL, "reject"},
};

static void test_table(void)
{
    qr_tools *tools = qr_tools_default();
    CHECK(tools != NULL);
    qr_dwim_lookup lk = {.tools = tools, .path_exists = fake_path, .symbol_known = fake_symbol};
    for (size_t i = 0; i < sizeof rows / sizeof rows[0]; i++) {
        const row *r = &rows[i];
        qr_arena a;
        qr_arena_init(&a, 0);
        qr_dwim_intent in;
        CHECK(qr_dwim_parse(&lk, r->line, strlen(r->line), &a, &in) == QR_OK);
        const char *verb = in.verb == QR_DWIM_TOOL ? in.tool : qr_dwim_verb_name(in.verb);
        const char *band = qr_dwim_band(in.confidence);
        bool bad = strcmp(verb, r->verb) != 0 || strcmp(band, r->band) != 0 ||
                   (r->target ? !in.target || strcmp(in.target, r->target) != 0 : in.target != NULL);
        if (bad && strcmp(r->band, "reject") == 0 && strcmp(band, "reject") == 0)
            bad = false; /* a reject is a reject whatever it leaned to */
        if (bad) {
            fprintf(stderr, "line '%s': got %s '%s' %s %.2f, want %s '%s' %s\n", r->line, verb,
                    in.target ? in.target : "(none)", band, in.confidence, r->verb,
                    r->target ? r->target : "(none)", r->band);
            check_failures++;
        }
        qr_arena_release(&a);
    }
    qr_tools_free(tools);
}

static void test_params_and_json(void)
{
    qr_tools *tools = qr_tools_default();
    qr_dwim_lookup lk = {.tools = tools, .path_exists = fake_path, .symbol_known = fake_symbol};
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_dwim_intent in;
    const char *l = "read src/lisp/eval.c:10-40";
    CHECK(qr_dwim_parse(&lk, l, strlen(l), &a, &in) == QR_OK);
    qr_buf b;
    qr_buf_init(&b);
    qr_dwim_intent_json(&in, &b);
    CHECK_STR(b.p, "{\"verb\":\"read\",\"target\":\"src/lisp/eval.c:10-40\",\"targets\":"
                   "[\"src/lisp/eval.c:10-40\"],\"content\":null,\"tool\":\"read\",\"params\":"
                   "{\"path\":\"src/lisp/eval.c\",\"start\":10,\"end\":40},\"confidence\":0.95,"
                   "\"alternatives\":[]}");
    /* a fix with a block on the following lines */
    qr_buf_reset(&b);
    l = "fix src/lisp/eval.c\n<<<<<<< SEARCH\na\n=======\nb\n>>>>>>> REPLACE\n";
    CHECK(qr_dwim_parse(&lk, l, strlen(l), &a, &in) == QR_OK);
    CHECK(in.verb == QR_DWIM_FIX);
    CHECK_STR(in.target, "src/lisp/eval.c");
    CHECK(in.content && !strncmp(in.content, "<<<<<<< SEARCH\n", 15));
    /* callers: the code graph's query */
    l = "callers lx_eval";
    CHECK(qr_dwim_parse(&lk, l, strlen(l), &a, &in) == QR_OK);
    CHECK_STR(in.tool, "query_codebase");
    qr_dwim_intent_json(&in, &b);
    CHECK(strstr(b.p, "\"direction\":\"callers\"") != NULL);
    CHECK(strstr(b.p, "\"query_type\":\"get_call_graph\"") != NULL);
    /* a verb alone: sure, its target missing and named apart */
    l = "callers";
    CHECK(qr_dwim_parse(&lk, l, strlen(l), &a, &in) == QR_OK);
    CHECK(in.verb == QR_DWIM_CALLERS && in.confidence >= 0.85 && in.missing_target);
    CHECK_STR(qr_dwim_verb_needs(in.verb), "a symbol");
    qr_buf_reset(&b);
    qr_dwim_intent_json(&in, &b);
    CHECK(strstr(b.p, "\"missing\":[\"target\"]") != NULL);
    l = "callers lx_eval";
    CHECK(qr_dwim_parse(&lk, l, strlen(l), &a, &in) == QR_OK);
    CHECK(!in.missing_target);
    /* `verb: target`: for a verb that needs a target, the colon does not make it content */
    l = "callers: lx_eval";
    CHECK(qr_dwim_parse(&lk, l, strlen(l), &a, &in) == QR_OK);
    CHECK(in.verb == QR_DWIM_CALLERS && !in.missing_target && !in.content);
    CHECK_STR(in.target, "lx_eval");
    l = "skeleton: src/lisp";
    CHECK(qr_dwim_parse(&lk, l, strlen(l), &a, &in) == QR_OK);
    CHECK(in.verb == QR_DWIM_SKELETON && !in.missing_target);
    l = "callers:";
    CHECK(qr_dwim_parse(&lk, l, strlen(l), &a, &in) == QR_OK);
    CHECK(in.verb == QR_DWIM_CALLERS && in.missing_target);
    /* key=value terms are all kept (the run refuses those a verb does not take) */
    l = "grep lx_ limit=5 colour=red";
    CHECK(qr_dwim_parse(&lk, l, strlen(l), &a, &in) == QR_OK);
    qr_buf_reset(&b);
    qr_dwim_intent_json(&in, &b);
    CHECK(strstr(b.p, "\"limit\":5") != NULL);
    CHECK(strstr(b.p, "\"colour\":\"red\"") != NULL);
    /* grep 'PAT' DIR: the directory is where it searches */
    l = "grep 'lx_' src/lisp";
    CHECK(qr_dwim_parse(&lk, l, strlen(l), &a, &in) == QR_OK);
    qr_buf_reset(&b);
    qr_dwim_intent_json(&in, &b);
    CHECK(strstr(b.p, "\"params\":{\"pattern\":\"lx_\",\"path\":\"src/lisp\"}") != NULL);
    /* another tool's command carries its counts and windows as the tool's parameters */
    static const char *const carried[][2] = {
        {"git log -n 5", "\"params\":{\"limit\":5}"},
        {"git log -7 --no-merges", "\"params\":{\"limit\":7,\"merges\":\"exclude\"}"},
        {"git log --since='2 weeks ago' --author=ann",
         "\"params\":{\"since\":\"2 weeks ago\",\"author\":\"ann\"}"},
        {"git log --follow src/lisp/eval.c", "\"params\":{\"path\":\"src/lisp/eval.c\"}"},
        {"git show --stat HEAD~1", "\"params\":{\"from\":\"HEAD~1^\",\"to\":\"HEAD~1\"}"},
        {"git tag -l 'v1.*'", "\"params\":{\"pattern\":\"v1.*\"}"},
        {"cscope -L8 src/lisp/eval.c", "\"reverse\":true"},
        {"show the last 5 commits", "\"params\":{\"limit\":5}"},
        {"the 3 most recent changes to src/lisp/eval.c",
         "\"params\":{\"limit\":3,\"path\":\"src/lisp/eval.c\"}"},
        {"top 5 contributors", "\"params\":{\"limit\":5}"},
    };
    for (size_t i = 0; i < sizeof carried / sizeof carried[0]; i++) {
        l = carried[i][0];
        CHECK(qr_dwim_parse(&lk, l, strlen(l), &a, &in) == QR_OK);
        qr_buf_reset(&b);
        qr_dwim_intent_json(&in, &b);
        if (!strstr(b.p, carried[i][1]))
            fprintf(stderr, "line '%s': %s lacks %s\n", l, b.p, carried[i][1]);
        CHECK(strstr(b.p, carried[i][1]) != NULL && in.confidence >= 0.85);
    }
    /* an include question's direction is read from the word order */
    l = "which files include src/lisp/eval.c";
    CHECK(qr_dwim_parse(&lk, l, strlen(l), &a, &in) == QR_OK);
    CHECK(in.verb == QR_DWIM_DEPS && in.confidence >= 0.85);
    qr_buf_reset(&b);
    qr_dwim_intent_json(&in, &b);
    CHECK(strstr(b.p, "\"reverse\":true") != NULL);
    l = "what does src/lisp/eval.c include";
    CHECK(qr_dwim_parse(&lk, l, strlen(l), &a, &in) == QR_OK);
    qr_buf_reset(&b);
    qr_dwim_intent_json(&in, &b);
    CHECK(in.verb == QR_DWIM_DEPS && strstr(b.p, "reverse") == NULL);
    /* grep -i: the pattern ignores case */
    l = "grep -i LX_ src";
    CHECK(qr_dwim_parse(&lk, l, strlen(l), &a, &in) == QR_OK);
    qr_buf_reset(&b);
    qr_dwim_intent_json(&in, &b);
    CHECK(strstr(b.p, "\"pattern\":\"(?i)LX_\"") != NULL);
    /* a clarify lists alternatives */
    l = "what functions are in this file";
    CHECK(qr_dwim_parse(&lk, l, strlen(l), &a, &in) == QR_OK);
    CHECK(in.nalts >= 1 && in.nalts <= 3);
    qr_buf_release(&b);
    qr_arena_release(&a);
    qr_tools_free(tools);
}

static void test_diags(void)
{
    const char *log = "make: entering\n"
                      "m.c:4:12: error: expected ';' before '}' token\n"
                      "m.c: In function 'add':\n"
                      "src/x.c:10:1: warning: unused variable 'y' [-Wunused-variable]\n"
                      "x.h:3: note: declared here\n"
                      "m.c:9:5: fatal error: nope.h: No such file or directory\n"
                      "junk:notaline: error: x\n"
                      /* a command make echoes names no file */
                      "echo \"t.c:3: error: expected 2\"; false\n";
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_dwim_diag *d;
    size_t n = qr_dwim_parse_diags(log, strlen(log), &a, &d);
    CHECK(n == 4);
    CHECK_STR(d[0].file, "m.c");
    CHECK(d[0].line == 4 && d[0].col == 12);
    CHECK_STR(d[0].severity, "error");
    CHECK_STR(d[0].message, "expected ';' before '}' token");
    CHECK_STR(d[1].severity, "warning");
    CHECK(d[2].line == 3 && d[2].col == 0);
    CHECK_STR(d[3].severity, "fatal error");
    qr_arena_release(&a);
}

static void test_bands(void)
{
    CHECK_STR(qr_dwim_band(0.85), "run");
    CHECK_STR(qr_dwim_band(0.849), "clarify");
    CHECK_STR(qr_dwim_band(0.6), "clarify");
    CHECK_STR(qr_dwim_band(0.3), "suggest");
    CHECK_STR(qr_dwim_band(0.29), "reject");
}

/* The text of parameter `key` of in, or NULL when it is not a string. */
static const char *param_str(qr_arena *a, const qr_dwim_intent *in, const char *key)
{
    qr_val v;
    if (!qr_map_get(in->params, qr_kw_cstr(a, key), &v) || v.t != QR_T_STR)
        return NULL;
    return v.s->data;
}

/* A tool's one required parameter given as key=value beside a symbol the index knows: the
 * parser asked the map for the given value with a NULL out-pointer and wrote through it
 * (a SIGSEGV in quarry dwim, quarry do and the MCP server). The given value stays. */
static void test_param_given_beside_known_symbol(void)
{
    qr_tools *tools = qr_tools_default();
    qr_dwim_lookup lk = {.tools = tools, .path_exists = fake_path, .symbol_known = fake_symbol};
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_dwim_intent in;
    const char *l = "get_file_history path=src/lisp/eval.c main";
    CHECK(qr_dwim_parse(&lk, l, strlen(l), &a, &in) == QR_OK);
    CHECK(in.verb == QR_DWIM_TOOL);
    CHECK_STR(in.tool, "get_file_history");
    CHECK_STR(param_str(&a, &in, "path"), "src/lisp/eval.c");
    l = "get_file_history main path=README.md";
    CHECK(qr_dwim_parse(&lk, l, strlen(l), &a, &in) == QR_OK);
    CHECK_STR(param_str(&a, &in, "path"), "README.md");
    qr_arena_release(&a);
    qr_tools_free(tools);
}

/* key='a value with spaces' (or "..."): the quotes hold the whole value, which stays a
 * string even when it looks like a number; the words after it are read as before. */
static void test_quoted_param_value(void)
{
    qr_tools *tools = qr_tools_default();
    qr_dwim_lookup lk = {.tools = tools, .path_exists = fake_path, .symbol_known = fake_symbol};
    qr_arena a;
    qr_arena_init(&a, 0);
    qr_dwim_intent in;
    const char *l = "get_commits author='ann smith'";
    CHECK(qr_dwim_parse(&lk, l, strlen(l), &a, &in) == QR_OK);
    CHECK_STR(in.tool, "get_commits");
    CHECK_STR(param_str(&a, &in, "author"), "ann smith");
    l = "get_commits author=\"Ann  Smith\" since=2024-01-01";
    CHECK(qr_dwim_parse(&lk, l, strlen(l), &a, &in) == QR_OK);
    CHECK_STR(param_str(&a, &in, "author"), "Ann  Smith");
    CHECK_STR(param_str(&a, &in, "since"), "2024-01-01");
    l = "get_commits author='42'";
    CHECK(qr_dwim_parse(&lk, l, strlen(l), &a, &in) == QR_OK);
    CHECK_STR(param_str(&a, &in, "author"), "42");
    /* an unclosed quote: read as one word up to the space, as before */
    l = "get_commits author='ann smith";
    CHECK(qr_dwim_parse(&lk, l, strlen(l), &a, &in) == QR_OK);
    CHECK_STR(param_str(&a, &in, "author"), "'ann");
    qr_arena_release(&a);
    qr_tools_free(tools);
}

int main(void)
{
    test_param_given_beside_known_symbol();
    test_quoted_param_value();
    test_table();
    test_params_and_json();
    test_diags();
    test_bands();
    CHECK_DONE();
}

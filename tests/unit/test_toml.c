/*
 * test_toml.c: unit tests for the TOML reader: every value kind, tables, arrays of
 * tables, dotted keys, inline tables, string kinds and escapes, integers in every base,
 * floats, date-times as strings, the files quarry reads, and malformed documents, each
 * checked for its error code, line, column and message.
 */
#include "check.h"
#include "quarry/toml.h"

#include <math.h>
#include <stdlib.h>

static qr_arena A;

/* Reads src (n bytes) and returns its EDN form (malloc'd), or NULL with the error shown. */
static char *toml_n(const char *src, size_t n)
{
    qr_val v;
    qr_read_error e;
    int rc = qr_toml_read(&A, src, n, &v, &e);
    if (rc != QR_OK) {
        fprintf(stderr, "toml error %d at %u:%u: %s\n", rc, e.line, e.col, e.msg);
        return NULL;
    }
    qr_buf b;
    qr_buf_init(&b);
    qr_print(&b, v, QR_PRINT_READABLY);
    return qr_buf_detach(&b, NULL);
}

#define CHECK_TOML_N(src, n, want)                                                           \
    do {                                                                                     \
        char *s_ = toml_n(src, n);                                                           \
        CHECK_STR(s_, want);                                                                 \
        free(s_);                                                                            \
    } while (0)
#define CHECK_TOML(src, want) CHECK_TOML_N(src, strlen(src), want)

/* Checks that src fails with code, at line:col, with a message starting with msg. */
static void check_err_at(const char *file, int line_no, const char *src, size_t n, int code,
                         uint32_t line, uint32_t col, const char *msg)
{
    qr_val v = qr_int(7);
    qr_read_error e;
    int rc = qr_toml_read(&A, src, n, &v, &e);
    if (rc != code || e.line != line || e.col != col || strncmp(e.msg, msg, strlen(msg)) != 0 ||
        !qr_is_nil(v)) {
        fprintf(stderr,
                "%s:%d: for %.40s\n  expected %d at %u:%u: %s...\n  got      %d at %u:%u: %s\n",
                file, line_no, src, code, line, col, msg, rc, e.line, e.col, e.msg);
        check_failures++;
    }
}
#define CHECK_ERR(src, line, col, msg)                                                       \
    check_err_at(__FILE__, __LINE__, src, strlen(src), QR_EINVAL, line, col, msg)
#define CHECK_ERR_N(src, n, line, col, msg)                                                  \
    check_err_at(__FILE__, __LINE__, src, n, QR_EINVAL, line, col, msg)
#define CHECK_LIMIT(src, line, col, msg)                                                     \
    check_err_at(__FILE__, __LINE__, src, strlen(src), QR_ELIMIT, line, col, msg)

/* Looks up a path of string keys in a map read from src. */
static qr_val get(qr_val m, const char *path)
{
    char part[64];
    while (*path) {
        size_t k = strcspn(path, "/");
        memcpy(part, path, k);
        part[k] = 0;
        if (m.t != QR_T_MAP || !qr_map_get(m, qr_str_cstr(&A, part), &m))
            return qr_nil();
        path += k + (path[k] == '/');
    }
    return m;
}

static qr_val read_ok(const char *src)
{
    qr_val v;
    qr_read_error e;
    int rc = qr_toml_read(&A, src, strlen(src), &v, &e);
    if (rc != QR_OK)
        fprintf(stderr, "toml error at %u:%u: %s\n", e.line, e.col, e.msg);
    CHECK(rc == QR_OK);
    return rc == QR_OK ? v : qr_nil();
}

static void test_quarry_files(void)
{
    const char *config = "# ~/.config/quarry/config.toml\n"
                         "[llm]\n"
                         "url = \"http://127.0.0.1:8080/v1\"\n"
                         "model = \"qwen2.5-coder\"\n"
                         "timeout_ms = 60_000\n"
                         "stream = false\n";
    CHECK_TOML(config, "{\"llm\" {\"url\" \"http://127.0.0.1:8080/v1\", \"model\" "
                       "\"qwen2.5-coder\", \"timeout_ms\" 60000, \"stream\" false}}");
    qr_val c = read_ok(config);
    CHECK(get(c, "llm/timeout_ms").t == QR_T_INT && get(c, "llm/timeout_ms").i == 60000);
    CHECK(get(c, "llm/stream").t == QR_T_BOOL && !get(c, "llm/stream").b);
    CHECK(get(c, "llm/url").t == QR_T_STR);

    const char *agent = "[query]\n"
                        "pipeline = \"all | type:episodic | not-visited:linker,7d | "
                        "sort:priority | limit:20\"\n"
                        "[prompt]\n"
                        "template = \"\"\"\n"
                        "You link notes.\n"
                        "{{topology}}\n"
                        "{{nodes}}\n"
                        "\"\"\"\n"
                        "[execution]\n"
                        "model = \"sonnet\"\n"
                        "actions = [\"link-add\", \"weight\"]\n"
                        "schedule = \"daily\"\n";
    CHECK_TOML(agent, "{\"query\" {\"pipeline\" \"all | type:episodic | not-visited:linker,7d "
                      "| sort:priority | limit:20\"}, \"prompt\" {\"template\" \"You link "
                      "notes.\\n{{topology}}\\n{{nodes}}\\n\"}, \"execution\" {\"model\" "
                      "\"sonnet\", \"actions\" [\"link-add\" \"weight\"], \"schedule\" "
                      "\"daily\"}}");
    qr_val ag = read_ok(agent);
    /* keys keep the order they were written in */
    CHECK(qr_map_len(ag) == 3);
    CHECK(qr_map_key_at(ag, 0).t == QR_T_STR && strcmp(qr_map_key_at(ag, 0).s->data, "query") == 0);
    CHECK(strcmp(qr_map_key_at(ag, 2).s->data, "execution") == 0);
    /* the same files with CRLF line ends read the same, and a BOM is skipped */
    CHECK_TOML("\xef\xbb\xbf[llm]\r\nmodel = \"m\"\r\nt = \"\"\"\r\na\r\nb\"\"\"\r\n",
               "{\"llm\" {\"model\" \"m\", \"t\" \"a\\nb\"}}");
    /* an empty document, and one of only comments and blank lines */
    CHECK_TOML("", "{}");
    CHECK_TOML("# nothing\n\n   \t\n# more", "{}");
}

static void test_scalars(void)
{
    CHECK_TOML("t = true\nf = false", "{\"t\" true, \"f\" false}");
    /* integers in every base, signs and underscores */
    CHECK_TOML("a = +99\nb = 42\nc = 0\nd = -17\ne = 1_000\nf = 5_349_221\ng = -0\nh = +0",
               "{\"a\" 99, \"b\" 42, \"c\" 0, \"d\" -17, \"e\" 1000, \"f\" 5349221, \"g\" 0, "
               "\"h\" 0}");
    CHECK_TOML("h1 = 0xDEADBEEF\nh2 = 0xdeadbeef\nh3 = 0xdead_beef\no1 = 0o01234567\n"
               "o2 = 0o755\nb1 = 0b11010110\nz = 0x0\nzz = 0b0_0_1",
               "{\"h1\" 3735928559, \"h2\" 3735928559, \"h3\" 3735928559, \"o1\" 342391, "
               "\"o2\" 493, \"b1\" 214, \"z\" 0, \"zz\" 1}");
    CHECK_TOML("max = 9223372036854775807\nmin = -9223372036854775808\n"
               "hmax = 0x7fffffffffffffff\nomax = 0o777777777777777777777",
               "{\"max\" 9223372036854775807, \"min\" -9223372036854775808, \"hmax\" "
               "9223372036854775807, \"omax\" 9223372036854775807}");
    /* floats */
    CHECK_TOML("a = +1.0\nb = 3.1415\nc = -0.01\nd = 5e+22\ne = 1e06\nf = -2E-2\n"
               "g = 6.626e-34\nh = 224_617.445_991_228\ni = 0e0\nj = 0.0\nk = 1e1_0",
               "{\"a\" 1.0, \"b\" 3.1415, \"c\" -0.01, \"d\" 5.0E22, \"e\" 1000000.0, \"f\" "
               "-0.02, \"g\" 6.626E-34, \"h\" 224617.445991228, \"i\" 0.0, \"j\" 0.0, \"k\" "
               "1.0E10}");
    CHECK_TOML("a = inf\nb = +inf\nc = -inf\nd = nan", "{\"a\" ##Inf, \"b\" ##Inf, \"c\" "
                                                      "##-Inf, \"d\" ##NaN}");
    qr_val f = read_ok("z = -0.0\nn = -nan\np = +nan\ntiny = 1e-400");
    CHECK(get(f, "z").t == QR_T_DOUBLE && get(f, "z").d == 0 && signbit(get(f, "z").d));
    CHECK(isnan(get(f, "n").d) && isnan(get(f, "p").d));
    CHECK(get(f, "tiny").t == QR_T_DOUBLE && get(f, "tiny").d == 0);
    /* date-times stay strings holding their exact text */
    CHECK_TOML("odt1 = 1979-05-27T07:32:00Z\nodt2 = 1979-05-27T00:32:00-07:00\n"
               "odt3 = 1979-05-27T00:32:00.999999-07:00\nodt4 = 1979-05-27 07:32:00Z\n"
               "odt5 = 1979-05-27t07:32:00z\nldt = 1979-05-27T07:32:00\n"
               "ldt2 = 1979-05-27 00:32:00.999999\nld = 1979-05-27\nlt1 = 07:32:00\n"
               "lt2 = 00:32:00.999999\nleap = 2000-02-29\nsec60 = 1990-12-31T23:59:60Z",
               "{\"odt1\" \"1979-05-27T07:32:00Z\", \"odt2\" \"1979-05-27T00:32:00-07:00\", "
               "\"odt3\" \"1979-05-27T00:32:00.999999-07:00\", \"odt4\" \"1979-05-27 "
               "07:32:00Z\", \"odt5\" \"1979-05-27t07:32:00z\", \"ldt\" "
               "\"1979-05-27T07:32:00\", \"ldt2\" \"1979-05-27 00:32:00.999999\", \"ld\" "
               "\"1979-05-27\", \"lt1\" \"07:32:00\", \"lt2\" \"00:32:00.999999\", \"leap\" "
               "\"2000-02-29\", \"sec60\" \"1990-12-31T23:59:60Z\"}");
    /* a date followed by a comment, not a time */
    CHECK_TOML("d = 1979-05-27 # birthday\nd2 = [1979-05-27, 07:32:00]",
               "{\"d\" \"1979-05-27\", \"d2\" [\"1979-05-27\" \"07:32:00\"]}");
}

static void test_strings(void)
{
    /* basic strings and every escape */
    CHECK_TOML("s = \"I'm a string. \\\"You can quote me\\\". Name\\tJos\\u00E9\\nLoc\\tSF.\"",
               "{\"s\" \"I'm a string. \\\"You can quote me\\\". Name\\tJosé\\nLoc\\tSF.\"}");
    CHECK_TOML("s = \"\\b\\t\\n\\f\\r\\\"\\\\\"", "{\"s\" \"\\b\\t\\n\\f\\r\\\"\\\\\"}");
    CHECK_TOML("s = \"\\u00e9\\U0001F600\\u0041\\U00000042\"", "{\"s\" \"é😀AB\"}");
    CHECK_TOML("s = \"tab\there\"\ne = \"\"", "{\"s\" \"tab\\there\", \"e\" \"\"}");
    qr_val nul = read_ok("s = \"a\\u0000b\"");
    CHECK(get(nul, "s").t == QR_T_STR && get(nul, "s").s->len == 3);
    CHECK_TOML("s = \"raw é ü 中文\"", "{\"s\" \"raw é ü 中文\"}");
    /* literal strings: no escapes */
    CHECK_TOML("w = 'C:\\Users\\nodejs\\templates'\nq = 'Tom \"Dubs\" Preston'\n"
               "r = '<\\i\\c*\\s*>'\ne = ''",
               "{\"w\" \"C:\\\\Users\\\\nodejs\\\\templates\", \"q\" \"Tom \\\"Dubs\\\" "
               "Preston\", \"r\" \"<\\\\i\\\\c*\\\\s*>\", \"e\" \"\"}");
    /* multi-line basic: first newline dropped, line-ending backslash trims */
    CHECK_TOML("s = \"\"\"\nRoses are red\nViolets are blue\"\"\"",
               "{\"s\" \"Roses are red\\nViolets are blue\"}");
    CHECK_TOML("s = \"\"\"\nThe quick brown \\\n\n\n  fox jumps over \\\n    the lazy dog.\"\"\"",
               "{\"s\" \"The quick brown fox jumps over the lazy dog.\"}");
    CHECK_TOML("s = \"\"\"\\\n       The quick brown \\\n       fox.\\\n       \"\"\"",
               "{\"s\" \"The quick brown fox.\"}");
    CHECK_TOML("s = \"\"\"a\\ \t \n  b\"\"\"", "{\"s\" \"ab\"}");
    /* quotes inside and just inside the delimiters */
    CHECK_TOML("s = \"\"\"Here are two quotation marks: \"\". Simple enough.\"\"\"",
               "{\"s\" \"Here are two quotation marks: \\\"\\\". Simple enough.\"}");
    CHECK_TOML("s = \"\"\"Here are three quotation marks: \"\"\\\".\"\"\"",
               "{\"s\" \"Here are three quotation marks: \\\"\\\"\\\".\"}");
    CHECK_TOML("s = \"\"\"\"This,\" she said, \"is just a pointless statement.\"\"\"\"",
               "{\"s\" \"\\\"This,\\\" she said, \\\"is just a pointless statement.\\\"\"}");
    CHECK_TOML("s = \"\"\"\"\"x\"\"\"\"\"", "{\"s\" \"\\\"\\\"x\\\"\\\"\"}");
    CHECK_TOML("s = \"\"\"\"\"\"", "{\"s\" \"\"}");
    /* multi-line literal */
    CHECK_TOML("r = '''I [dw]on't need \\d{2} apples'''\nl = '''\nThe first newline is\n"
               "trimmed in raw strings.\n   All other whitespace\n   is preserved.\n'''",
               "{\"r\" \"I [dw]on't need \\\\d{2} apples\", \"l\" \"The first newline "
               "is\\ntrimmed in raw strings.\\n   All other whitespace\\n   is preserved.\\n\"}");
    CHECK_TOML("q = '''Here are fifteen quotation marks: \"\"\"\"\"\"\"\"\"\"\"\"\"\"\"'''\n"
               "a = ''''That,' she said, 'is still pointless.''''",
               "{\"q\" \"Here are fifteen quotation marks: "
               "\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\\\"\", \"a\" \"'That,' "
               "she said, 'is still pointless.'\"}");
    /* a backslash in a literal multi-line string is kept */
    CHECK_TOML("s = '''a\\\nb'''", "{\"s\" \"a\\\\\\nb\"}");
}

static void test_keys(void)
{
    CHECK_TOML("key = 1\nbare_key = 2\nbare-key = 3\n1234 = 4\n-_- = 5",
               "{\"key\" 1, \"bare_key\" 2, \"bare-key\" 3, \"1234\" 4, \"-_-\" 5}");
    CHECK_TOML("\"127.0.0.1\" = 1\n\"character encoding\" = 2\n\"ʎǝʞ\" = 3\n"
               "'key2' = 4\n'quoted \"value\"' = 5\n\"\" = 6\n\"a\\u0041\" = 7",
               "{\"127.0.0.1\" 1, \"character encoding\" 2, \"ʎǝʞ\" 3, \"key2\" 4, "
               "\"quoted \\\"value\\\"\" 5, \"\" 6, \"aA\" 7}");
    /* dotted keys define tables; spaces around the dots */
    CHECK_TOML("name = \"Orange\"\nphysical.color = \"orange\"\nphysical.shape = \"round\"\n"
               "site.\"google.com\" = true\nfruit . flavor = \"x\"\n3.14159 = \"pi\"",
               "{\"name\" \"Orange\", \"physical\" {\"color\" \"orange\", \"shape\" "
               "\"round\"}, \"site\" {\"google.com\" true}, \"fruit\" {\"flavor\" \"x\"}, "
               "\"3\" {\"14159\" \"pi\"}}");
    /* dotted keys may come in any order within their section */
    CHECK_TOML("apple.type = \"fruit\"\norange.type = \"fruit\"\napple.skin = \"thin\"",
               "{\"apple\" {\"type\" \"fruit\", \"skin\" \"thin\"}, \"orange\" {\"type\" "
               "\"fruit\"}}");
    /* a quoted key equal to a bare key is the same key */
    CHECK_ERR("spelling = 1\n\"spelling\" = 2", 2, 1, "duplicate key '\"spelling\"'");
}

static void test_tables(void)
{
    CHECK_TOML("[table-1]\nkey1 = \"some string\"\nkey2 = 123\n\n[table-2]\nkey1 = "
               "\"another string\"\nkey2 = 456",
               "{\"table-1\" {\"key1\" \"some string\", \"key2\" 123}, \"table-2\" {\"key1\" "
               "\"another string\", \"key2\" 456}}");
    CHECK_TOML("[dog.\"tater.man\"]\ntype.name = \"pug\"",
               "{\"dog\" {\"tater.man\" {\"type\" {\"name\" \"pug\"}}}}");
    CHECK_TOML("[a.b.c]\n[ d.e.f ]\n[ g .  h  . i ]\n[ j . \"ʞ\" . 'l' ]",
               "{\"a\" {\"b\" {\"c\" {}}}, \"d\" {\"e\" {\"f\" {}}}, \"g\" {\"h\" {\"i\" {}}}, "
               "\"j\" {\"ʞ\" {\"l\" {}}}}");
    /* an implicit super-table may be defined later */
    CHECK_TOML("[x.y.z.w]\n[x]\nk = 1", "{\"x\" {\"y\" {\"z\" {\"w\" {}}}, \"k\" 1}}");
    CHECK_TOML("[fruit]\napple.color = \"red\"\napple.taste.sweet = true\n"
               "[fruit.apple.texture]\nsmooth = true",
               "{\"fruit\" {\"apple\" {\"color\" \"red\", \"taste\" {\"sweet\" true}, "
               "\"texture\" {\"smooth\" true}}}}");
    /* dotted keys may add to a table that headers only made implicitly */
    CHECK_TOML("[a.b.c]\nz = 9\n[a]\nb.d = 1", "{\"a\" {\"b\" {\"c\" {\"z\" 9}, \"d\" 1}}}");
    /* root keys come before the first header */
    CHECK_TOML("top = 1\n[t]\nk = 2  # trailing comment\n", "{\"top\" 1, \"t\" {\"k\" 2}}");
    CHECK_TOML("[t] # comment\n[u]\t\n", "{\"t\" {}, \"u\" {}}");
}

static void test_arrays_of_tables(void)
{
    CHECK_TOML("[[products]]\nname = \"Hammer\"\nsku = 738594937\n\n[[products]]  # empty\n\n"
               "[[products]]\nname = \"Nail\"\nsku = 284758393\ncolor = \"gray\"",
               "{\"products\" [{\"name\" \"Hammer\", \"sku\" 738594937} {} {\"name\" \"Nail\", "
               "\"sku\" 284758393, \"color\" \"gray\"}]}");
    CHECK_TOML("[[fruits]]\nname = \"apple\"\n[fruits.physical]\ncolor = \"red\"\n"
               "[[fruits.varieties]]\nname = \"red delicious\"\n[[fruits.varieties]]\n"
               "name = \"granny smith\"\n[[fruits]]\nname = \"banana\"\n[[fruits.varieties]]\n"
               "name = \"plantain\"",
               "{\"fruits\" [{\"name\" \"apple\", \"physical\" {\"color\" \"red\"}, "
               "\"varieties\" [{\"name\" \"red delicious\"} {\"name\" \"granny smith\"}]} "
               "{\"name\" \"banana\", \"varieties\" [{\"name\" \"plantain\"}]}]}");
    /* each element is a fresh table: the same keys and sub-tables again */
    CHECK_TOML("[[a]]\nb.c = 1\n[a.d]\n[[a]]\nb.c = 2\n[a.d]",
               "{\"a\" [{\"b\" {\"c\" 1}, \"d\" {}} {\"b\" {\"c\" 2}, \"d\" {}}]}");
    CHECK_TOML("[[ a . b ]]\n[[a.b]]\nx = 1", "{\"a\" {\"b\" [{} {\"x\" 1}]}}");
}

static void test_inline_and_arrays(void)
{
    CHECK_TOML("name = { first = \"Tom\", last = \"Preston-Werner\" }\npoint = { x = 1, y = 2 }\n"
               "animal = { type.name = \"pug\" }\nempty = {}\nsp = {   }",
               "{\"name\" {\"first\" \"Tom\", \"last\" \"Preston-Werner\"}, \"point\" {\"x\" 1, "
               "\"y\" 2}, \"animal\" {\"type\" {\"name\" \"pug\"}}, \"empty\" {}, \"sp\" {}}");
    CHECK_TOML("a = {b = {c = {d = 1}}, e.f = [{g = 2}]}",
               "{\"a\" {\"b\" {\"c\" {\"d\" 1}}, \"e\" {\"f\" [{\"g\" 2}]}}}");
    CHECK_TOML("integers = [ 1, 2, 3 ]\ncolors = [ \"red\", \"yellow\", \"green\" ]\n"
               "nested_arrays_of_ints = [ [ 1, 2 ], [3, 4, 5] ]\n"
               "nested_mixed_array = [ [ 1, 2 ], [\"a\", \"b\", \"c\"] ]\n"
               "string_array = [ \"all\", 'strings', \"\"\"are the same\"\"\", '''type''' ]\n"
               "numbers = [ 0.1, 0.2, 0.5, 1, 2, 5 ]\n"
               "contributors = [\n  \"Foo Bar <foo@example.com>\",\n"
               "  { name = \"Baz Qux\", email = \"bazqux@example.com\" }\n]\n"
               "integers2 = [\n  1, 2, 3\n]\nintegers3 = [\n  1,\n  2, # this is ok\n]\n"
               "empty = []\nblank = [ # c\n\n]",
               "{\"integers\" [1 2 3], \"colors\" [\"red\" \"yellow\" \"green\"], "
               "\"nested_arrays_of_ints\" [[1 2] [3 4 5]], \"nested_mixed_array\" [[1 2] [\"a\" "
               "\"b\" \"c\"]], \"string_array\" [\"all\" \"strings\" \"are the same\" \"type\"], "
               "\"numbers\" [0.1 0.2 0.5 1 2 5], \"contributors\" [\"Foo Bar "
               "<foo@example.com>\" {\"name\" \"Baz Qux\", \"email\" \"bazqux@example.com\"}], "
               "\"integers2\" [1 2 3], \"integers3\" [1 2], \"empty\" [], \"blank\" []}");
    CHECK_TOML("a = [[[]]]\nb=[true,false]\nc=[1979-05-27T07:32:00Z]",
               "{\"a\" [[[]]], \"b\" [true false], \"c\" [\"1979-05-27T07:32:00Z\"]}");
    /* an inline table inside a [table], then another table */
    CHECK_TOML("[product]\ntype = { name = \"Nail\" }\n[other]\nx = 1",
               "{\"product\" {\"type\" {\"name\" \"Nail\"}}, \"other\" {\"x\" 1}}");
}

/* Nesting up to QR_TOML_MAX_DEPTH reads; one level more is QR_ELIMIT. */
static void test_depth(void)
{
    char buf[1024];
    /* arrays: the root map is level 1, so 63 nested arrays fit */
    int k = snprintf(buf, sizeof buf, "a = ");
    for (int i = 0; i < QR_TOML_MAX_DEPTH - 1; i++)
        buf[k++] = '[';
    buf[k++] = '1';
    for (int i = 0; i < QR_TOML_MAX_DEPTH - 1; i++)
        buf[k++] = ']';
    buf[k] = 0;
    qr_val v = read_ok(buf);
    CHECK(v.t == QR_T_MAP && v.dep == QR_TOML_MAX_DEPTH);
    k = snprintf(buf, sizeof buf, "a = ");
    for (int i = 0; i < QR_TOML_MAX_DEPTH; i++)
        buf[k++] = '[';
    buf[k] = 0;
    CHECK_LIMIT(buf, 1, 5 + QR_TOML_MAX_DEPTH - 1, "document nests deeper than 64 levels");
    /* inline tables */
    k = snprintf(buf, sizeof buf, "a = ");
    for (int i = 0; i < QR_TOML_MAX_DEPTH; i++)
        k += snprintf(buf + k, sizeof buf - (size_t)k, "{b = ");
    buf[k] = 0;
    CHECK_LIMIT(buf, 1, 5 + 5 * (QR_TOML_MAX_DEPTH - 1), "document nests deeper");
    /* dotted keys and headers: 64 parts fit (the root, 63 tables, the value) */
    k = 0;
    for (int i = 0; i < QR_TOML_MAX_DEPTH; i++)
        k += snprintf(buf + k, sizeof buf - (size_t)k, "%sk", i ? "." : "");
    snprintf(buf + k, sizeof buf - (size_t)k, " = 1");
    v = read_ok(buf);
    CHECK(v.t == QR_T_MAP && v.dep == QR_TOML_MAX_DEPTH);
    k = 0;
    for (int i = 0; i < QR_TOML_MAX_DEPTH + 1; i++)
        k += snprintf(buf + k, sizeof buf - (size_t)k, "%sk", i ? "." : "");
    snprintf(buf + k, sizeof buf - (size_t)k, " = 1");
    CHECK_LIMIT(buf, 1, 2 * QR_TOML_MAX_DEPTH + 1, "document nests deeper");
    /* below a header the limit counts from the header's depth */
    k = snprintf(buf, sizeof buf, "[t]\n");
    for (int i = 0; i < QR_TOML_MAX_DEPTH; i++)
        k += snprintf(buf + k, sizeof buf - (size_t)k, "%sk", i ? "." : "");
    snprintf(buf + k, sizeof buf - (size_t)k, " = 1");
    CHECK_LIMIT(buf, 2, 2 * (QR_TOML_MAX_DEPTH - 2) + 1, "document nests deeper");
    k = snprintf(buf, sizeof buf, "[");
    for (int i = 0; i < QR_TOML_MAX_DEPTH; i++)
        k += snprintf(buf + k, sizeof buf - (size_t)k, "%sk", i ? "." : "");
    snprintf(buf + k, sizeof buf - (size_t)k, "]");
    CHECK_LIMIT(buf, 1, 2 * QR_TOML_MAX_DEPTH, "document nests deeper");
    /* a key of thousands of parts stops at the limit */
    qr_buf big;
    qr_buf_init(&big);
    for (int i = 0; i < 5000; i++)
        qr_buf_puts(&big, "a.");
    qr_buf_puts(&big, "a = 1");
    check_err_at(__FILE__, __LINE__, big.p, big.len, QR_ELIMIT, 1, 2 * QR_TOML_MAX_DEPTH + 1,
                 "document nests deeper");
    qr_buf_release(&big);
}

static void test_errors(void)
{
    /* redefinitions */
    CHECK_ERR("a = 1\na = 2", 2, 1, "duplicate key 'a': already defined at line 1");
    CHECK_ERR("[t]\nx.y = 1\nx.y = 2", 3, 1, "duplicate key 'x.y': already defined at line 2");
    CHECK_ERR("a.b = 1\na = 2", 2, 1, "duplicate key 'a': already defined at line 1");
    CHECK_ERR("[a.b]\n[a]\nb = 1", 3, 1, "duplicate key 'b': already defined at line 1");
    CHECK_ERR("[a]\nx = 1\n\n[a]", 4, 2, "table 'a' defined twice: first at line 1");
    CHECK_ERR("[a.b]\n[a.b]", 2, 2, "table 'a.b' defined twice: first at line 1");
    CHECK_ERR("a.b = 1\n[a]", 2, 2, "table 'a' already defined with dotted keys at line 1");
    CHECK_ERR("[fruit]\napple.color = \"red\"\n[fruit.apple]", 3, 2,
              "table 'fruit.apple' already defined with dotted keys at line 2");
    CHECK_ERR("[fruit]\napple.taste.sweet = true\n[fruit.apple.taste]", 3, 2,
              "table 'fruit.apple.taste' already defined with dotted keys at line 2");
    CHECK_ERR("[a.b.c]\nz = 9\n[a]\nb.c.t = 1", 4, 3,
              "cannot add 'b.c.t' with dotted keys: table 'b.c' has its own [header] (line 1)");
    CHECK_ERR("[a.b.c]\n[a]\nb.d.e = 1\n[a.b]", 4, 2,
              "table 'a.b' already defined with dotted keys at line 1");
    CHECK_ERR("a = 1\na.b = 2", 2, 1,
              "cannot use 'a' as a table: it already holds an integer (line 1)");
    CHECK_ERR("a = \"s\"\n[a.b]", 2, 2,
              "cannot use 'a' as a table: it already holds a string (line 1)");
    CHECK_ERR("a = 1\n[a]", 2, 2,
              "cannot define table 'a': the key already holds an integer (line 1)");
    /* inline tables and static arrays are complete once written */
    CHECK_ERR("a = {b = 1}\na.c = 2", 2, 1,
              "cannot extend 'a': it is an inline table (line 1), complete once written");
    CHECK_ERR("a = {b = 1}\n[a.c]", 2, 2, "cannot extend 'a': it is an inline table (line 1)");
    CHECK_ERR("a = {b = 1}\n[a]", 2, 2,
              "cannot define table 'a': the key already holds an inline table (line 1)");
    CHECK_ERR("a = {b = {c = 1}, b.d = 2}", 1, 19, "cannot extend 'b': it is an inline table");
    CHECK_ERR("a = {b = 1, b = 2}", 1, 13, "duplicate key 'b': already defined at line 1");
    CHECK_ERR("a = [1]\n[[a]]", 2, 3, "cannot append to 'a' with [[a]]: it is a static array");
    CHECK_ERR("a = []\n[a.b]", 2, 2,
              "cannot use 'a' as a table: it already holds an array (line 1)");
    CHECK_ERR("[[a]]\n[a]", 2, 2, "cannot define table 'a': it is an array of tables (line 1)");
    CHECK_ERR("[a]\n[[a]]", 2, 3,
              "cannot define array of tables 'a': 'a' is already a table (line 1)");
    CHECK_ERR("a = 1\n[[a]]", 2, 3,
              "cannot define array of tables 'a': the key already holds an integer (line 1)");
    CHECK_ERR("[[t.a]]\n[t]\na.b = 1", 3, 1,
              "cannot add keys to 'a' here: it is an array of tables (line 1)");
    /* strings */
    CHECK_ERR("s = \"\\x\"", 1, 6, "invalid escape: '\\' followed by 'x'");
    CHECK_ERR("s = \"é\\q\"", 1, 7, "invalid escape: '\\' followed by 'q'");
    CHECK_ERR("s = \"x\\ y\"", 1, 7, "invalid escape: '\\' followed by ' '");
    CHECK_ERR("s = \"\"\"x\\ y\"\"\"", 1, 9,
              "invalid escape: a '\\' followed by spaces must end the line");
    CHECK_ERR("s = \"\\uD800\"", 1, 6, "invalid escape '\\uD800': not a unicode scalar value");
    CHECK_ERR("s = \"\\U00110000\"", 1, 6, "invalid escape '\\U00110000': not a unicode");
    CHECK_ERR("s = \"\\u12\"", 1, 6, "invalid escape: '\\u' takes exactly 4 hex digits, found '\"'");
    CHECK_ERR("s = \"\\U1234\"", 1, 6, "invalid escape: '\\U' takes exactly 8 hex digits");
    CHECK_ERR("s = \"\\e\"", 1, 6, "invalid escape: '\\' followed by 'e'");
    CHECK_ERR("s = \"abc", 1, 5, "unterminated string: no closing '\"' before the end of input");
    CHECK_ERR("s = \"abc\\", 1, 9, "unterminated string: input ends after '\\'");
    CHECK_ERR("s = 'abc\nt = 1", 1, 9, "unterminated string: newline before the closing \"'\"");
    CHECK_ERR("s = \"ab\ncd\"", 1, 8, "unterminated string: newline before the closing '\"'");
    CHECK_ERR("\n\ns = \"\"\"abc\"\"", 3, 5, "unterminated string: no closing '\"\"\"'");
    CHECK_ERR("s = '''abc", 1, 5, "unterminated string: no closing \"'''\"");
    CHECK_ERR("s = \"\"\"x\"\"\"\"\"\"", 1, 14, "too many quotes");
    CHECK_ERR("s = \"x\x01\"", 1, 7, "control character 0x01 in a string");
    CHECK_ERR("s = 'x\x7f'", 1, 7, "control character 0x7f in a string");
    CHECK_ERR("s = \"\"\"x\x1b\"\"\"", 1, 9, "control character 0x1b in a string");
    CHECK_ERR("s = \"a\rb\"", 1, 7, "carriage return not followed by a newline in a string");
    CHECK_ERR_N("s = \"a\0b\"", 9, 1, 7, "control character 0x00 in a string");
    CHECK_ERR("\"\"\"k\"\"\" = 1", 1, 1, "a multi-line string cannot be a key");
    /* encoding, comments, line ends */
    CHECK_ERR("a = \"\xff\"", 1, 6, "invalid utf-8 byte 0xff");
    CHECK_ERR("a = 1\n# ok\nb = \"\xc3\x28\"", 3, 6, "invalid utf-8 byte 0xc3");
    CHECK_ERR("a = \"\xed\xa0\x80\"", 1, 6, "invalid utf-8 byte 0xed"); /* a surrogate */
    CHECK_ERR("a = \"\xc0\xaf\"", 1, 6, "invalid utf-8 byte 0xc0");     /* overlong */
    CHECK_ERR("a = \"\xe2\x82\"", 1, 6, "invalid utf-8 byte 0xe2");     /* truncated */
    CHECK_ERR("# bell \x07 here", 1, 8, "control character 0x07 in a comment");
    CHECK_ERR("a = 1 # \x7f", 1, 9, "control character 0x7f in a comment");
    CHECK_ERR("a = 1\rb = 2", 1, 6, "carriage return not followed by a newline");
    CHECK_ERR("\r", 1, 1, "carriage return not followed by a newline");
    /* integers */
    CHECK_ERR("a = 9223372036854775808", 1, 5, "integer '9223372036854775808' out of range");
    CHECK_ERR("a = -9223372036854775809", 1, 5, "integer '-9223372036854775809' out of range");
    CHECK_ERR("a = 99999999999999999999999", 1, 5, "integer '99999999999999999999999' out of");
    CHECK_ERR("a = 0x8000000000000000", 1, 5, "integer '0x8000000000000000' out of range");
    CHECK_ERR("a = 0b1111111111111111111111111111111111111111111111111111111111111111", 1, 5,
              "integer '0b1111111111111111111111111111111111111111111111111111111111...' out");
    CHECK_ERR("a = 012", 1, 5, "invalid number '012': leading zeros are not allowed");
    CHECK_ERR("a = 0_1", 1, 5, "invalid number '0_1': leading zeros are not allowed");
    CHECK_ERR("a = -01", 1, 5, "invalid number '-01': leading zeros");
    CHECK_ERR("a = 1__2", 1, 5, "invalid number '1__2': each '_' must stand between two digits");
    CHECK_ERR("a = 1_", 1, 5, "invalid number '1_': each '_' must stand");
    CHECK_ERR("a = _1", 1, 5, "invalid number '_1'");
    CHECK_ERR("a = 0x_1", 1, 5, "invalid hexadecimal integer '0x_1'");
    CHECK_ERR("a = 0xg", 1, 5, "invalid hexadecimal integer '0xg': expected digits 0-9 a-f");
    CHECK_ERR("a = 0o8", 1, 5, "invalid octal integer '0o8': expected digits 0-7");
    CHECK_ERR("a = 0b2", 1, 5, "invalid binary integer '0b2'");
    CHECK_ERR("a = 0X1", 1, 5, "invalid number '0X1'");
    CHECK_ERR("a = +0x1", 1, 5, "invalid number '+0x1': a hexadecimal integer takes no sign");
    CHECK_ERR("a = 1x", 1, 5, "invalid number '1x'");
    /* floats */
    CHECK_ERR("a = 1.", 1, 5, "invalid float '1.': a '.' must have digits on both sides");
    CHECK_ERR("a = .5", 1, 5, "invalid number '.5'");
    CHECK_ERR("a = 1.e5", 1, 5, "invalid float '1.e5': a '.' must have digits");
    CHECK_ERR("a = 1e", 1, 5, "invalid float '1e': expected digits in the exponent");
    CHECK_ERR("a = 1.5_", 1, 5, "invalid number '1.5_': each '_' must stand");
    CHECK_ERR("a = 1_.5", 1, 5, "invalid number '1_.5': each '_' must stand");
    CHECK_ERR("a = 03.14", 1, 5, "invalid number '03.14': leading zeros");
    CHECK_ERR("a = 1.2.3", 1, 5, "invalid number '1.2.3'");
    CHECK_ERR("a = 1e999", 1, 5, "float '1e999' out of range");
    CHECK_ERR("a = Inf", 1, 5, "invalid value 'Inf': strings must be quoted (\"Inf\")");
    CHECK_ERR("a = infinity", 1, 5, "invalid value 'infinity'");
    /* other values */
    CHECK_ERR("a = hello", 1, 5, "invalid value 'hello': strings must be quoted (\"hello\")");
    CHECK_ERR("a = True", 1, 5, "invalid value 'True'");
    CHECK_ERR("a = 2000-13-01", 1, 5, "invalid date-time '2000-13-01'");
    CHECK_ERR("a = 1979-02-29", 1, 5, "invalid date-time '1979-02-29'");
    CHECK_ERR("a = 1900-02-29", 1, 5, "invalid date-time '1900-02-29'");
    CHECK_ERR("a = 1979-04-31", 1, 5, "invalid date-time '1979-04-31'");
    CHECK_ERR("a = 1979-05-27T24:00:00", 1, 5, "invalid date-time '1979-05-27T24:00:00'");
    CHECK_ERR("a = 1979-05-27T07:32", 1, 5, "invalid date-time '1979-05-27T07:32'");
    CHECK_ERR("a = 1979-05-27T07:32:00+25:00", 1, 5, "invalid date-time");
    CHECK_ERR("a = 1979-05-27T07:32:00.Z", 1, 5, "invalid date-time");
    CHECK_ERR("a = 1979-5-27", 1, 5, "invalid date-time '1979-5-27'");
    CHECK_ERR("a = 12:00", 1, 5, "invalid date-time '12:00'");
    CHECK_ERR("a = 07:32:00Z", 1, 5, "invalid date-time '07:32:00Z'");
    /* structure */
    CHECK_ERR("a =", 1, 4, "missing value: expected a string, number, boolean, date-time, array "
                           "or inline table on the same line, found end of input");
    CHECK_ERR("a =\n1", 1, 4, "missing value");
    CHECK_ERR("a = # c", 1, 5, "missing value");
    CHECK_ERR("a = 1 2", 1, 7, "unexpected '2' after a value: expected a newline or a '#' comment");
    CHECK_ERR("[t] x = 1", 1, 5, "unexpected 'x' after a table header");
    CHECK_ERR("a 1", 1, 3, "expected '=' after key 'a', found '1'");
    CHECK_ERR("a.b\n", 1, 4, "expected '=' after key 'a.b', found end of line");
    CHECK_ERR("= 1", 1, 1, "expected a key, found '='");
    CHECK_ERR("a. = 1", 1, 4, "expected a key, found '='");
    CHECK_ERR("é = 1", 1, 1, "expected a key, found 'é' (U+00E9)");
    CHECK_ERR("a b = 1", 1, 3, "expected '=' after key 'a', found 'b'");
    CHECK_ERR("[a", 1, 3, "expected ']' to close the header of 'a', found end of input");
    CHECK_ERR("[]", 1, 2, "expected a key, found ']'");
    CHECK_ERR("[[a]", 1, 5, "expected ']]' to close the header of 'a', found end of input");
    CHECK_ERR("[[a] ]", 1, 5, "expected ']]' to close the header of 'a', found ' '");
    CHECK_ERR("[ [a] ]", 1, 3, "expected a key, found '['");
    CHECK_ERR("a = [1 2]", 1, 8, "expected ',' or ']' in array, found '2'");
    CHECK_ERR("a = [1,", 1, 5, "unterminated array");
    CHECK_ERR("a = [,]", 1, 6, "expected a value, found ','");
    CHECK_ERR("a = [1,,2]", 1, 8, "expected a value, found ','");
    CHECK_ERR("a = {b = 1,}", 1, 12, "trailing comma in inline table");
    CHECK_ERR("a = {b = 1\n}", 1, 11, "unterminated inline table");
    CHECK_ERR("a = {\nb = 1}", 1, 6, "unterminated inline table");
    CHECK_ERR("a = {b = 1 c = 2}", 1, 12, "expected ',' or '}' in inline table, found 'c'");
    CHECK_ERR("a = {,}", 1, 6, "expected a key, found ','");
    CHECK_ERR("a = }", 1, 5, "expected a value, found '}'");
}

static void test_err_optional_and_oom(void)
{
    qr_val v;
    /* err may be NULL */
    CHECK(qr_toml_read(&A, "a = ", 4, &v, NULL) == QR_EINVAL);
    CHECK(qr_toml_read(&A, "a = 1", 5, &v, NULL) == QR_OK);
    /* a small arena cap: QR_ENOMEM with a message, never a crash */
    qr_buf big;
    qr_buf_init(&big);
    for (int i = 0; i < 2000; i++)
        qr_buf_printf(&big, "[t%d]\nkey_%d = \"value number %d\"\n", i, i, i);
    for (size_t cap = 1024; cap <= (1u << 20); cap *= 2) {
        qr_arena small;
        qr_arena_init(&small, cap);
        qr_read_error e;
        int rc = qr_toml_read(&small, big.p, big.len, &v, &e);
        CHECK(rc == QR_ENOMEM || rc == QR_OK);
        if (rc == QR_ENOMEM)
            CHECK_STR(e.msg, "out of memory while reading toml");
        qr_arena_release(&small);
    }
    qr_arena unc;
    qr_arena_init(&unc, 0);
    CHECK(qr_toml_read(&unc, big.p, big.len, &v, NULL) == QR_OK);
    CHECK(qr_map_len(v) == 2000);
    qr_arena_release(&unc);
    qr_buf_release(&big);
}

/* Large documents: many keys in one table, many array-of-table elements, long strings;
 * with a per-key hash index these read in time linear in their size. */
static void test_large(void)
{
    qr_buf b;
    qr_buf_init(&b);
    for (int i = 0; i < 20000; i++)
        qr_buf_printf(&b, "k%d = %d\n", i, i);
    for (int i = 0; i < 20000; i++)
        qr_buf_printf(&b, "[[arr]]\nn = %d\n[arr.sub]\nx = %d\n", i, i);
    qr_val v = read_ok(b.p);
    CHECK(qr_map_len(v) == 20001);
    CHECK(get(v, "k19999").i == 19999);
    qr_val arr = get(v, "arr");
    CHECK(arr.t == QR_T_VEC && qr_vec_len(arr) == 20000);
    if (arr.t == QR_T_VEC)
        CHECK(get(qr_vec_at(arr, 12345), "sub/x").i == 12345);
    /* a duplicate at the very end is still found */
    qr_buf_reset(&b);
    for (int i = 0; i < 20000; i++)
        qr_buf_printf(&b, "k%d = %d\n", i, i);
    qr_buf_puts(&b, "k7 = 0\n");
    check_err_at(__FILE__, __LINE__, b.p, b.len, QR_EINVAL, 20001, 1,
                 "duplicate key 'k7': already defined at line 8");
    qr_buf_release(&b);
}

/* Whether msg holds any 3 characters in a row of secret. */
static bool quotes_secret(const char *msg, const char *secret)
{
    for (size_t i = 0; secret[i] && secret[i + 1] && secret[i + 2]; i++) {
        char piece[4] = {secret[i], secret[i + 1], secret[i + 2], 0};
        if (strstr(msg, piece))
            return true;
    }
    return false;
}

/* QR_TOML_NO_TEXT: every message keeps its position and says what was expected, but no
 * text of the document comes back (a settings file may be something else: /etc/shadow
 * through a link). Each case quotes text without the flag, so the check can fail. */
static void test_no_text(void)
{
    static const char *const docs[] = {
        "SECRETWORD:$y$j9T:19000:0:99999:7:::\n",
        "a = SECRETWORD\n",
        "SECRETWORD = 1\nSECRETWORD = 2\n",
        "[SECRETWORD]\n[SECRETWORD]\n",
        "a = \"\\qSECRETWORD\"\n",
        "a = 12SECRETWORD\n",
        "a = 1979-05-27TSECRETWORD\n",
        "a = [1 SECRETWORD]\n",
        "a = { x = 1 SECRETWORD }\n",
        "SECRETWORD.x = 1\n[SECRETWORD]\n",
    };
    for (size_t i = 0; i < sizeof docs / sizeof docs[0]; i++) {
        qr_val v;
        qr_read_error e, q;
        int rc = qr_toml_read(&A, docs[i], strlen(docs[i]), &v, &e);
        int rq = qr_toml_read_ex(&A, docs[i], strlen(docs[i]), QR_TOML_NO_TEXT, &v, &q);
        CHECK(rc == QR_EINVAL && rq == QR_EINVAL);
        CHECK(e.line == q.line && e.col == q.col);
        /* the plain message quotes text (all of the word, or its first letter); the other
         * none of it */
        if (!strcmp(e.msg, q.msg) || quotes_secret(q.msg, "SECRETWORD") ||
            strstr(q.msg, "'S'")) {
            fprintf(stderr, "case %zu:\n  plain:   %s\n  no text: %s\n", i, e.msg, q.msg);
            check_failures++;
        }
    }
    /* punctuation is still named, letters are not; invalid UTF-8 gives no byte */
    qr_val v;
    qr_read_error q;
    CHECK(qr_toml_read_ex(&A, "root:x", 6, QR_TOML_NO_TEXT, &v, &q) == QR_EINVAL);
    CHECK_STR(q.msg, "expected '=' after key '...', found ':'");
    CHECK(qr_toml_read_ex(&A, "a = [1 x]", 9, QR_TOML_NO_TEXT, &v, &q) == QR_EINVAL);
    CHECK(strstr(q.msg, "found a letter or digit") != NULL);
    CHECK(qr_toml_read_ex(&A, "a = \"\xff\"", 7, QR_TOML_NO_TEXT, &v, &q) == QR_EINVAL);
    CHECK_STR(q.msg, "invalid utf-8: a toml document must be utf-8 text");
}

int main(void)
{
    qr_arena_init(&A, 0);
    test_no_text();
    test_quarry_files();
    test_scalars();
    test_strings();
    test_keys();
    test_tables();
    test_arrays_of_tables();
    test_inline_and_arrays();
    test_depth();
    test_errors();
    test_err_optional_and_oom();
    test_large();
    qr_arena_release(&A);
    CHECK_DONE();
}

#!/bin/sh
# make_fixture.sh DIR NOW_EPOCH -- build a deterministic git repository in DIR.
# All dates are computed from NOW_EPOCH (UTC, +0000). Same inputs -> same hashes.
set -eu
DIR=${1:?usage: make_fixture.sh DIR NOW_EPOCH}
NOW=${2:?usage: make_fixture.sh DIR NOW_EPOCH}
mkdir -p "$DIR"
export GIT_CONFIG_NOSYSTEM=1 HOME="$DIR/.home-unused" TZ=UTC LC_ALL=C
git -C "$DIR" init -q -b main
python3 - "$NOW" > "$DIR/.fi" <<'PY'
import sys, random
NOW = int(sys.argv[1])
R = random.Random(20260618)
DAY = 86400
START = NOW - 3*365*DAY - 12*DAY
END = NOW - 3*DAY - 5*3600          # last commit a few days before NOW

# name, emails (canonical first), weight, area prefixes, active fraction range
AUTHORS = [
 ("Alice Martin",   ["alice@example.com", "amartin@corp.example"], 15, ["src/", "Makefile"], (0.0, 1.0)),
 ("Alice Chen",     ["alice.chen@example.org"], 5, ["docs/", "README.md"], (0.35, 1.0)),
 ("Bob Kowalski",   ["bob@example.com"], 11, ["lib/"], (0.0, 0.8)),
 ("Bob Lee",        ["boblee@example.org"], 4, ["tests/"], (0.55, 1.0)),
 ("Carlos Diaz",    ["carlos@example.net", "cdiaz@users.noreply.github.com"], 13, ["src/net/"], (0.1, 1.0)),
 ("Dana Whitfield", ["dana@example.com"], 9, ["src/net/", "src/"], (0.0, 0.6)),
 ("Erik Lund",      ["erik.lund@example.se"], 7, ["lib/", "tests/"], (0.2, 1.0)),
 ("Fatima Haddad",  ["fatima@example.com"], 6, ["docs/", "src/"], (0.4, 1.0)),
 ("George Park",    ["gpark@example.com"], 3, ["Makefile", "tests/"], (0.0, 1.0)),
 ("Hana Sato",      ["hana@example.jp", "hsato@corp.example"], 10, ["src/"], (0.3, 1.0)),
 ("Ivan Petrov",    ["ivan@example.ru"], 8, ["tests/", "lib/"], (0.0, 1.0)),
 ("Julia Novak",    ["julia@example.com"], 6, [""], (0.6, 1.0)),
]
ALTNAME = {"amartin@corp.example": "alice", "cdiaz@users.noreply.github.com": "Carlos D.",
           "hsato@corp.example": "Hana Sato"}

C = {}
C["src/util.h"] = """#ifndef UTIL_H
#define UTIL_H
#include <stddef.h>

#define MAX_LINE 1024

void log_msg(const char *msg);
void die(const char *msg);
void *xmalloc(size_t n);
char *xstrdup(const char *s);
char *trim(char *s);

#endif
"""
C["src/util.c"] = """#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include "util.h"

static int str_is_blank(const char *s)
{
	while (*s == ' ' || *s == '\\t')
		s++;
	return *s == '\\0';
}

void log_msg(const char *msg)
{
	fprintf(stderr, "%s\\n", msg);
}

void die(const char *msg)
{
	log_msg(msg);
	exit(1);
}

void *xmalloc(size_t n)
{
	void *p = malloc(n);
	if (!p)
		die("out of memory");
	return p;
}

char *xstrdup(const char *s)
{
	size_t n = strlen(s) + 1;
	char *d = xmalloc(n);
	memcpy(d, s, n);
	return d;
}

char *trim(char *s)
{
	char *end;
	if (str_is_blank(s))
		return s;
	while (*s == ' ')
		s++;
	end = s + strlen(s);
	while (end > s && end[-1] == ' ')
		*--end = '\\0';
	return s;
}
"""
C["src/main.c@0"] = """#include <stdio.h>
#include "util.h"

int main(int argc, char **argv)
{
	(void)argc;
	(void)argv;
	log_msg("starting");
	return 0;
}
"""
C["src/main.c"] = """#include <stdio.h>
#include "util.h"
#include "parser.h"
#include "net/http.h"

int main(int argc, char **argv)
{
	int port = parse_args(argc, argv);
	config_load("quarry.conf");
	log_msg("starting");
	return http_serve(port);
}
"""
C["src/parser.h"] = """#ifndef PARSER_H
#define PARSER_H
#include "../lib/strbuf.h"

struct kv {
	char *key;
	char *value;
};

int parse_args(int argc, char **argv);
int parse_line(const char *line, struct kv *out);
int config_load(const char *path);
void parser_dump(const struct kv *kv);

#endif
"""
C["src/parser.c"] = """#include <stdio.h>
#include <string.h>
#include "util.h"
#include "parser.h"

static int parse_flag(const char *arg)
{
	if (strcmp(arg, "-v") == 0)
		return 1;
	return 0;
}

int parse_args(int argc, char **argv)
{
	int i, port = 8080;
	for (i = 1; i < argc; i++) {
		if (parse_flag(argv[i]))
			continue;
		xstrdup(argv[i]);
	}
	return port;
}

int parse_line(const char *line, struct kv *out)
{
	struct strbuf sb;
	char *eq;
	strbuf_init(&sb);
	strbuf_append(&sb, line);
	eq = strchr(sb.buf, '=');
	if (!eq)
		return -1;
	*eq = '\\0';
	out->key = trim(sb.buf);
	out->value = trim(eq + 1);
	return 0;
}

int config_load(const char *path)
{
	char line[MAX_LINE];
	struct kv kv;
	FILE *f = fopen(path, "r");
	if (!f)
		die("cannot open config");
	while (fgets(line, sizeof line, f))
		parse_line(line, &kv);
	fclose(f);
	return 0;
}

void parser_dump(const struct kv *kv)
{
	printf("%s=%s\\n", kv->key, kv->value);
}
"""
C["lib/strbuf.h"] = """#ifndef STRBUF_H
#define STRBUF_H
#include <stddef.h>

struct strbuf {
	char *buf;
	size_t len;
	size_t alloc;
};

void strbuf_init(struct strbuf *sb);
void strbuf_grow(struct strbuf *sb, size_t extra);
void strbuf_append(struct strbuf *sb, const char *s);
void strbuf_reset(struct strbuf *sb);
void strbuf_free(struct strbuf *sb);

#endif
"""
C["lib/strbuf.c"] = """#include <stdlib.h>
#include <string.h>
#include "strbuf.h"

void strbuf_init(struct strbuf *sb)
{
	sb->buf = NULL;
	sb->len = 0;
	sb->alloc = 0;
	strbuf_grow(sb, 16);
}

void strbuf_grow(struct strbuf *sb, size_t extra)
{
	if (sb->len + extra + 1 <= sb->alloc)
		return;
	sb->alloc = (sb->len + extra + 1) * 2;
	sb->buf = realloc(sb->buf, sb->alloc);
	sb->buf[sb->len] = '\\0';
}

void strbuf_append(struct strbuf *sb, const char *s)
{
	size_t n = strlen(s);
	strbuf_grow(sb, n);
	memcpy(sb->buf + sb->len, s, n + 1);
	sb->len += n;
}

void strbuf_reset(struct strbuf *sb)
{
	sb->len = 0;
	if (sb->buf)
		sb->buf[0] = '\\0';
}

void strbuf_free(struct strbuf *sb)
{
	free(sb->buf);
	sb->buf = NULL;
	sb->len = sb->alloc = 0;
}
"""
C["lib/hash.h"] = """#ifndef HASH_H
#define HASH_H

#define HASH_INITIAL_SIZE 64

struct hash_entry {
	char *key;
	void *value;
	struct hash_entry *next;
};

struct hash_table {
	struct hash_entry **buckets;
	unsigned size;
	unsigned count;
};

typedef struct hash_table hash_table_t;

unsigned long hash_str(const char *s);
hash_table_t *hash_new(void);
int hash_put(hash_table_t *h, const char *key, void *value);
void *hash_get(hash_table_t *h, const char *key);
void hash_free(hash_table_t *h);

#endif
"""
C["lib/hash.c"] = """#include <stdlib.h>
#include <string.h>
#include "hash.h"
#include "strbuf.h"

unsigned long hash_str(const char *s)
{
	unsigned long h = 5381;
	while (*s)
		h = h * 33 + (unsigned char)*s++;
	return h;
}

hash_table_t *hash_new(void)
{
	hash_table_t *h = calloc(1, sizeof *h);
	h->size = HASH_INITIAL_SIZE;
	h->buckets = calloc(h->size, sizeof *h->buckets);
	return h;
}

static void hash_resize(hash_table_t *h)
{
	unsigned i, nsize = h->size * 2;
	struct hash_entry **nb = calloc(nsize, sizeof *nb);
	for (i = 0; i < h->size; i++) {
		struct hash_entry *e = h->buckets[i], *next;
		for (; e; e = next) {
			unsigned long k = hash_str(e->key) % nsize;
			next = e->next;
			e->next = nb[k];
			nb[k] = e;
		}
	}
	free(h->buckets);
	h->buckets = nb;
	h->size = nsize;
}

int hash_put(hash_table_t *h, const char *key, void *value)
{
	struct hash_entry *e;
	unsigned long k;
	if (h->count * 2 > h->size)
		hash_resize(h);
	k = hash_str(key) % h->size;
	e = malloc(sizeof *e);
	e->key = strdup(key);
	e->value = value;
	e->next = h->buckets[k];
	h->buckets[k] = e;
	h->count++;
	return 0;
}

void *hash_get(hash_table_t *h, const char *key)
{
	struct hash_entry *e = h->buckets[hash_str(key) % h->size];
	for (; e; e = e->next)
		if (strcmp(e->key, key) == 0)
			return e->value;
	return NULL;
}

void hash_free(hash_table_t *h)
{
	unsigned i;
	for (i = 0; i < h->size; i++) {
		struct hash_entry *e = h->buckets[i], *next;
		for (; e; e = next) {
			next = e->next;
			free(e->key);
			free(e);
		}
	}
	free(h->buckets);
	free(h);
}
"""
SOCK_H = """#ifndef SOCKET_H
#define SOCKET_H
#include "../../lib/strbuf.h"

int sock_open(int port);
int sock_read(int fd, struct strbuf *sb);
void sock_close(int fd);

#endif
"""
SOCK_C = """#include <unistd.h>
#include "../util.h"
#include "%s"

int sock_open(int port)
{
	if (port <= 0)
		die("bad port");
	log_msg("listening");
	return 3;
}

int sock_read(int fd, struct strbuf *sb)
{
	char buf[256];
	ssize_t n = read(fd, buf, sizeof buf - 1);
	if (n <= 0)
		return -1;
	buf[n] = '\\0';
	strbuf_append(sb, buf);
	return (int)n;
}

void sock_close(int fd)
{
	close(fd);
}
"""
C["src/net/conn.h"] = SOCK_H.replace("SOCKET_H", "CONN_H")
C["src/net/conn.c"] = SOCK_C % "conn.h"
C["src/net/socket.h"] = SOCK_H
C["src/net/socket.c"] = SOCK_C % "socket.h"
C["src/net/http.h"] = """#ifndef HTTP_H
#define HTTP_H

#define HTTP_OK 200
#define HTTP_NOT_FOUND 404

struct http_request {
	char method[8];
	char path[256];
};

int http_serve(int port);
int http_handle(int fd);
int http_parse_request(const char *line, struct http_request *req);
void http_respond(int fd, int status);

#endif
"""
C["src/net/http.c"] = """#include <stdio.h>
#include <string.h>
#include "../util.h"
#include "../parser.h"
#include "socket.h"
#include "http.h"

static const char *http_status_text(int status)
{
	return status == HTTP_OK ? "OK" : "Not Found";
}

int http_parse_request(const char *line, struct http_request *req)
{
	struct kv kv;
	if (sscanf(line, "%7s %255s", req->method, req->path) != 2)
		return -1;
	return parse_line(line, &kv);
}

void http_respond(int fd, int status)
{
	char msg[64];
	snprintf(msg, sizeof msg, "%d %s", status, http_status_text(status));
	log_msg(msg);
	(void)fd;
}

int http_handle(int fd)
{
	struct strbuf sb;
	struct http_request req;
	strbuf_init(&sb);
	if (sock_read(fd, &sb) < 0)
		return -1;
	if (http_parse_request(sb.buf, &req) < 0)
		http_respond(fd, HTTP_NOT_FOUND);
	else
		http_respond(fd, HTTP_OK);
	strbuf_free(&sb);
	return 0;
}

int http_serve(int port)
{
	int fd = sock_open(port);
	http_handle(fd);
	sock_close(fd);
	return 0;
}

int http_legacy_redirect(int fd)
{
	http_respond(fd, 301);
	return 0;
}
"""
C["src/legacy.c"] = """#include "util.h"

int legacy_init(void)
{
	log_msg("legacy mode");
	return 0;
}
"""
C["tests/old_test.c"] = """#include <assert.h>

int main(void)
{
	assert(1 + 1 == 2);
	return 0;
}
"""
C["tests/test_parser.c"] = """#include <assert.h>
#include "../src/parser.h"

static void test_parse_line(void)
{
	struct kv kv;
	assert(parse_line("a = b", &kv) == 0);
}

static void test_parse_args(void)
{
	char *argv[] = { "prog", "-v", NULL };
	assert(parse_args(2, argv) == 8080);
}

int main(void)
{
	test_parse_line();
	test_parse_args();
	return 0;
}
"""
C["tests/test_hash.c"] = """#include <assert.h>
#include "../lib/hash.h"

static void test_put_get(void)
{
	int v = 42;
	hash_table_t *h = hash_new();
	hash_put(h, "answer", &v);
	assert(hash_get(h, "answer") == &v);
	hash_free(h);
}

int main(void)
{
	test_put_get();
	return 0;
}
"""
C["Makefile"] = """CC ?= cc
CFLAGS ?= -O2 -Wall
SRC = src/main.c src/util.c src/parser.c src/net/socket.c src/net/http.c lib/strbuf.c lib/hash.c

all: quarryd

quarryd: $(SRC)
	$(CC) $(CFLAGS) -o $@ $(SRC)

test: tests/test_parser tests/test_hash
	./tests/test_parser && ./tests/test_hash

tests/test_parser: tests/test_parser.c src/parser.c src/util.c lib/strbuf.c
	$(CC) $(CFLAGS) -o $@ $^

tests/test_hash: tests/test_hash.c lib/hash.c lib/strbuf.c
	$(CC) $(CFLAGS) -o $@ $^

clean:
	rm -f quarryd tests/test_parser tests/test_hash

.PHONY: all test clean
"""
C["README.md"] = "# quarryd\n\nA tiny HTTP configuration daemon used as a test fixture.\n"
C["docs/intro.md"] = "# Introduction\n\nquarryd serves configuration over HTTP.\n"
C["docs/TODO.txt"] = "TODO\n====\n"
C["docs/design.md"] = "# Design\n\nThe daemon is split into a parser, a network layer and a small library.\n"
C["CHANGELOG.md"] = "# Changelog\n"
C["docs/guide.md"] = C["docs/intro.md"]
C[".mailmap"] = """Alice Martin <alice@example.com> alice <amartin@corp.example>
Alice Martin <alice@example.com> <amartin@corp.example>
Carlos Diaz <carlos@example.net> Carlos D. <cdiaz@users.noreply.github.com>
Carlos Diaz <carlos@example.net> <cdiaz@users.noreply.github.com>
Hana Sato <hana@example.jp> <hsato@corp.example>
"""

# ---------------------------------------------------------------- timeline
N = 790
times = sorted(R.randint(START, END - 3600) for _ in range(N - 1)) + [END]
# strictly increasing
for i in range(1, N):
    if times[i] <= times[i-1]:
        times[i] = times[i-1] + 97

# structural events by mainline index -> list of (op, args)
EV = {
 0:   ("create", ["Makefile", "README.md", "src/main.c@0", "src/util.c", "src/util.h"], 0, "Initial commit"),
 2:   ("create", [".mailmap"], 0, "Add .mailmap"),
 6:   ("create", ["src/parser.c", "src/parser.h"], 0, "Add config parser"),
 14:  ("create", ["lib/strbuf.c", "lib/strbuf.h"], 2, "Add strbuf library"),
 25:  ("create", ["src/net/conn.c", "src/net/conn.h"], 5, "Add connection layer"),
 31:  ("create", ["src/legacy.c"], 0, "Add legacy compatibility shim"),
 38:  ("create", ["tests/old_test.c"], 10, "Add first smoke test"),
 44:  ("create", ["docs/intro.md", "docs/TODO.txt"], 0, "Add docs skeleton"),
 70:  ("create", ["lib/hash.c", "lib/hash.h"], 2, "Add hash table"),
 95:  ("create", ["tests/test_hash.c"], 10, "Add hash table tests"),
 120: ("create", ["tests/test_parser.c"], 10, "Add parser tests"),
 150: ("create", ["CHANGELOG.md"], 0, "add changelog"),
 205: ("rename", [("src/net/conn.c", "src/net/socket.c"), ("src/net/conn.h", "src/net/socket.h")], 4, "Rename conn to socket"),
 232: ("create", ["src/net/http.c", "src/net/http.h", "src/main.c"], 4, "Add HTTP server on top of sockets"),
 260: ("create", ["docs/design.md"], 5, "Document the overall design"),
 300: ("rename", [("docs/intro.md", "docs/guide.md")], 1, "Rename intro to guide"),
 352: ("delete", ["src/legacy.c"], 9, "Remove legacy compatibility shim"),
 401: ("delete", ["tests/old_test.c"], 3, "Drop obsolete smoke test"),
 455: ("big",    ["tests/vectors.txt"], 10, "Import test vectors for the parser"),
 512: ("delete", ["docs/TODO.txt"], 7, "Delete stale TODO list"),
}
TAGS = {248: "v1.0", 420: "v1.1", 655: "v2.0"}
# branches: (fork index, merge index, branch name, author idx, files, nbranch commits, merge subject)
BRANCHES = [
 (100, 112, "feature/hash-resize", 2, ["lib/hash.c"], 3, "Merge branch 'feature/hash-resize'"),
 (180, 196, "feature/net-timeouts", 4, ["src/net/conn.c"], 4, "Merge pull request #212 from carlos/net-timeouts"),
 (270, 281, "docs/design", 7, ["docs/design.md"], 2, "Merge branch 'docs/design'"),
 (330, 347, "fix/parser-crash", 9, ["src/parser.c"], 3, "Merge branch 'fix/parser-crash'"),
 (470, 488, "feature/http-keepalive", 4, ["src/net/http.c"], 4, "Merge pull request #318 from carlos/http-keepalive"),
 (560, 571, "tests/more-hash", 6, ["tests/test_hash.c"], 2, "Merge branch 'tests/more-hash'"),
 (690, 702, "feature/strbuf-reset", 2, ["lib/strbuf.c"], 3, "Merge branch 'feature/strbuf-reset' into main"),
 (760, 774, "fix/socket-leak", 5, ["src/net/socket.c"], 2, "Merge branch 'fix/socket-leak'"),
]
UNMERGED = (780, "feature/ipv6", 4, ["src/net/socket.c"], 2)

VERBS = ["Fix", "Add", "Update", "Refactor", "Improve", "Remove", "Clean up", "Simplify", "Document", "Tweak", "Handle", "Rework", "Speed up", "Guard"]
THINGS = {"src/": ["config reload", "argument parsing", "logging", "error paths", "startup"],
          "src/net/": ["socket timeouts", "request parsing", "keepalive", "error codes", "buffer sizes"],
          "lib/": ["strbuf growth", "hash collisions", "allocation checks", "bucket sizing"],
          "tests/": ["hash tests", "parser tests", "test vectors", "assertions"],
          "docs/": ["the guide", "design notes", "examples", "wording"],
          "": ["build", "readme", "makefile flags", "changelog"]}
LOWER = ["fix typo", "wip", "tidy whitespace", "address review comments", "minor cleanups", "fix build", "oops, forgot a file", "small fixes"]

files = {}   # path -> (code, [notes])
def code_of(k): return C[k]
def add_file(k):
    p = k.split("@")[0]
    files[p] = (C[k], files.get(p, (None, []))[1])
counter = [0]
def note_line(p):
    counter[0] += 1
    word = R.choice(["adjust", "tighten", "clarify", "reorder", "retune", "revisit", "note", "relax"])
    obj = R.choice(["bounds", "limits", "comments", "sizes", "ordering", "defaults", "messages", "flags"])
    return "n%04d %s %s" % (counter[0], word, obj)
def render(p):
    code, notes = files[p]
    if not notes: return code
    if p.endswith((".c", ".h")):
        return code + "\n/*\n" + "".join(" * %s\n" % n for n in notes) + " */\n"
    if p == "Makefile":
        return code + "\n" + "".join("# %s\n" % n for n in notes)
    return code + "\n" + "".join("- %s\n" % n for n in notes)

def touch(p, nadd, ndel):
    code, notes = files[p]
    notes = list(notes)
    ndel = min(ndel, len(notes))
    del notes[:ndel]
    notes += [note_line(p) for _ in range(nadd)]
    files[p] = (code, notes)

out = []
def w(s): out.append(s)
def blob_data(text):
    b = text.encode()
    return "data %d\n" % len(b) + text

mark = [0]
def new_mark():
    mark[0] += 1; return mark[0]

def who(ai):
    name, emails = AUTHORS[ai][0], AUTHORS[ai][1]
    if len(emails) > 1 and R.random() < 0.3:
        e = emails[1]; return ALTNAME.get(e, name), e
    return name, emails[0]

def commit(ref, ai, t, subject, ops, parents, body=""):
    m = new_mark()
    name, email = who(ai)
    msg = subject + ("\n\n" + body if body else "") + "\n"
    w("commit %s\nmark :%d\n" % (ref, m))
    w("author %s <%s> %d +0000\ncommitter %s <%s> %d +0000\n" % (name, email, t, name, email, t))
    w(blob_data(msg))
    if parents:
        w("from :%d\n" % parents[0])
        for p in parents[1:]:
            w("merge :%d\n" % p)
    for op in ops:
        if op[0] == "M":
            w("M 100644 inline %s\n" % op[1]); w(blob_data(render(op[1])) + "\n")
        else:
            w("D %s\n" % op[1])
    return m

def pick_author(frac):
    cands = [(i, a[2]) for i, a in enumerate(AUTHORS) if a[4][0] <= frac <= a[4][1]]
    tot = sum(c[1] for c in cands); x = R.uniform(0, tot)
    for i, wt in cands:
        x -= wt
        if x <= 0: return i
    return cands[-1][0]

def pick_file(ai, locked):
    areas = AUTHORS[ai][3]
    pool = [p for p in sorted(files) if p not in locked and p != "tests/vectors.txt"]
    pref = [p for p in pool if any(p.startswith(a) for a in areas)]
    if pref and R.random() < 0.8: return R.choice(pref)
    return R.choice(pool)

def subject_for(p, frac):
    area = "src/net/" if p.startswith("src/net/") else next((a for a in ["src/", "lib/", "tests/", "docs/"] if p.startswith(a)), "")
    r = R.random()
    if r < 0.08: return R.choice(LOWER)
    s = "%s %s" % (R.choice(VERBS), R.choice(THINGS[area]))
    if R.random() < 0.5: s += " in " + p.rsplit("/", 1)[-1]
    if R.random() < 0.15: s = s[0].lower() + s[1:]
    if R.random() < 0.2: s += " (#%d)" % R.randint(10, 400)
    return s

branch_at = {b[0]: b for b in BRANCHES}
merge_at = {b[1]: b for b in BRANCHES}
locked = set()
pending = {}   # branch name -> (fork mark, fork time)
head = None
for i in range(N):
    t = times[i]; frac = (t - START) / (END - START)
    if i in merge_at:
        fi, mi, bname, bai, bfiles, nb, msub = merge_at[i]
        fmark, ftime = pending.pop(bname)
        # branch commits, in its own namespace of content
        saved = {p: files[p] for p in bfiles}
        bt = sorted(R.randint(ftime + 600, t - 600) for _ in range(nb))
        bm = fmark
        for k in range(nb):
            for p in bfiles: touch(p, R.randint(2, 9), R.randint(0, 2))
            bm = commit("refs/heads/" + bname, bai, bt[k], subject_for(bfiles[0], frac), [("M", p) for p in bfiles], [bm])
        head = commit("refs/heads/main", bai, t, msub, [("M", p) for p in bfiles], [head, bm])
        for p in bfiles: locked.discard(p)
    elif i in EV:
        op, args, ai, subj = EV[i]
        ops = []
        if op == "create":
            for k in args:
                add_file(k); touch(k.split("@")[0], 0, 0); ops.append(("M", k.split("@")[0]))
        elif op == "rename":
            for a, b in args:
                code, notes = files.pop(a)
                files[b] = (C[b], notes); ops += [("D", a), ("M", b)]
            if any(b == "src/net/socket.c" for a, b in args):
                pass
        elif op == "delete":
            for p in args: files.pop(p); ops.append(("D", p))
        elif op == "big":
            p = args[0]; files[p] = ("", ["vector %04d: %08x" % (j, (j * 2654435761) & 0xffffffff) for j in range(640)])
            ops.append(("M", p))
        head = commit("refs/heads/main", ai, t, subj, ops, [head] if head else [])
    else:
        ai = pick_author(frac)
        nf = 1 if R.random() < 0.7 else R.randint(2, 3)
        ps = []
        for _ in range(nf):
            p = pick_file(ai, locked)
            if p not in ps: ps.append(p)
        for p in ps: touch(p, R.randint(1, 14), R.randint(0, 6) if R.random() < 0.4 else 0)
        if "CHANGELOG.md" in files and R.random() < 0.05 and "CHANGELOG.md" not in ps:
            touch("CHANGELOG.md", 1, 0); ps.append("CHANGELOG.md")
        head = commit("refs/heads/main", ai, t, subject_for(ps[0], frac), [("M", p) for p in ps], [head])
    if i in branch_at:
        b = branch_at[i]; pending[b[2]] = (head, t)
        for p in b[4]: locked.add(p)
        # the file may be renamed while locked: not in our plan
    if i in TAGS:
        w("tag %s\nfrom :%d\ntagger Release Bot <release@example.com> %d +0000\n" % (TAGS[i], head, t + 60))
        w(blob_data("Release %s\n" % TAGS[i]))
    if i == UNMERGED[0]:
        fi, bname, bai, bfiles, nb = UNMERGED
        bm = head
        saved = {p: files[p] for p in bfiles}
        for k in range(nb):
            for p in bfiles: touch(p, 3, 0)
            bm = commit("refs/heads/" + bname, bai, t + 3600 * (k + 1), "Add IPv6 listening (WIP)", [("M", p) for p in bfiles], [bm])
        for p in bfiles: files[p] = saved[p]

# .mailmap committed as its own commit? No: part of last structural state, added at index 1
sys.stdout.write("".join(out))
PY
git -C "$DIR" fast-import --quiet < "$DIR/.fi"
rm -f "$DIR/.fi"
git -C "$DIR" checkout -q -f main

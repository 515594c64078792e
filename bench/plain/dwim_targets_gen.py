#!/usr/bin/env python3
"""Writes bench/plain/dwim_targets.jsonl: the DWIM parser's own category inputs (issue 27),
written before the parser was changed for them. Every third item of each category is set
aside ("aside") and only scored at the end; the rest is "dev"."""
import json, os

V = lambda *v: list(v)
items = []
def add(cat, text, **exp):
    items.append({"cat": cat, "text": text, "expect": exp})

# 1. exact verbs and aliases, bare or with targets: verb right and confidence >= 0.85
exact = [
 ("skeleton lib/hash.c","skeleton"),("skel src/util.c","skeleton"),("outline src/parser.c","skeleton"),
 ("structure lib","skeleton"),("symbols lib/strbuf.h","skeleton"),("overview src/net","skeleton"),
 ("tree src/net","skeleton"),("expand hash_put","expand"),("body trim","expand"),
 ("source xstrdup","expand"),("impl hash_new","expand"),("read lib/hash.h","read"),
 ("cat src/util.h","read"),("view src/parser.c","read"),("open lib/strbuf.c","read"),
 ("lines src/main.c:1-4","read"),("grep hash_","grep"),("search strbuf_grow","grep"),
 ("find log_msg","grep"),("locate die","grep"),("rg 'TODO'","grep"),("ag xmalloc","grep"),
 ("validate","validate"),("check","validate"),("lint","validate"),("build","validate"),
 ("compile","validate"),("verify","validate"),("done","done"),("finished","done"),
 ("complete","done"),("finish","done"),("stop","done"),("callers hash_get","callers"),
 ("who_calls trim","callers"),("callers_of die","callers"),("called_by xmalloc","callers"),
 ("callees parse_args","callees"),("calls http_handle","callees"),("deps src/parser.c","deps"),
 ("includes lib/hash.c","deps"),("dependencies src/main.c","deps"),("imports src/util.c","deps"),
 ("references hash_free","references"),("refs strbuf_init","references"),
 ("usages sock_open","references"),("uses log_msg","references"),("definition hash_str","definition"),
 ("def sock_read","definition"),("goto parse_line","definition"),("declaration hash_put","definition"),
 ("fix src/util.c","fix"),("plan: add a cache","plan"),("note: parser is slow","note"),
 ("remember: hash uses chaining","note"),("Skeleton lib/hash.c","skeleton"),("EXPAND trim","expand"),
 ("Callees main","callees"),("GREP 'die'","grep"),("Refs hash_get","references"),
 ("skeleton","skeleton"),("outline","skeleton"),("expand","expand"),("callers","callers"),
 ("callees","callees"),("references","references"),("definition","definition"),("deps","deps"),
 ("read","read"),("grep","grep"),("tree","skeleton"),("SKELETON","skeleton"),("Outline","skeleton"),
 ("get_commits","get_commits"),("get_author_stats","get_author_stats"),("get_file_stats limit=3","get_file_stats"),
 ("get_file_history path=lib/hash.c","get_file_history"),("query_codebase query_type=find_function name=trim","query_codebase"),
 ("search_codebase question='who calls die'","search_codebase"),
]
for t,v in exact: add("exact", t, verb=V(v), run=True)

# 2. misspellings: the right verb on top (>= 0.6: it asks at worst); safe verbs only here
typos = [
 ("skeletno lib/hash.c","skeleton"),("skelton","skeleton"),("sekleton src/util.c","skeleton"),
 ("outlien src/parser.c","skeleton"),("ouitline lib","skeleton"),("exapnd trim","expand"),
 ("expnad hash_put","expand"),("epxand xmalloc","expand"),("raed lib/hash.h","read"),
 ("reda src/util.h","read"),("veiw src/main.c","read"),("grpe hash_","grep"),("gerp die","grep"),
 ("serach log_msg","grep"),("callrs hash_get","callers"),("cllers trim","callers"),
 ("calllers die","callers"),("calees main","callees"),("callese parse_args","callees"),
 ("refernces strbuf_init","references"),("referecnes hash_free","references"),
 ("defintion hash_str","definition"),("definiton trim","definition"),("dpes src/main.c","deps"),
 ("dependecies lib/hash.c","deps"),("valdiate","validate"),("vlaidate","validate"),
 ("dnoe","done"),("finsihed","done"),("get_comits limit=2","get_commits"),
 ("get_athor_stats","get_author_stats"),("get_file_histroy path=lib/hash.c","get_file_history"),
 ("query_codbase query_type=find_function name=die","query_codebase"),("skleton","skeleton"),
 ("outlne","skeleton"),("expnd","expand"),
]
for t,v in typos: add("typo", t, verb=V(v))

# 3. natural requests: an acceptable verb among the top three readings
nat = [
 ("what's inside lib/hash.c",V("skeleton","read")),("describe src/parser.c",V("skeleton","read")),
 ("give me a summary of lib/strbuf.c",V("skeleton")),("what functions are in src/util.c",V("skeleton")),
 ("list the symbols in lib/hash.h",V("skeleton")),("summarise src/net",V("skeleton")),
 ("explain lib/hash.c",V("skeleton","read")),("where is trim defined",V("definition")),
 ("where is hash_get declared",V("definition")),("who calls strbuf_grow",V("callers")),
 ("which functions call xmalloc",V("callers")),("what calls sock_open",V("callers")),
 ("what does main call",V("callees")),("what functions does http_serve call",V("callees")),
 ("what does parse_args use",V("callees")),("where is log_msg used",V("references","callers")),
 ("find all uses of hash_put",V("references","callers")),("show the code of hash_resize",V("expand")),
 ("print the implementation of trim",V("expand")),("let me see the source for xstrdup",V("expand")),
 ("show me src/util.h",V("read")),("display the first lines of src/main.c",V("read")),
 ("search the code for TODO",V("grep")),("look for strbuf_ in lib",V("grep")),
 ("which headers does src/parser.c include",V("deps")),("what does lib/hash.c depend on",V("deps")),
 ("does it compile",V("validate")),("run the tests",V("validate")),("I'm done here",V("done")),
 ("that's all, we are finished",V("done")),("show the history of lib/hash.c",V("get_file_history")),
 ("show me the latest commits",V("get_commits")),("who uses hash_get",V("references","callers")),
 ("what is in src/net/http.c",V("skeleton","read")),("outline the file src/main.c",V("skeleton")),
 ("body of the function hash_put",V("expand")),
]
for t,v in nat: add("natural", t, verb=v)

# 4. unrelated words and gibberish: confidence below 0.6
for t in ["commit","push","deploy to production","what time is it","good morning",
          "rebase onto main","sing me a song","weather in paris","buy milk","aaaaaa","qwerty",
          "!!!","3.14159","the and of","hmm","ok","yes","merge the branch","npm install lodash",
          "cd ..","ls -la","exit","kill -9 1234","open the pod bay doors","email bob about it",
          "schedule a meeting","asdfgh jkl","zxcvbnm","banana","who contributed most",
          "who wrote the most code","how many commits last week","book a flight","pull",
          "what is the meaning of life","translate hello to german"]:
    add("unrelated", t, below=0.6)

# 5. targets: the verb's target (and range, path, params) read right
tg = [
 ("read src/main.c:3-9", dict(verb=V("read"), target="src/main.c:3-9")),
 ("read lines 3-9 of src/main.c", dict(verb=V("read"), params={"path":"src/main.c","start":3,"end":9})),
 ("read src/main.c 3 9", dict(verb=V("read"), params={"path":"src/main.c","start":3,"end":9})),
 ("show lines 2 to 6 of lib/hash.c", dict(verb=V("read"), params={"path":"lib/hash.c","start":2,"end":6})),
 ("grep 'hash_' lib/", dict(verb=V("grep"), params={"pattern":"hash_","path":"lib/"})),
 ("grep strbuf_append src", dict(verb=V("grep"), params={"pattern":"strbuf_append","path":"src"})),
 ("skeleton lib/hash.c", dict(verb=V("skeleton"), target="lib/hash.c")),
 ("expand struct strbuf", dict(verb=V("expand"), target="struct strbuf")),
 ("callers of hash_put", dict(verb=V("callers"), target="hash_put")),
 ("show callers of die", dict(verb=V("callers"), target="die")),
 ("show main", dict(verb=V("expand"), target="main")),
 ("get_commits limit=5", dict(verb=V("get_commits"), params={"limit":5})),
 ("get_commits author=alice limit=2", dict(verb=V("get_commits"), params={"author":"alice","limit":2})),
 ("grep log_msg limit=5", dict(verb=V("grep"), params={"pattern":"log_msg","limit":5})),
 ("skeleton src/net", dict(verb=V("skeleton"), target="src/net")),
 ("deps lib/hash.c", dict(verb=V("deps"), target="lib/hash.c")),
 ("references trim", dict(verb=V("references"), target="trim")),
 ("definition hash_table_t", dict(verb=V("definition"), target="hash_table_t")),
 ("read path=lib/hash.h", dict(verb=V("read"), target="lib/hash.h")),
 ("expand name=xmalloc", dict(verb=V("expand"), target="xmalloc")),
 ("callees main", dict(verb=V("callees"), target="main")),
 ("tree src/net", dict(verb=V("skeleton"), target="src/net")),
 ("get_file_history path=src/util.c", dict(verb=V("get_file_history"), params={"path":"src/util.c"})),
 ("what does http_handle call", dict(verb=V("callees"), target="http_handle")),
 ("who calls sock_close", dict(verb=V("callers"), target="sock_close")),
 ("outline of src/parser.c", dict(verb=V("skeleton"), target="src/parser.c")),
 ("search for xmalloc in src", dict(verb=V("grep"), params={"pattern":"xmalloc","path":"src"})),
 ("read lib/hash.c lines 5-8", dict(verb=V("read"), params={"path":"lib/hash.c","start":5,"end":8})),
 ("grep -n 'die(' src/util.c", dict(verb=V("grep"), params={"pattern":"die(","path":"src/util.c"})),
 ("callers die limit=3", dict(verb=V("callers"), target="die", params={"limit":3})),
]
for t,e in tg: add("targets", t, **e)

# 6. a missing target is reported apart, with the verb sure of itself
for t,v in [("skeleton","skeleton"),("expand","expand"),("read","read"),("callers","callers"),
            ("grep","grep"),("deps","deps"),("definition","definition"),("references","references"),
            ("callees","callees"),("outline","skeleton"),("show the callers","callers"),
            ("expand the function","expand")]:
    add("missing", t, verb=V(v), missing=True)

# 7. dangerous verbs never run from a fuzzy match (confidence < 0.85 unless written exactly)
for t in ["fxi src/util.c","fi src/util.c","fixx src/util.c","patc src/util.c","rewrite everything",
          "change the world","edti lib/hash.c","memory_delet id=3","rn_lisp","memroy_add",
          "replcae foo bar","modfy src/util.c"]:
    add("danger", t, norun=True)

per = {}
for it in items:
    n = per.get(it["cat"], 0); per[it["cat"]] = n + 1
    it["split"] = "aside" if n % 3 == 2 else "dev"
    it["id"] = "%s-%03d" % (it["cat"], n + 1)
out = os.path.join(os.path.dirname(os.path.abspath(__file__)), "dwim_targets.jsonl")
with open(out, "w") as f:
    for it in items:
        f.write(json.dumps(it) + "\n")
print(out, len(items))

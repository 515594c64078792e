#!/usr/bin/env python3
"""Score quarry's router on the jq question set.
usage: QUARRY=path check.py [--split dev|heldout|all] [--out FILE]
Clones the pinned repository (make_repo.sh) into a temp dir, runs
`quarry ask --format json "TEXT"` per item in a clean environment and scores
right / wrong / declined / failed. Tolerant of the JSON shape, strict on content."""
import argparse, json, os, re, subprocess, sys, tempfile, collections
HERE = os.path.dirname(os.path.abspath(__file__))
NOW = "2026-07-06T12:00:00Z"

def load(split):
    files = {"dev": ["dev/router_dev.jsonl"], "heldout": ["heldout/router_heldout.jsonl"]}
    files["all"] = files["dev"] + files["heldout"]
    out = []
    for f in files[split]:
        with open(os.path.join(HERE, f)) as fh:
            out += [json.loads(l) for l in fh if l.strip()]
    return sorted(out, key=lambda x: x["id"])

def norm(x):
    if isinstance(x, dict): return {str(k).lstrip(":"): norm(v) for k, v in x.items()}
    if isinstance(x, list): return [norm(v) for v in x]
    return x

LISTKEYS = ("rows", "results", "commits", "authors", "files", "paths", "items", "history")
def rows_of(f):
    if isinstance(f, list): return [r for r in f if isinstance(r, dict)], True
    if isinstance(f, dict):
        for k in LISTKEYS:
            if isinstance(f.get(k), list) and f[k] and isinstance(f[k][0], dict): return f[k], True
        return [f], False
    return [], False

def summary_number(s):
    s = re.sub(r"\d{4}-\d{2}-\d{2}(T[\d:+\-Z.]+)?", " ", s or "")
    s = re.sub(r"\b[0-9a-f]{7,40}\b", " ", s)
    s = re.sub(r"jq[- ]?\d+(\.\d+)*(rc\d+)?|\bv?\d+\.\d+(\.\d+)?", " ", s)
    m = re.search(r"(?<![\w.#/+-])(\d+)(?![\w.]*\w)", s)
    return int(m.group(1)) if m else None

def who(r): return {str(r.get(k, "")).lower() for k in ("author", "email", "name") if r.get(k)}
def hashes(rows):
    return [str(r.get("hash") or r.get("short_hash") or r.get("commit") or "") for r in rows if (r.get("hash") or r.get("short_hash") or r.get("commit"))]
def same_set(got, want):
    if len(got) != len(want): return False
    used = set()
    for g in got:
        hit = [w for w in want if w not in used and g and w.startswith(g.lower())]
        if not hit: return False
        used.add(hit[0])
    return True
def pick(rows, rank):
    if not rows: return None
    if len(rows) == 1: return rows[0]
    if rank == -1: return rows[-1]
    return rows[rank - 1] if len(rows) >= rank else None

def score_content(e, f, summary):
    t = e["type"]; rows, listy = rows_of(f)
    if t == "count":
        val = None
        if isinstance(f, bool): val = None
        elif isinstance(f, (int, float)): val = int(f)
        elif isinstance(f, dict) and any(isinstance(f.get(k), int) for k in ("count", "total", "n", "value")):
            val = next(f[k] for k in ("count", "total", "n", "value") if isinstance(f.get(k), int))
        elif rows and hashes(rows) and e["count_of"] == "commits":
            val = len(rows)
            if val not in e["any_of"] and summary_number(summary) in e["any_of"]: val = summary_number(summary)
        elif rows and e["count_of"] == "authors" and any(who(r) for r in rows):
            val = len(rows)
        elif rows and all(isinstance(r.get("commits"), int) for r in rows):
            val = sum(r["commits"] for r in rows)
        elif isinstance(f, list) and not f:
            val = 0
        if val is None: val = summary_number(summary)
        return val in e["any_of"], val
    if t == "author":
        acc = {a.lower() for a in e["any_of"]}
        r = pick([x for x in rows if who(x)], e.get("rank", 1))
        if r is not None: return bool(who(r) & acc), sorted(who(r))
        return any(a in (summary or "").lower() for a in acc if "@" not in a), summary
    if t == "authors":
        k = e["k"]; top = [x for x in rows if who(x)][:k]
        for want in e["any_of"]:
            left = [{a.lower() for a in p} for p in want]
            ok = len(top) == k
            for r in top:
                m = [p for p in left if who(r) & p]
                if not m: ok = False; break
                left.remove(m[0])
            if ok and not left: return True, [sorted(who(r)) for r in top]
        return False, [sorted(who(r)) for r in top]
    if t == "author_set":
        got = {str(r.get("author", "")).lower() for r in rows if r.get("author")}
        return any(got == {a.lower() for a in s} for s in e["any_of"]), sorted(got)
    if t == "file":
        r = pick([x for x in rows if x.get("path")], e.get("rank", 1))
        if r is not None: return r["path"] in e["any_of"], r["path"]
        return any(p in (summary or "") for p in e["any_of"]), summary
    if t == "files":
        if rows and len(rows) == 1 and isinstance(rows[0].get("paths"), list):
            got = [p["path"] if isinstance(p, dict) else p for p in rows[0]["paths"]]
        elif rows and len(rows) == 1 and isinstance(rows[0].get("files"), list):
            got = [p["path"] if isinstance(p, dict) else p for p in rows[0]["files"]]
        else:
            got = [r["path"] for r in rows if r.get("path")]
        if e.get("ordered_k"): got = got[:e["ordered_k"]]
        return any(sorted(set(got)) == sorted(s) for s in e["any_of"]), got
    if t == "commits":
        got = hashes(rows)
        return any(same_set([g.lower() for g in got], s) for s in e["any_of"]), got
    if t == "commit":
        got = hashes(rows)
        return bool(got) and any(h.startswith(got[0].lower()) for h in e["any_of"]), got[:1]
    if t == "yesno":
        v = None
        if isinstance(f, bool): v = f
        elif isinstance(f, dict):
            for k in ("answer", "boolean", "yes", "result", "value"):
                if isinstance(f.get(k), bool): v = f[k]; break
                if isinstance(f.get(k), str) and f[k].lower() in ("yes", "no"): v = f[k].lower() == "yes"; break
        if v is None:
            m = re.match(r"\W*(yes|no)\b", summary or "", re.I)
            if m: v = m.group(1).lower() == "yes"
        if v is None and isinstance(f, list): v = len(f) > 0
        if v is None and isinstance(f, (int, float)): v = f > 0
        if v is None and isinstance(f, dict) and isinstance(f.get("count"), int): v = f["count"] > 0
        return v == e["value"], v
    if t == "date":
        r = pick([x for x in rows if x.get("date")], 1)
        if r is not None: return str(r["date"])[:10] in e["any_of"], r["date"]
        return any(d in (summary or "") for d in e["any_of"]), summary
    raise ValueError(t)

def is_decline(rc, text):
    # exit 2 + the no-model message. ask --help says "needs a model"; the binary says
    # "no model is configured, and the question is not one quarry answers without one" (fixed after dev run 1).
    t = text.lower()
    return rc == 2 and ("needs a model" in t or "no model is configured" in t or "answers without one" in t)

def main():
    ap = argparse.ArgumentParser(); ap.add_argument("--split", default="dev", choices=["dev", "heldout", "all"]); ap.add_argument("--out")
    a = ap.parse_args()
    q = os.environ.get("QUARRY") or sys.exit("set QUARRY=path/to/quarry")
    q = os.path.abspath(q)
    items = load(a.split)
    tmp = tempfile.mkdtemp(prefix="jqcheck.")
    repo = os.path.join(tmp, "jq"); home = os.path.join(tmp, "home"); os.makedirs(home)
    env0 = {k: v for k, v in os.environ.items() if not k.startswith("GIT_")}
    subprocess.run([os.path.join(HERE, "make_repo.sh"), repo], check=True, env=env0)
    env = {"PATH": os.environ.get("PATH", "/usr/bin:/bin"), "HOME": home, "XDG_CONFIG_HOME": os.path.join(home, ".config"),
           "XDG_CACHE_HOME": os.path.join(home, ".cache"), "XDG_DATA_HOME": os.path.join(home, ".local/share"),
           "XDG_STATE_HOME": os.path.join(home, ".local/state"), "TZ": "UTC", "QUARRY_NOW": NOW, "LANG": "C.UTF-8"}
    tally = collections.defaultdict(collections.Counter); res = []
    for it in items:
        try:
            p = subprocess.run([q, "ask", "--format", "json", it["text"]], cwd=repo, env=env, capture_output=True, text=True, timeout=180)
            rc, out, err = p.returncode, p.stdout, p.stderr
        except subprocess.TimeoutExpired:
            rc, out, err = -1, "", "timeout"
        e = it["expect"]; got = None
        declined = is_decline(rc, out + err)
        if declined:
            verdict = "right" if (e["type"] == "decline" or e.get("or_decline")) else "declined"
        elif rc != 0:
            verdict = "failed"; got = (err or out)[-300:]
        elif e["type"] == "decline":
            verdict = "wrong"; got = out[:300]
        else:
            try:
                j = norm(json.loads(out))
                f = j.get("findings", j.get("answer", j.get("result"))) if isinstance(j, dict) else j
                summ = j.get("summary", "") if isinstance(j, dict) else ""
                ok, got = score_content(e, f, summ)
                verdict = "right" if ok else "wrong"
                if not ok: got = {"extracted": got, "summary": summ}
            except Exception as ex:
                verdict = "wrong"; got = f"unparsable: {ex}: {out[:200]}"
        tally[it["kind"]][verdict] += 1; tally["TOTAL"][verdict] += 1
        res.append({"id": it["id"], "kind": it["kind"], "text": it["text"], "verdict": verdict, "rc": rc, "got": got, "expect": e, "stdout": out, "stderr": err[-2000:]})
        print(f"{it['id']} {verdict:8s} {it['text'][:70]}" + ("" if verdict == "right" else f"  got={json.dumps(got)[:160]}"), flush=True)
    print("\nkind                 right wrong declined failed")
    for k in sorted(tally, key=lambda k: (k == "TOTAL", k)):
        c = tally[k]; print(f"{k:20s} {c['right']:5d} {c['wrong']:5d} {c['declined']:8d} {c['failed']:6d}")
    if a.out:
        with open(a.out, "w") as fh:
            for r in res: fh.write(json.dumps(r) + "\n")
if __name__ == "__main__":
    main()

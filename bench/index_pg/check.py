"""check.py: the comparisons of bench/index_pg/run.sh (exit 1 when they differ).

  check.py commits LOCAL DUMP      get_commits --with-paths of a clone == the published rows
  check.py rows LOCAL SHARED NAME  a local tool's rows == the shared tool's rows of NAME
  check.py question QUARRY SQL     quarry's author rows == the hand-written SQL's rows
"""
import json
import sys


def commits(local_path, dump_path):
    local = json.load(open(local_path))
    db = json.load(open(dump_path))
    want = sorted(({"hash": c["hash"], "author": c["author"], "email": c["email"],
                    "timestamp": c["timestamp"], "parents": " ".join(c["parents"]),
                    "subject": c["subject"], "files": c["files"],
                    "additions": c["additions"], "deletions": c["deletions"],
                    "paths": [{"path": p["path"], "additions": p["additions"],
                               "deletions": p["deletions"], "status": p["status"],
                               "binary": bool(p.get("binary", False))}
                              for p in c.get("paths", [])]}
                   for c in local), key=lambda c: c["hash"])
    if want == db:
        return True
    print("commits differ: local %d, database %d" % (len(want), len(db)))
    for a, b in zip(want, db):
        if a != b:
            print(" local:", a)
            print(" db:   ", b)
            break
    return False


def rows(local_path, shared_path, name):
    local = json.load(open(local_path))
    shared = [r for r in json.load(open(shared_path)) if r.pop("repo") == name]
    if local == shared:
        return True
    print("%s: rows differ: local %d, shared %d" % (name, len(local), len(shared)))
    for a, b in zip(local, shared):
        if a != b:
            print(" local: ", a)
            print(" shared:", b)
            break
    return False


def fold(email):
    """an author's key: the email with ASCII letters lowercased (src/git/git_int.h)"""
    return "".join(c.lower() if "A" <= c <= "Z" else c for c in email)


def question(quarry_path, sql_path):
    q = {(r["repo"], fold(r["email"]), r["commits"], r["additions"], r["deletions"])
         for r in json.load(open(quarry_path))}
    s = {(r["repo_name"], r["email"], r["commits"], r["additions"], r["deletions"])
         for r in (json.load(open(sql_path)) or [])}
    if q == s:
        print("same answer (%d rows)" % len(q))
        return True
    print("DIFFERENT answers: %d rows from quarry, %d from SQL, %d in common"
          % (len(q), len(s), len(q & s)))
    return False


if __name__ == "__main__":
    op = sys.argv[1]
    ok = {"commits": lambda: commits(sys.argv[2], sys.argv[3]),
          "rows": lambda: rows(sys.argv[2], sys.argv[3], sys.argv[4]),
          "question": lambda: question(sys.argv[2], sys.argv[3])}[op]()
    sys.exit(0 if ok else 1)

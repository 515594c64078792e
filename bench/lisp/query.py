#!/usr/bin/env python3
"""query.py -- the records benchmark query in plain Python (python3).

Usage: query.py commits.json
Loads the JSON array with json.load (not timed), then times only the query
with time.perf_counter. Prints the answer as JSON on stdout and
`time_ms: N` on stderr.

Query: keep files >= 3 and additions > 10; stable sort by timestamp desc;
group by author; per author count, sum additions, sum deletions, average
files and latest (first timestamp in the group); top 10 by additions desc,
then author asc.
"""
import json
import sys
import time


def query(commits):
    kept = [c for c in commits if c["files"] >= 3 and c["additions"] > 10]
    kept.sort(key=lambda c: c["timestamp"], reverse=True)  # stable
    groups = {}
    for c in kept:
        groups.setdefault(c["author"], []).append(c)
    rows = [{
        "author": author,
        "commits": len(cs),
        "additions": sum(c["additions"] for c in cs),
        "deletions": sum(c["deletions"] for c in cs),
        "avg_files": sum(c["files"] for c in cs) / len(cs),
        "latest": cs[0]["timestamp"],
    } for author, cs in groups.items()]
    rows.sort(key=lambda r: (-r["additions"], r["author"]))
    return rows[:10]


def main():
    with open(sys.argv[1]) as f:
        commits = json.load(f)
    t0 = time.perf_counter()
    answer = query(commits)
    t1 = time.perf_counter()
    json.dump(answer, sys.stdout)
    sys.stdout.write("\n")
    sys.stderr.write("time_ms: %.3f\n" % ((t1 - t0) * 1000.0))


if __name__ == "__main__":
    main()

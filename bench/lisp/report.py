#!/usr/bin/env python3
"""report.py -- checks the answers and prints the table for run.sh.

Usage: report.py RESULTS_DIR RUNS RECORDS

RESULTS_DIR holds, per implementation NAME:
  NAME.status  "ok", "skip: why" or "fail: why"
  NAME.out     the answer (JSON) printed by the first run
  NAME.ms      the query time of each run, one per line
plus jq-parse.ms (jq parse-only runs), quarry.read_ms, startup.ms
("MEAN STDDEV", ms) and startup.how / startup.status.

Answers are normalized before comparing: keys lose a leading ':' (in case
keywords print as ":author") and are sorted, every float is rounded to 3
decimals, and a float with no fraction becomes an int (1.0 == 1).

Exit status: 0 if every answer that was produced agrees, 1 if answers
disagree or an implementation that ran failed. Missed targets do not change
the exit status.
"""
import difflib
import json
import os
import sys

# (name, label, target kind, target value); order of the table.
IMPLS = [
    ("quarry", "quarry", None, None),
    ("c", "c (cc -O2)", "within", 2.0),        # quarry at most 2x C's time
    ("nbb", "nbb (cljs)", None, None),
    ("python3", "python3", "faster", 5.0),
    ("lua5.4", "lua5.4", "faster", 5.0),
    ("jq", "jq", "faster", 20.0),
]
STARTUP_TARGET_MS = 5.0
REFERENCE_ORDER = ["python3", "c", "lua5.4", "jq", "nbb", "quarry"]


def read(res, name, default=None):
    try:
        with open(os.path.join(res, name)) as f:
            return f.read().strip()
    except OSError:
        return default


def best(res, name):
    text = read(res, name)
    if not text:
        return None
    return min(float(x) for x in text.split())


def fmt_ms(t):
    return "%9.2f ms" % t if abs(t) < 10 else "%9.1f ms" % t


def normalize(v):
    if isinstance(v, dict):
        return {str(k).lstrip(":"): normalize(x) for k, x in v.items()}
    if isinstance(v, list):
        return [normalize(x) for x in v]
    if isinstance(v, float):
        r = round(v, 3)
        return int(r) if r.is_integer() else r
    return v


def canonical(text):
    return json.dumps(normalize(json.loads(text)), sort_keys=True, indent=1)


def main():
    res, runs, records = sys.argv[1], sys.argv[2], int(sys.argv[3])
    failed = False
    status = {n: (read(res, n + ".status") or "fail: no result") for n, *_ in IMPLS}
    times = {n: best(res, n + ".ms") for n, *_ in IMPLS if status[n] == "ok"}

    # jq: the query estimate is best total minus best parse-only run.
    jq_note = None
    if "jq" in times:
        total, parse = times["jq"], best(res, "jq-parse.ms")
        times["jq"] = total - parse
        jq_note = ("jq cannot time its query apart from parsing: shown is best whole run "
                   "%.1f ms minus best parse-only run (`jq length`) %.1f ms" % (total, parse))

    # ---- answers ----
    answers, bad = {}, []
    for n, *_ in IMPLS:
        if status[n] != "ok":
            continue
        try:
            answers[n] = canonical(read(res, n + ".out", ""))
        except ValueError as e:
            status[n] = "fail: answer is not JSON (%s)" % e
            times.pop(n, None)
            failed = True
    ref = next((n for n in REFERENCE_ORDER if n in answers), None)
    for n in answers:
        if answers[n] != answers[ref]:
            bad.append(n)

    # ---- table ----
    print("quarry records benchmark: %d records; query time = best of %s runs, "
          "data loading not timed" % (records, runs))
    print()
    print("%-12s %12s   %-26s %s" % ("impl", "query", "quarry vs it", "target"))
    print("-" * 72)
    q = times.get("quarry")
    for n, label, kind, target in IMPLS:
        st = status[n]
        if st != "ok":
            print("%-12s %12s   %s" % (label, "-", st))
            if st.startswith("fail"):
                failed = True
            continue
        t = times[n]
        mark = "*" if n == "jq" else " "
        if n == "quarry":
            read_ms = read(res, "quarry.read_ms", "")
            rs = [x for x in read_ms.split() if x != "-"]
            extra = ("(read_ms %.1f, not counted)" % min(map(float, rs))) if rs else ""
            print("%-12s %s%s  %s" % (label, fmt_ms(t), mark, extra))
            continue
        if q is None:
            ratio = "(no quarry time)"
        elif t <= 0 or q <= 0:
            ratio = "n/a (a time <= 0)"
        elif q <= t:
            ratio = "quarry is %.1fx faster" % (t / q)
        else:
            ratio = "quarry is %.1fx slower" % (q / t)
        tgt = "-"
        if kind == "faster":
            tgt = ">= %gx faster" % target
            if q is not None and t > 0 and q > 0:
                tgt += "  " + ("met" if t / q >= target else "MISSED")
        elif kind == "within":
            tgt = "within %gx of C" % target
            if q is not None and t > 0 and q > 0:
                tgt += "  " + ("met" if q / t <= target else "MISSED")
        print("%-12s %s%s  %-26s %s" % (label, fmt_ms(t), mark, ratio, tgt))
    if jq_note:
        print("  * " + jq_note)

    # ---- start-up ----
    print()
    su = read(res, "startup.ms")
    su_status = read(res, "startup.status")
    if su:
        mean, sd = su.split()
        line = "quarry start-up (`quarry lisp -e nil`): %.2f ms mean" % float(mean)
        if sd != "-":
            line += " +- %.2f" % float(sd)
        line += " [%s]   target < %g ms  %s" % (
            read(res, "startup.how", ""), STARTUP_TARGET_MS,
            "met" if float(mean) < STARTUP_TARGET_MS else "MISSED")
        print(line)
    elif su_status:
        print("quarry start-up: " + su_status)
        failed = True
    else:
        print("quarry start-up: not measured (no quarry binary)")

    # ---- verdict ----
    print()
    if not answers:
        print("answers: none produced")
        failed = True
    elif bad:
        print("answers: DISAGREE -- %s differ from %s" % (", ".join(bad), ref))
        for n in bad:
            diff = difflib.unified_diff(answers[ref].splitlines(), answers[n].splitlines(),
                                        ref, n, lineterm="", n=1)
            for i, line in enumerate(diff):
                if i >= 40:
                    print("   ...")
                    break
                print("   " + line)
        failed = True
    else:
        rows = len(json.loads(answers[ref]))
        print("answers: all %d agree (%s; %d rows)" % (len(answers), ", ".join(answers), rows))
    sys.exit(1 if failed else 0)


if __name__ == "__main__":
    main()

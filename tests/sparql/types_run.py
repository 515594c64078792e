#!/usr/bin/env python3
"""types_run.py QUARRY CASES...: runs the datatype and shape cases of issue 28 (lines
NAME<TAB>QUERY<TAB>EXPECTED of tests/sparql/types/*.txt) with `quarry sparql --format tsv`
over types/data.ttl and compares each answer with its expectation: rows as TSV joined by
' ;; ' (sorted unless the query has ORDER BY), or 'error: TEXT' (exit 1 or 2 with TEXT in
the message). Prints each failure and 'N/M passed' per file; exits 1 when any fails."""
import os
import subprocess
import sys

PREFIX = 'PREFIX : <http://e/> PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> '


def run_case(quarry, data, query, want):
    p = subprocess.run([quarry, 'sparql', '--data', data, '--format', 'tsv',
                        '--timeout-ms', '20000', PREFIX + query],
                       capture_output=True, text=True, timeout=60)
    if want.startswith('error: '):
        if p.returncode in (1, 2) and want[7:] in p.stderr:
            return None
        return 'want an error naming %r, got rc %d: %s%s' % (want[7:], p.returncode,
                                                             p.stdout.strip(), p.stderr.strip())
    if p.returncode != 0:
        return 'rc %d: %s' % (p.returncode, p.stderr.strip())
    lines = p.stdout.split('\n')
    if lines and lines[-1] == '':
        lines.pop()
    rows = lines[1:]
    if not query.lstrip().upper().startswith('ASK'):
        if 'ORDER BY' not in query.upper():
            rows.sort()
    got = ' ;; '.join(rows)
    exp = want
    if 'ORDER BY' not in query.upper() and not query.lstrip().upper().startswith('ASK'):
        exp = ' ;; '.join(sorted(want.split(' ;; '))) if want else ''
    return None if got == exp else 'want %r, got %r' % (exp, got)


def main():
    quarry = sys.argv[1]
    here = os.path.dirname(os.path.abspath(__file__))
    data = os.path.join(here, 'types', 'data.ttl')
    bad = 0
    for f in sys.argv[2:]:
        n = ok = 0
        for line in open(f, encoding='utf-8'):
            line = line.rstrip('\n')
            if not line or line.startswith('#'):
                continue
            parts = line.split('\t', 2)
            name, query = parts[0], parts[1]
            want = parts[2] if len(parts) > 2 else ''
            n += 1
            why = run_case(quarry, data, query, want)
            if why:
                print('FAIL %s: %s' % (name, why))
            else:
                ok += 1
        print('%s: %d/%d passed' % (os.path.basename(f), ok, n))
        bad += n - ok
    sys.exit(1 if bad else 0)


main()

#!/usr/bin/env python3
"""split.py ALL.jsonl DEV.jsonl HELDOUT.jsonl: seeded (random.Random(10)) split stratified by kind; per kind the
shuffled items alternate dev / held-out (odd counts: the extra item goes to dev for even-indexed kinds in sorted order,
to held-out otherwise)."""
import collections, json, random, sys
items = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
R = random.Random(10); by = collections.defaultdict(list)
for it in items: by[it['kind']].append(it)
dev, ho = [], []
for ki, k in enumerate(sorted(by)):
    xs = by[k][:]; R.shuffle(xs)
    first, second = (dev, ho) if ki % 2 == 0 else (ho, dev)
    for i, it in enumerate(xs): (first if i % 2 == 0 else second).append(it)
for path, xs in ((sys.argv[2], dev), (sys.argv[3], ho)):
    with open(path, 'w') as f:
        for it in sorted(xs, key=lambda x: x['id']): f.write(json.dumps(it) + '\n')
for name, xs in (('dev', dev), ('held-out', ho)):
    print(name, len(xs), dict(sorted(collections.Counter(x['kind'] for x in xs).items())))

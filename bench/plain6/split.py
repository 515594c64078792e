#!/usr/bin/env python3
"""Seeded split, stratified by kind: python3 split.py ALL.jsonl DEV_OUT HELDOUT_OUT
Within each kind (items in id order) a random.Random(SEED) shuffle; the first ceil(n/2) go to one side,
alternating which side gets the odd item from kind to kind (kinds in sorted order)."""
import json, random, sys
SEED = 20261207
items = [json.loads(l) for l in open(sys.argv[1]) if l.strip()]
R = random.Random(SEED)
dev, held = [], []
odd_to_dev = True
for k in sorted({i['kind'] for i in items}):
    g = [i for i in items if i['kind'] == k]
    R.shuffle(g)
    h = len(g) // 2 + (len(g) % 2 if odd_to_dev else 0)
    if len(g) % 2: odd_to_dev = not odd_to_dev
    dev += g[:h]; held += g[h:]
for path, xs in ((sys.argv[2], dev), (sys.argv[3], held)):
    xs.sort(key=lambda i: i['id'])
    with open(path, 'w') as f:
        for i in xs: f.write(json.dumps(i, ensure_ascii=False) + '\n')
    print(path, len(xs), file=sys.stderr)

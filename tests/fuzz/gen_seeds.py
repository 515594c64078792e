#!/usr/bin/env python3
"""gen_seeds.py: writes the seeds that reach the sandbox's work and depth bounds (issue 11)
into the fuzz corpora: prefix forms nested far past the reader's depth limit (' #' #_ and
tagged literals, 100,000 deep, which overflowed the C stack before the reader counted
them), deep JSON, and programs that build values sharing their parts (2^60 leaves) or
functions built from functions 100,000 deep. libFuzzer mutates from these; the normal
build replays them as tests.

Usage: python3 tests/fuzz/gen_seeds.py [CORPUS_DIR]   (default: tests/fuzz/corpus)
The seeds are committed; run this again only to regenerate them.
"""
import os
import sys

HERE = os.path.dirname(os.path.abspath(__file__))
CORPUS = sys.argv[1] if len(sys.argv) > 1 else os.path.join(HERE, "corpus")

DAG = "(defn dag [n] (reduce (fn [a _] [a a]) [] (range n)))\n"


def chain(comb, n, call="0"):
    return "((loop [f inc i 0] (if (< i %d) (recur (%s f) (inc i)) f)) %s)\n" % (n, comb, call)


SEEDS = {
    "reader": {
        "deep-quotes": "'" * 100000 + "a",
        "deep-discards": "#_" * 50000 + "a",
        "deep-vars": "#'" * 100000 + "a",
        "deep-tags": "#x " * 50000 + "a",
        "deep-mixed": "'#_#'" * 20000 + "a",
    },
    "json": {
        "deep-arrays-5000": "[" * 5000 + "]" * 5000,
        "deep-objects-2000": '{"a":' * 2000 + "1" + "}" * 2000,
    },
    "query": {
        "deep-discards": "#_" * 50000 + "{}",
        "deep-tags": "{:fetch " + "#x " * 50000 + "[]}",
    },
    "eval": {
        "deep-quotes": "'" * 100000 + "a",
        "dag-print": DAG + "(str (dag 60))\n",
        "dag-value": DAG + "(dag 60)\n",
        "dag-println": DAG + "(println (dag 60))\n",
        "dag-error-quote": DAG + "(inc (dag 60))\n",
        "dag-fail": DAG + "(fail (dag 60))\n",
        "dag-equal": DAG + "(= (dag 60) (dag 60))\n",
        "dag-sort": DAG + "(sort [(dag 60) (dag 60)])\n",
        "dag-distinct": DAG + "(distinct [(dag 60) (dag 60)])\n",
        "dag-frequencies": DAG + "(frequencies [(dag 60) (dag 60)])\n",
        "dag-set": DAG + "(contains? (set (conj (vec (range 20)) (dag 60))) 1)\n",
        "dag-format": DAG + '(format "%s" (dag 60))\n',
        "juxt-chain": chain("juxt", 100000),
        "every-pred-chain": chain("every-pred", 100000),
        "partial-chain": chain("partial", 100000),
        "comp-chain": "((loop [f inc i 0] (if (< i 300000) (recur (comp inc f) (inc i)) f)) 0)\n",
        "var-self": "(def f #'f) (f 1)\n",
    },
}


def main():
    for corpus, seeds in SEEDS.items():
        d = os.path.join(CORPUS, corpus)
        os.makedirs(d, exist_ok=True)
        for name, text in seeds.items():
            with open(os.path.join(d, "sandbox-" + name), "w") as f:
                f.write(text)
    print("wrote %d seeds" % sum(len(s) for s in SEEDS.values()))


if __name__ == "__main__":
    main()

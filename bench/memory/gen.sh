#!/bin/sh
# gen.sh QUARRY STORE [NODES]: writes a deterministic benchmark memory store: NODES notes
# (default 100,000) in communities of 2,000, 10 links from each (9 inside its community,
# 1 to another: 1,000,000 links for 100,000 notes), types mixed (40% semantic, 20%
# episodic-session, 15% episodic-daily, 10% episodic-weekly, 5% episodic-monthly, 10%
# procedural), weights 0..1, created and modified times over the year before
# 2026-03-10T00:00:00Z, content of 8 words from a 100-word vocabulary (each in about 8%
# of the notes) and one rare token t0..t9999 (about 10 notes each), so match: has both
# common and rare terms, visits by agent "linker" on 30% of notes within the last 30 days.
#
# The store is created with `quarry mem add` (so the schema is quarry's own), then filled
# with one SQL script run by the sqlite3 CLI (recursive CTEs, a multiplicative hash for
# the pseudo-random choices): much faster than importing 1.1M JSON lines. Rejected: a
# random generator (runs must be comparable); generating JSON for `mem import` (tens of
# seconds for the edges alone).
set -eu
Q=${1:?usage: gen.sh QUARRY STORE [NODES]}
S=${2:?usage: gen.sh QUARRY STORE [NODES]}
N=${3:-100000}
command -v sqlite3 >/dev/null || { echo "gen.sh: needs the sqlite3 CLI (Debian package sqlite3)" >&2; exit 2; }
rm -f "$S" "$S-wal" "$S-shm" "$S.spectral"
"$Q" mem add gen-placeholder --store "$S" --format json >/dev/null
sqlite3 "$S" >/dev/null <<SQL
PRAGMA journal_mode = WAL;
PRAGMA synchronous = OFF;
BEGIN;
DELETE FROM nodes;
CREATE TEMP TABLE vocab(id INTEGER PRIMARY KEY, w TEXT);
INSERT INTO vocab(id, w) SELECT key, value FROM json_each('["btree","journal","page","split","merge","index","cache","query","graph","node","edge","spread","spectral","linker","memory","note","agent","visit","weight","priority","search","token","stem","porter","phrase","rank","score","commit","branch","author","file","diff","patch","review","schema","table","column","row","lock","write","read","flush","compaction","segment","bloom","filter","hash","tree","leaf","root","split","rebalance","latency","throughput","benchmark","profile","trace","span","metric","alert","deploy","release","version","config","flag","option","default","error","retry","timeout","budget","cost","model","prompt","context","window","summary","digest","daily","weekly","monthly","session","episode","semantic","procedure","habit","goal","plan","task","todo","idea","question","answer","claim","evidence","source","citation","link","cluster","community"]');
CREATE TEMP TABLE h(x INTEGER);
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < $N)
INSERT INTO nodes(id, key, type, weight, provenance, created, modified, retrievals, uses, wrongs,
                  deleted, content_len, content)
SELECT i + 1, 'note#' || i,
       CASE WHEN a % 100 < 40 THEN 'semantic' WHEN a % 100 < 60 THEN 'episodic-session'
            WHEN a % 100 < 75 THEN 'episodic-daily' WHEN a % 100 < 85 THEN 'episodic-weekly'
            WHEN a % 100 < 90 THEN 'episodic-monthly' ELSE 'procedural' END,
       (b % 1001) / 1000.0, CASE WHEN a % 7 = 0 THEN 'agent:linker' ELSE 'manual' END,
       1773100800 - (c % 31536000), 1773100800 - (c % 31536000) + (d % ((c % 31536000) + 1)),
       0, 0, 0, NULL, length(txt), txt
FROM (SELECT i, a, b, c, d,
             (SELECT w FROM vocab WHERE id = a % 100) || ' ' || (SELECT w FROM vocab WHERE id = b % 100) || ' ' ||
             (SELECT w FROM vocab WHERE id = c % 100) || ' ' || (SELECT w FROM vocab WHERE id = d % 100) || ' ' ||
             (SELECT w FROM vocab WHERE id = (a / 100) % 100) || ' ' || (SELECT w FROM vocab WHERE id = (b / 100) % 100) || ' ' ||
             (SELECT w FROM vocab WHERE id = (c / 100) % 100) || ' ' || (SELECT w FROM vocab WHERE id = (d / 100) % 100) ||
             ' t' || ((a / 10000) % 10000) AS txt
      FROM (SELECT i, (i * 2654435761 + 1) % 4294967291 AS a, (i * 40503 + 7) % 2147483647 AS b,
                   (i * 2246822519 + 3) % 4294967279 AS c, (i * 3266489917 + 11) % 4294967231 AS d
            FROM n));
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < $N),
k(j) AS (SELECT 0 UNION ALL SELECT j + 1 FROM k WHERE j < 9)
INSERT INTO edges(source, target, type, strength)
SELECT i + 1,
       CASE WHEN j < 9 THEN (i / 2000) * 2000 + ((i % 2000) + 1 + ((j * 197 + (i * 40503) % 1999) % 1999)) % 2000 + 1
            ELSE ((i / 2000 + 1 + (i * 2654435761) % (($N / 2000) - 1)) % ($N / 2000)) * 2000 + (i * 2246822519) % 2000 + 1 END,
       'related', 0.1 + ((i * 31 + j * 17) % 90) / 100.0
FROM n, k;
WITH RECURSIVE n(i) AS (SELECT 0 UNION ALL SELECT i + 1 FROM n WHERE i + 1 < $N)
INSERT INTO visits(node, agent, time, outcome)
SELECT i + 1, 'linker', 1773100800 - ((i * 2654435761) % 2592000), 'ok' FROM n WHERE (i * 40503) % 10 < 3;
UPDATE meta SET value = value + 1 WHERE key = 'generation';
COMMIT;
SQL
"$Q" mem stats --store "$S" --format json

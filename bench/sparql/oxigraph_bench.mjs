// oxigraph_bench.mjs GRAPH.nt QUERIES.txt REPEAT: loads the graph into Oxigraph (npm
// `oxigraph`) and runs each query REPEAT times; prints "load MS" then, per query,
// "NAME best median rows FIRST" where FIRST is the first row as quarry's TSV writes it
// (numbers and booleans bare, fields joined by '|'; '-' when there is none), so run.sh
// can tell the two engines agree on single-row answers.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const oxigraph = require('oxigraph');
const [graph, queries, repeat] = process.argv.slice(2);
const X = 'http://www.w3.org/2001/XMLSchema#';
const bare = new Set([X + 'integer', X + 'decimal', X + 'double', X + 'boolean']);
const fmt = (t) => !t ? '' : t.termType === 'Literal' && bare.has(t.datatype.value) ? t.value : t.toString();
const t0 = performance.now();
const store = new oxigraph.Store();
store.load(readFileSync(graph, 'utf8'), { format: 'application/n-triples' });
console.log(`load ${(performance.now() - t0).toFixed(1)}`);
for (const line of readFileSync(queries, 'utf8').split('\n')) {
  if (!line || line.startsWith('#')) continue;
  const [name, q] = line.split('\t');
  const ts = [];
  let rows = 0, first = '-';
  for (let i = 0; i < Number(repeat); i++) {
    const a = performance.now();
    const r = store.query(q);
    ts.push(performance.now() - a);
    rows = Array.isArray(r) ? r.length : 1;
    if (Array.isArray(r) && r.length) first = [...r[0].values()].map(fmt).join('|').replace(/\s/g, '_');
  }
  ts.sort((x, y) => x - y);
  console.log(`${name} ${ts[0].toFixed(2)} ${ts[Math.floor(ts.length / 2)].toFixed(2)} ${rows} ${first}`);
}

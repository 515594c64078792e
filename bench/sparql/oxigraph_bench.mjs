// oxigraph_bench.mjs GRAPH.nt QUERIES.txt REPEAT: loads the graph into Oxigraph (npm
// `oxigraph`) and runs each query REPEAT times; prints "load MS" then "NAME best median rows".
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const oxigraph = require('oxigraph');
const [graph, queries, repeat] = process.argv.slice(2);
const t0 = performance.now();
const store = new oxigraph.Store();
store.load(readFileSync(graph, 'utf8'), { format: 'application/n-triples' });
console.log(`load ${(performance.now() - t0).toFixed(1)}`);
for (const line of readFileSync(queries, 'utf8').split('\n')) {
  if (!line || line.startsWith('#')) continue;
  const [name, q] = line.split('\t');
  const ts = [];
  let rows = 0;
  for (let i = 0; i < Number(repeat); i++) {
    const a = performance.now();
    const r = store.query(q);
    rows = Array.isArray(r) ? r.length : 1;
    ts.push(performance.now() - a);
  }
  ts.sort((x, y) => x - y);
  console.log(`${name} ${ts[0].toFixed(2)} ${ts[Math.floor(ts.length / 2)].toFixed(2)} ${rows}`);
}

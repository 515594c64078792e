// types_oxigraph.mjs DATA.ttl CASES.txt...: runs issue 28's datatype and shape cases
// (tests/sparql/types/*.txt, NAME<TAB>QUERY<TAB>EXPECTED) in Oxigraph and prints, per
// case, whether Oxigraph's answer is the expected one (formatted as types_run.py formats
// quarry's: TSV fields, rows joined by ' ;; ', sorted unless ORDER BY), then a count. The
// expectations come from the SPARQL and XPath specifications; quarry meets all of them
// (tests/cli/58_sparql_types.sh), so the count is where Oxigraph differs.
import { readFileSync } from 'node:fs';
import { createRequire } from 'node:module';
const require = createRequire(import.meta.url);
const ox = require('oxigraph');
const [data, ...files] = process.argv.slice(2);
const store = new ox.Store();
store.load(readFileSync(data, 'utf8'), { format: 'text/turtle', base_iri: 'http://e/' });
const X = 'http://www.w3.org/2001/XMLSchema#';
const bare = new Set([X + 'integer', X + 'decimal', X + 'double', X + 'boolean']);
const fmt = (t) => !t ? '' : t.termType === 'Literal' && bare.has(t.datatype.value) ? t.value : t.toString();
const P = 'PREFIX : <http://e/> PREFIX xsd: <http://www.w3.org/2001/XMLSchema#> ';
let same = 0, n = 0;
for (const f of files) {
  for (const line of readFileSync(f, 'utf8').split('\n')) {
    if (!line || line.startsWith('#')) continue;
    const i = line.indexOf('\t'), j = line.indexOf('\t', i + 1);
    const name = line.slice(0, i), q = line.slice(i + 1, j < 0 ? undefined : j);
    let want = j < 0 ? '' : line.slice(j + 1);
    const ordered = /ORDER BY/i.test(q);
    if (!ordered && !want.startsWith('error: ')) want = want ? want.split(' ;; ').sort().join(' ;; ') : '';
    let got;
    try {
      const r = store.query(P + q);
      if (typeof r === 'boolean') got = String(r);
      else {
        // the projection: from SELECT to the first '{' outside parentheses
        let k = q.search(/SELECT/i) + 6, depth = 0;
        for (; k < q.length && !(q[k] === '{' && depth === 0); k++)
          depth += q[k] === '(' ? 1 : q[k] === ')' ? -1 : 0;
        const head = q.slice(q.search(/SELECT/i) + 6, k).replace(/\{[^}]*\}/g, '');
        const cols = [...head.matchAll(/\(.*? AS \?(\w+)\)|\?(\w+)/g)].map(m => m[1] || m[2]);
        const rows = r.map(m => cols.map(c => fmt(m.get(c))).join('\t'));
        if (!ordered) rows.sort();
        got = rows.join(' ;; ');
      }
    } catch (e) { got = 'error: ' + String(e.message || e).split('\n')[0]; }
    const ok = want.startsWith('error: ') ? got.startsWith('error: ') : got === want;
    n++;
    if (ok) same++;
    console.log(`${ok ? 'same' : 'DIFF'} ${name}${ok ? '' : `\n     oxigraph: ${got}\n     expected: ${want}`}`);
  }
}
console.log(`oxigraph gives the expected answer on ${same} of ${n} cases`);

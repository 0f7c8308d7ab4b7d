const fs = require('fs');
const s = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const want = process.argv[3]; // e.g. "array:(object properties)"
const m = s.snapshot.meta; const F = m.node_fields.length; const E = m.edge_fields.length; const types = m.node_types[0]; const etypes = m.edge_types[0];
const iType = m.node_fields.indexOf('type'), iName = m.node_fields.indexOf('name'), iSize = m.node_fields.indexOf('self_size'), iEc = m.node_fields.indexOf('edge_count');
const eType = m.edge_fields.indexOf('type'), eName = m.edge_fields.indexOf('name_or_index'), eTo = m.edge_fields.indexOf('to_node');
const key = (i) => { const t = types[s.nodes[i + iType]]; let n = s.strings[s.nodes[i + iName]]; if (t.includes('string')) n = ''; return `${t}:${String(n).slice(0, 70)}`; };
const by = new Map(); let e = 0;
for (let i = 0; i < s.nodes.length; i += F) {
  const ec = s.nodes[i + iEc];
  for (let j = 0; j < ec; j++, e += E) {
    const to = s.edges[e + eTo]; if (etypes[s.edges[e + eType]] === 'weak') continue;
    if (key(to) !== want) continue;
    const k = key(i) + ' -' + (etypes[s.edges[e + eType]] === 'element' ? '[i]' : s.strings[s.edges[e + eName]]) ;
    const v = by.get(k) || [0, 0]; v[0] += s.nodes[to + iSize]; v[1]++; by.set(k, v);
  }
}
for (const [k, [sz, c]] of [...by].sort((a, b) => b[1][0] - a[1][0]).slice(0, 25)) console.log((sz / 1e3).toFixed(0).padStart(8), 'KB', String(c).padStart(7), k);

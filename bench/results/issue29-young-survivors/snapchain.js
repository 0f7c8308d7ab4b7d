const fs = require('fs');
const s = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const m = s.snapshot.meta; const F = m.node_fields.length; const E = m.edge_fields.length; const types = m.node_types[0]; const etypes = m.edge_types[0];
const iType = m.node_fields.indexOf('type'), iName = m.node_fields.indexOf('name'), iSize = m.node_fields.indexOf('self_size'), iEc = m.node_fields.indexOf('edge_count');
const eType = m.edge_fields.indexOf('type'), eName = m.edge_fields.indexOf('name_or_index'), eTo = m.edge_fields.indexOf('to_node');
const key = (i) => { const t = types[s.nodes[i + iType]]; let n = s.strings[s.nodes[i + iName]]; if (t.includes('string')) n = ''; return `${t}:${String(n).slice(0, 50)}`; };
const parent = new Map(); const propsOf = new Map(); let e = 0;
for (let i = 0; i < s.nodes.length; i += F) {
  const ec = s.nodes[i + iEc];
  for (let j = 0; j < ec; j++, e += E) {
    const to = s.edges[e + eTo]; const et = etypes[s.edges[e + eType]]; if (et === 'weak' || et === 'shortcut') continue;
    const name = et === 'element' || et === 'hidden' ? `[${s.edges[e + eName]}]` : s.strings[s.edges[e + eName]];
    if (!parent.has(to)) parent.set(to, [i, name]);
    if (key(to) === 'array:(object properties)' || key(to) === 'array:(object elements)') propsOf.set(i, (propsOf.get(i) || 0) + s.nodes[to + iSize]);
  }
}
const by = new Map();
for (const [i, sz] of propsOf) {
  if (sz < 4000) continue;
  let chain = key(i); let cur = i;
  for (let d = 0; d < 6; d++) { const p = parent.get(cur); if (!p) break; chain = key(p[0]) + '.' + String(p[1]).slice(0,30) + ' > ' + chain; cur = p[0]; }
  const v = by.get(chain) || [0, 0]; v[0] += sz; v[1]++; by.set(chain, v);
}
for (const [k, [sz, c]] of [...by].sort((a, b) => b[1][0] - a[1][0]).slice(0, 15)) console.log((sz / 1e3).toFixed(0).padStart(8), 'KB', String(c).padStart(6), k);

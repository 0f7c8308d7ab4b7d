const fs = require('fs');
const s = JSON.parse(fs.readFileSync(process.argv[2], 'utf8'));
const m = s.snapshot.meta; const F = m.node_fields.length; const types = m.node_types[0];
const iType = m.node_fields.indexOf('type'), iName = m.node_fields.indexOf('name'), iSize = m.node_fields.indexOf('self_size');
const by = new Map(); let total = 0;
for (let i = 0; i < s.nodes.length; i += F) {
  const t = types[s.nodes[i + iType]]; let n = s.strings[s.nodes[i + iName]];
  if (t === 'string' || t === 'concatenated string' || t === 'sliced string') n = n.length > 40 ? `len>40` : 'short';
  const k = `${t}:${String(n).slice(0, 60)}`; const sz = s.nodes[i + iSize]; total += sz;
  const e = by.get(k) || [0, 0]; e[0] += sz; e[1]++; by.set(k, e);
}
console.log('total', (total / 1e6).toFixed(1), 'MB');
for (const [k, [sz, c]] of [...by].sort((a, b) => b[1][0] - a[1][0]).slice(0, Number(process.argv[3] || 40))) console.log((sz / 1e3).toFixed(0).padStart(8), 'KB', String(c).padStart(7), k);

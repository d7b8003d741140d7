// report.mjs - the op benchmark's page and raw figures from time-ops.mjs's
// results.
//
//   node report.mjs --cases cases.tsv --results results.jsonl --meta meta.tsv
//                   --json results.json --md performance-ops.md [--stat p10]
//
// A cell is the median of the round medians (--stat p10: of the rounds'
// 10th percentiles, for a machine busy with other work, where a run that
// outlasts its time slice waits for the next one and the median of runs of
// a few ms measures the scheduler). A family's figure is the
// geometric mean over its shapes of each configuration's time over ORT's
// (shapes where either side failed are left out and counted). Flags:
//   ref      a delegate step ran a reference implementation (oneDNN's
//            `ref:*`: implementation names as `strata-run --profile` prints
//            them, the zoo page's source too);
//   portable an instruction of a delegated program ran on a portable kernel
//            (share of the profiled run, shown from 5%);
//   mismatch an output's rel-L2 against ORT's above 1e-4 (1e-2 for
//            quantized outputs, where one rounding step is 4e-3).
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cpuDescription } from '../peer/logs.mjs';

const args = {};
for (let i = 2; i + 1 < process.argv.length; i += 2)
  args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];

const QUANTIZED = new Set(['QuantizeLinear', 'DynamicQuantizeLinear', 'QLinearConv', 'QLinearMatMul']);
const REL_L2 = 1e-4, REL_L2_QUANTIZED = 1e-2;
const PORTABLE_SHARE = 0.05;

const median = (xs) => {
  const s = [...xs].sort((a, b) => a - b), m = Math.floor(s.length / 2);
  return s.length % 2 ? s[m] : (s[m - 1] + s[m]) / 2;
};
const geo = (xs) => Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);

// --- Collect.
const meta = Object.fromEntries(readFileSync(args.meta, 'utf8').split('\n').filter(Boolean)
  .map((l) => l.split('\t')));
const cases = readFileSync(args.cases, 'utf8').split('\n').filter(Boolean).map((l) => {
  const [id, family, label, source, ops, opset] = l.split('\t');
  return { id, family, label, source, ops: ops.split(','), opset: +opset };
});
const results = new Map();
for (const line of readFileSync(args.results, 'utf8').split('\n').filter(Boolean)) {
  const r = JSON.parse(line);
  results.set(r.id, r);
}
// The configurations this run timed (run-ops.sh --configs), in this order.
const CONFIGS = ['portable', 'onednn', 'xnnpack']
  .filter((c) => [...results.values()].some((r) => r.configs?.[c]));

// One side of a case: the median over rounds of each round's statistic, or
// the reason there is none.
const STAT = args.stat === 'p10' ? 'p10_ms' : 'median_ms';
function cell(side) {
  if (!side) return { error: 'not run' };
  if (side.error) return { error: side.error };
  if (!side.rounds?.length) return { error: 'no rounds' };
  const medians = side.rounds.map((r) => r[STAT]);
  const ms = median(medians);
  // strata-run prints ms with 3 decimals: 0.000 is below 0.0005 ms, and
  // counts as that (an upper bound) in the ratios.
  return { ms: ms > 0 ? ms : 0.0005, below: !(ms > 0), lo: Math.min(...medians), hi: Math.max(...medians) };
}

// Flags of a delegated program from its profile.
function flags(side, config, quantized) {
  const out = { ref: [], portable: [], mismatch: null, unchecked: false };
  const p = side?.profile;
  if (p && config !== 'portable') {
    const total = p.instructions.reduce((s, i) => s + i.ns, 0) || 1;
    const refs = new Map();
    for (const s of p.steps)
      if (/^ref\b/.test(s.impl)) refs.set(`${s.op} ${s.impl}`, (refs.get(`${s.op} ${s.impl}`) ?? 0) + s.ns);
    out.ref = [...refs].map(([k, ns]) => `${k} ${(100 * ns / total).toFixed(0)}%`);
    const kernels = new Map();
    for (const i of p.instructions)
      if (i.label.startsWith('kernel ')) kernels.set(i.label.slice(7), (kernels.get(i.label.slice(7)) ?? 0) + i.ns);
    out.portable = [...kernels].filter(([, ns]) => ns / total >= PORTABLE_SHARE)
      .sort((a, b) => b[1] - a[1]).map(([k, ns]) => `${k} ${(100 * ns / total).toFixed(0)}%`);
    out.delegated = p.instructions.some((i) => i.label.startsWith('delegate '));
  }
  if (side?.expect?.length) {
    const worst = Math.max(...side.expect.map((e) => (Number.isFinite(e.rel_l2) ? e.rel_l2 : Infinity)));
    if (worst > (quantized ? REL_L2_QUANTIZED : REL_L2)) out.mismatch = worst;
  } else if (side && !side.error) {
    out.unchecked = true;
  }
  return out;
}

const rows = cases.map((c) => {
  const r = results.get(c.id) ?? { error: 'not run' };
  const ort = r.error ? { error: r.error } : cell(r.ort);
  const row = { ...c, runs: r.runs, ort };
  for (const config of CONFIGS) {
    const side = r.configs?.[config];
    const x = r.error ? { error: r.error } : cell(side);
    x.flags = flags(side, config, QUANTIZED.has(c.family));
    if (x.ms !== undefined && ort.ms > 0) x.ratio = x.ms / ort.ms;
    row[config] = x;
  }
  return row;
});

const families = [];
for (const c of cases) if (!families.includes(c.family)) families.push(c.family);
const familyRows = families.map((family) => {
  const of = rows.filter((r) => r.family === family);
  const f = { family, shapes: of.length };
  const ortMs = of.filter((r) => r.ort.ms > 0).map((r) => r.ort.ms);
  f.ort_ms = ortMs.length ? geo(ortMs) : undefined;
  for (const config of CONFIGS) {
    const ratios = of.filter((r) => r[config].ratio !== undefined).map((r) => r[config].ratio);
    f[config] = { ratio: ratios.length ? geo(ratios) : undefined, timed: ratios.length,
      missing: of.length - ratios.length };
  }
  return f;
});

Object.assign(meta, {
  ort_version: [...results.values()].find((r) => r.ort_version)?.ort_version ?? 'unknown',
  cpu: cpuDescription(), cores: os.cpus().length, memory_gib: +(os.totalmem() / 2 ** 30).toFixed(1),
  node: process.version, os: `${os.type()} ${os.release()}`,
});
mkdirSync(path.dirname(args.json), { recursive: true });
writeFileSync(args.json, JSON.stringify({ meta, families: familyRows, cases: rows }, null, 1) + '\n');

// --- Markdown.
const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms >= 1 ? ms.toFixed(2) : ms >= 0.01 ? ms.toFixed(3) : ms > 0 ? ms.toPrecision(2) : '<0.001');
const esc = (s) => String(s).replace(/\|/g, '\\|');
const na = (x) => `n/a (${esc(x.error ?? 'not run')})`;
const ratioText = (x) => (x === undefined ? '—' : `${x.toFixed(2)}x`);
const bold = (x) => (x !== undefined && x > 1.0 ? `**${ratioText(x)}**` : ratioText(x));

function cellText(x) {
  if (x.ms === undefined) return na(x);
  return x.below ? `<0.001 (≤ ${bold(x.ratio)})` : `${fmt(x.ms)} (${bold(x.ratio)})`;
}
// Per-run overhead: the one-element Add that run-ops.sh times first.
const floor = results.get('_floor');
const ortFloorMs = floor ? cell(floor.ort).ms : undefined;
const floorText = floor ? [['ORT', cell(floor.ort)], ...CONFIGS.map((c) => [c, cell(floor.configs?.[c])])]
  .map(([name, x]) => `${x.ms === undefined ? 'n/a' : x.below ? '<0.001' : fmt(x.ms)} ms on ${name}`).join(', ') : '';
function notes(row) {
  const n = [];
  if (ortFloorMs > 0 && row.ort.ms < 3 * ortFloorMs) n.push('ORT within 3x its per-run floor');
  for (const config of CONFIGS) {
    const f = row[config].flags;
    if (f.ref.length) n.push(`${config}: ref ${f.ref.join(', ')}`);
    if (f.portable.length) n.push(`${config}: portable ${f.portable.join(', ')}`);
    if (f.mismatch !== null) n.push(`${config}: **mismatch** rel-L2 ${f.mismatch.toExponential(1)}`);
  }
  return esc(n.join('; '));
}

const lines = [
  '# Op benchmark: Strata against ONNX Runtime, op family by op family', '',
  '<!-- Written by benchmarks/ops/run-ops.sh (report.mjs); do not edit by hand. -->', '',
  'Every op type of the importer\'s table (`strata-translate --list-onnx-ops`), at two or three',
  'shapes taken from the model zoo and the wild corpus, as a one-node ONNX model (a few exporter',
  `idioms have two to five nodes), compiled for ${CONFIGS.map((c) => (c === 'portable' ? 'the portable kernels' : `\`--backend ${c}\``)).join(', ')}`,
  'and timed against ONNX Runtime in the same run. The shape table, the op',
  'types it leaves out and why, and how to rerun: `benchmarks/ops/README.md`.', '',
  '## Method', '',
  `- ${meta.threads} thread(s) for ORT (intra-op) and the delegates; ORT ${meta.ort_version} (npm onnxruntime-node, CPU, graph optimisation level all, in process), Strata \`strata-run --bench N --threads ${meta.threads}\` in a fresh process per round.`,
  `- Per case: ${meta.rounds} round(s) alternating ORT and each program, ${meta.runs} timed runs per round at least, more to fill ${meta.min_ms} ms (from a 3-run probe of ORT), after max(1, N/10) warm-up runs; the same count for every side, except that a side whose check run says a round would last over ${Math.max(500, 10 * meta.min_ms)} ms runs fewer (at least 3). A cell is the median over rounds of ${STAT === 'p10_ms' ? 'each round\'s 10th percentile (`--stat p10`: the machine was busy with other work, and the median of runs of a few ms then measures the scheduler)' : 'the round medians'}, with its ratio to ORT; **bold** is slower than ORT.`,
  `- A family's figure is the geometric mean of the ratios over its shapes. Round 1 checks each program's outputs against ORT's (rel-L2 limit ${REL_L2}, ${REL_L2_QUANTIZED} for quantized outputs) and profiles the delegated programs (\`--profile-tsv\`).`,
  '- Notes name each reference implementation a delegate step ran (`ref:*`, with its share of the profiled run), each portable kernel a delegated program ran (from 5% of the run), each output mismatch.',
  '- ORT is timed through its node binding (`session.run`, inputs bound per run) and Strata inside `strata-run` (inputs set before the timed runs): for cases of a few microseconds the binding\'s overhead favours Strata.'
    + (floor ? ` A run of a one-element Add (nothing to compute) takes ${floorText}.` : ''),
  '',
  '## Machine', '',
  `- ${meta.cpu}, ${meta.cores} cores, ${meta.memory_gib} GiB; ${meta.os}, node ${meta.node}.`,
  `- Run ${meta.started} to ${meta.finished ?? '?'}, load average ${meta.loadavg} at the start and ${meta.loadavg_end ?? '?'} at the end; commit ${meta.commit}.`,
  '',
  '## Summary', '',
];

for (const config of ['onednn', 'xnnpack', 'portable'].filter((c) => CONFIGS.includes(c))) {
  const timed = familyRows.filter((f) => f[config].ratio !== undefined);
  const slower = timed.filter((f) => f[config].ratio > 1.0).sort((a, b) => b[config].ratio - a[config].ratio);
  const none = familyRows.filter((f) => f[config].ratio === undefined
    && rows.some((r) => r.family === f.family && r.ort.error !== 'not run')).map((f) => f.family);
  const all = rows.filter((r) => r[config].ratio !== undefined).map((r) => r[config].ratio);
  lines.push(`- **${config}**: ${slower.length} of ${timed.length} families slower than ORT`
    + (all.length ? ` (geometric mean over all ${all.length} timed cases ${ratioText(geo(all))})` : '')
    + (config === 'portable' ? '.' : `: ${slower.map((f) => `${f.family} ${ratioText(f[config].ratio)}`).join(', ') || 'none'}.`)
    + (none.length ? ` Not timed at all: ${none.join(', ')}.` : ''));
}
const refCells = [], mismatches = [];
const portableCases = {}, portableKernels = {}, undelegated = {};   // per configuration
for (const r of rows)
  for (const config of CONFIGS) {
    const f = r[config].flags;
    if (f.ref.length) refCells.push(`${r.id} (${r.family} ${r.label}) ${config}: ${f.ref.join(', ')}`);
    if (f.portable.length && config !== 'portable') {
      portableCases[config] = (portableCases[config] ?? 0) + 1;
      if (!f.delegated) undelegated[config] = (undelegated[config] ?? 0) + 1;
      for (const k of f.portable) {
        const name = k.replace(/ \d+%$/, '');
        portableKernels[config] = portableKernels[config] ?? {};
        portableKernels[config][name] = (portableKernels[config][name] ?? 0) + 1;
      }
    }
    if (f.mismatch !== null) mismatches.push(`${r.id} (${r.family} ${r.label}) ${config}: rel-L2 ${f.mismatch.toExponential(1)}`);
  }
lines.push(`- Reference implementations (${refCells.length} cells): ${refCells.join('; ') || 'none'}.`);
const nearFloor = rows.filter((r) => ortFloorMs > 0 && r.ort.ms < 3 * ortFloorMs);
if (nearFloor.length)
  lines.push(`- ${nearFloor.length} cases where ORT's time is within 3x its per-run floor (${fmt(ortFloorMs)} ms; its binding's overhead is then a large part of it): ${nearFloor.map((r) => r.id).join(', ')}.`);
lines.push(`- Output mismatches against ORT (${mismatches.length}): ${mismatches.join('; ') || 'none'}.`);
const worst = rows.filter((r) => r.onednn.ratio !== undefined).sort((a, b) => b.onednn.ratio - a.onednn.ratio).slice(0, 10);
lines.push(`- Worst onednn cases: ${worst.map((r) => `${r.id} ${ratioText(r.onednn.ratio)} (${esc(r.label)})`).join(', ')}.`);
for (const config of CONFIGS.filter((c) => c !== 'portable')) {
  const kernels = Object.entries(portableKernels[config] ?? {}).sort((a, b) => b[1] - a[1]);
  lines.push(`- ${config} programs that ran portable kernels (from 5% of the run; per case in the notes): ${portableCases[config] ?? 0} cases, `
    + `${undelegated[config] ?? 0} of them with nothing delegated; by kernel (cases): ${kernels.map(([k, n]) => `${k} ${n}`).join(', ') || 'none'}.`);
}
const notRun = rows.filter((r) => r.ort.error === 'not run');
if (notRun.length) lines.push(`- Not run (the run stopped before them): ${notRun.length} cases.`);
const ortFailed = rows.filter((r) => r.ort.ms === undefined && r.ort.error !== 'not run');
if (ortFailed.length) lines.push(`- ORT could not run: ${ortFailed.map((r) => `${r.id} (${esc(r.ort.error)})`).join(', ')}.`);
lines.push('');

lines.push('## Families', '', 'Geometric mean over the family\'s shapes of Strata / ORT (shapes timed on both sides; ORT: geometric mean of its times).', '',
  `| family | shapes | ORT ms | ${CONFIGS.join(' | ')} |`, `|---|---:|---:|${CONFIGS.map(() => '---:|').join('')}`);
for (const f of familyRows) {
  const c = (config) => (f[config].ratio === undefined ? 'n/a'
    : `${bold(f[config].ratio)}${f[config].missing ? ` (${f[config].timed} of ${f.shapes})` : ''}`);
  lines.push(`| ${esc(f.family)} | ${f.shapes} | ${f.ort_ms !== undefined ? fmt(f.ort_ms) : 'n/a'} | ${CONFIGS.map(c).join(' | ')} |`);
}
lines.push('', '## Cases', '', 'Milliseconds (ratio to ORT).', '',
  `| family | case | shape | from | ORT ms | ${CONFIGS.join(' | ')} | notes |`,
  `|---|---|---|---|---:|${CONFIGS.map(() => '---:|').join('')}---|`);
for (const r of rows)
  lines.push(`| ${esc(r.family)} | ${r.id} | ${esc(r.label)} | ${esc(r.source)} | ${r.ort.ms !== undefined ? fmt(r.ort.ms) : na(r.ort)} `
    + `| ${CONFIGS.map((c) => cellText(r[c])).join(' | ')} | ${notes(r)} |`);
mkdirSync(path.dirname(args.md), { recursive: true });
writeFileSync(args.md, lines.join('\n') + '\n');

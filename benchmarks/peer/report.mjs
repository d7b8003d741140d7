// report.mjs - turn run-peers.sh's manifest and logs into results.json and
// the markdown page docs/performance.md.
//
//   node report.mjs --manifest manifest.tsv --json results.json --md out.md
//
// Manifest rows (tab-separated), written by run-peers.sh:
//   meta    KEY    VALUE
//   ort     MODEL  THREADS  -       ok|failed       ort-bench JSON | stderr
//   strata  MODEL  THREADS  CONFIG  ok|failed|no-threads  strata-run log | -
// (ort and strata once per round; the rounds are merged below)
//   compile MODEL  -        CONFIG  failed          strata-compile log
//   determinism MODEL  -    CONFIG  same|differ     -
//   accuracy    MODEL  -    CONFIG  pass|fail       LOG (strata-run --expect)
import { readFileSync, writeFileSync, mkdirSync } from 'node:fs';
import os from 'node:os';
import path from 'node:path';
import { cpuDescription, parseStrataLog, reason } from './logs.mjs';

const args = {};
for (let i = 2; i + 1 < process.argv.length; i += 2)
  args[process.argv[i].replace(/^--/, '')] = process.argv[i + 1];

const CONFIGS = ['portable', 'onednn', 'direct', 'xnnpack'];

// The two costliest lines of strata-run --profile's "delegate steps by op
// and implementation" summary, e.g. "MatMul brg:avx512_core 80.2%". With
// `withKernels` (the architecture set) the portable kernels the program
// runs outside any delegate count too, summed by kernel ("portable lstm
// ..."), and every share is of the whole run.
function topSteps(file, withKernels = false) {
  let text = '';
  try { text = readFileSync(file, 'utf8'); } catch { return []; }
  const at = text.indexOf('profile: delegate steps by op and implementation');
  const steps = at < 0 ? [] : text.slice(at).split('\n').slice(1)
    .map((l) => l.trim().match(/^(\S+)\s+(\S+)\s+(\d+) steps\s+([\d.]+) ms\s+([\d.]+)%/))
    .filter(Boolean).map((m) => ({ name: `${m[1]} ${m[2]}`, n: +m[3], ms: +m[4], share: +m[5] }));
  if (!withKernels) return steps.slice(0, 2).map((x) => `${x.name} ${x.share}% (${x.n} steps)`);
  const total = +(text.match(/profile: \d+ instructions, ([\d.]+) ms/)?.[1] ?? 0);
  const kernels = new Map();
  for (const m of text.matchAll(/^\s*\d+ kernel (\S+)\s+([\d.]+) ms/gm)) {
    const k = kernels.get(m[1]) ?? { name: `portable ${m[1]}`, n: 0, ms: 0 };
    k.n += 1; k.ms += +m[2];
    kernels.set(m[1], k);
  }
  if (!(total > 0)) return [];
  return [...steps, ...kernels.values()].sort((a, b) => b.ms - a.ms).slice(0, 2)
    .map((x) => `${x.name} ${(100 * x.ms / total).toFixed(1)}% (${x.n} steps)`);
}

// --- Collect.
const meta = {};
const rows = new Map();   // "model\tthreads" -> row
const compileErrors = {}; // "model/config" -> reason
const determinism = [];   // { model, config, same }
const accuracy = [];      // { model, config, pass, relL2 (largest over outputs) }
const addRound = (row, side, result) => {
  row[side] = [...(Array.isArray(row[side]) ? row[side] : []), result];
};
const rowFor = (model, threads) => {
  const key = `${model}\t${threads}`;
  if (!rows.has(key)) rows.set(key, { model, threads: +threads, ort: null, portable: null, onednn: null, direct: null, xnnpack: null });
  return rows.get(key);
};
for (const line of readFileSync(args.manifest, 'utf8').split('\n').filter(Boolean)) {
  const [kind, a, b, c, d, e] = line.split('\t');
  if (kind === 'meta') meta[a] = b;
  else if (kind === 'compile') compileErrors[`${a}/${c}`] = `compile: ${reason(e)}`;
  else if (kind === 'ort') addRound(rowFor(a, b), 'ort', d === 'ok' ? JSON.parse(readFileSync(e, 'utf8')) : { error: reason(e) });
  else if (kind === 'profile') rowFor(a, b)[c === 'portable' ? 'portableProfile' : 'profile'] =
    topSteps(e, args.title === 'arch');
  else if (kind === 'determinism') determinism.push({ model: a, config: c, same: d === 'same' });
  else if (kind === 'accuracy') {
    let text = '';
    try { text = readFileSync(e, 'utf8'); } catch { /* reported as missing */ }
    const errors = [...text.matchAll(/rel_l2 ([\d.e+-]+)/g)].map((m) => +m[1]);
    accuracy.push({ model: a, config: c, pass: d === 'pass', relL2: errors.length ? Math.max(...errors) : undefined });
  }
  else if (kind === 'strata') {
    addRound(rowFor(a, b), c, d === 'ok' ? parseStrataLog(e)
      : d === 'no-threads' ? { error: 'strata-run has no --threads' } : { error: reason(e) });
  }
}
// Rounds: the median of the rounds' medians, with their range in place of
// p10-p90; a failed round fails the cell.
for (const row of rows.values())
  for (const side of ['ort', ...CONFIGS]) {
    const list = row[side];
    if (!Array.isArray(list)) continue;
    const failed = list.find((x) => x.median_ms === undefined);
    if (failed || list.length === 1) { row[side] = failed ?? list[0]; continue; }
    const medians = list.map((x) => x.median_ms).sort((x, y) => x - y);
    const mid = Math.floor(medians.length / 2);
    row[side] = {
      ...list[0],
      median_ms: medians.length % 2 ? medians[mid] : (medians[mid - 1] + medians[mid]) / 2,
      p10_ms: medians[0], p90_ms: medians[medians.length - 1],
      runs: list.reduce((n, x) => n + (x.runs ?? 0), 0), rounds: list.length, round_medians_ms: medians,
    };
  }
for (const row of rows.values())
  for (const config of CONFIGS)
    if (!row[config] && compileErrors[`${row.model}/${config}`])
      row[config] = { error: compileErrors[`${row.model}/${config}`] };

const rowList = [...rows.values()];
const ortVersion = rowList.find((r) => r.ort?.ort_version)?.ort.ort_version ?? 'unknown';
meta.ort_version = ortVersion;
meta.cpu = cpuDescription();
meta.cores = os.cpus().length;
meta.memory_gib = +(os.totalmem() / 2 ** 30).toFixed(1);
meta.node = process.version;
meta.os = `${os.type()} ${os.release()}`;
mkdirSync(path.dirname(args.json), { recursive: true });
writeFileSync(args.json, JSON.stringify({ meta, rows: rowList }, null, 2) + '\n');

// --- Markdown.
const fmt = (ms) => (ms >= 100 ? ms.toFixed(0) : ms >= 10 ? ms.toFixed(1) : ms >= 1 ? ms.toFixed(2) : ms.toFixed(3));
const na = (r) => `n/a (${(r?.error ?? 'not run').replace(/\|/g, '\\|')})`;
const latency = (r) => (r && r.median_ms !== undefined ? `${fmt(r.median_ms)} (${fmt(r.p10_ms)}–${fmt(r.p90_ms)})` : na(r));
const ratio = (x, y) => (x !== undefined && y !== undefined && y > 0 ? `${(x / y).toFixed(2)}x` : '—');

const table = [
  '| model | threads | ORT ms | portable ms | portable / ORT | onednn ms | onednn / ORT | onednn, direct convolutions ms | direct / ORT | xnnpack ms | xnnpack / ORT | ORT session creation ms (first) | strata load + init ms (onednn), fresh process (again) | fresh / ORT first | again / ORT again |',
  '|---|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|---:|',
];
for (const r of rowList) {
  const ort = r.ort ?? { error: 'not run' };
  const ortMs = ort.median_ms;
  const direct = r.direct === null ? '—' : latency(r.direct);
  const xnnpack = r.xnnpack === null ? '—' : latency(r.xnnpack);
  // load + init of the onednn program; the portable one when onednn has none.
  let li = r.onednn?.load_init_ms, liNote = '';
  if (li === undefined && r.portable?.load_init_ms !== undefined) { li = r.portable.load_init_ms; liNote = ' (portable)'; }
  const liCell = li !== undefined ? `${fmt(li)}${liNote}`
    : r.onednn?.median_ms !== undefined || r.portable?.median_ms !== undefined ? 'n/a (strata-run prints no load/init)'
    : na(r.onednn);
  table.push(`| ${r.model} | ${r.threads} | ${latency(ort)} | ${latency(r.portable)} | ${ratio(r.portable?.median_ms, ortMs)} `
    + `| ${latency(r.onednn)} | ${ratio(r.onednn?.median_ms, ortMs)} | ${direct} | ${ratio(r.direct?.median_ms, ortMs)} `
    + `| ${xnnpack} | ${ratio(r.xnnpack?.median_ms, ortMs)} `
    + `| ${ort.session_ms !== undefined ? `${fmt(ort.session_ms)} (${fmt(ort.session_first_ms)})` : na(ort)} `
    + `| ${liCell}${r.onednn?.load_init_again_ms !== undefined ? ` (${fmt(r.onednn.load_init_again_ms)})` : ''} `
    + `| ${ratio(li, ort.session_first_ms)} | ${ratio(r.onednn?.load_init_again_ms, ort.session_ms)} |`);
}

// The zoo's summary per thread count: geometric means, the worst case, the
// five slowest models against ORT with where their time goes, and any model
// whose delegated program is slower than its portable one.
function summary() {
  const lines = [];
  const threadCounts = [...new Set(rowList.map((r) => r.threads))].sort((a, b) => a - b);
  const geo = (xs) => Math.exp(xs.reduce((s, x) => s + Math.log(x), 0) / xs.length);
  for (const t of threadCounts) {
    const at = rowList.filter((r) => r.threads === t && r.ort?.median_ms > 0);
    const one = at.filter((r) => r.onednn?.median_ms !== undefined)
      .map((r) => ({ r, x: r.onednn.median_ms / r.ort.median_ms }));
    const port = at.filter((r) => r.portable?.median_ms !== undefined)
      .map((r) => r.portable.median_ms / r.ort.median_ms);
    if (!one.length) continue;
    one.sort((a, b) => b.x - a.x);
    lines.push(`#### ${t} thread${t > 1 ? 's' : ''}`, '',
      `- onednn / ORT: geometric mean ${geo(one.map((o) => o.x)).toFixed(2)}x over ${one.length} models, `
      + `worst ${one[0].x.toFixed(2)}x (${one[0].r.model}), best ${one.at(-1).x.toFixed(2)}x (${one.at(-1).r.model}).`);
    if (port.length)
      lines.push(`- portable / ORT: geometric mean ${geo(port).toFixed(2)}x over ${port.length} models.`);
    const xnn = at.filter((r) => r.xnnpack?.median_ms !== undefined)
      .map((r) => ({ r, x: r.xnnpack.median_ms / r.ort.median_ms })).sort((a, b) => b.x - a.x);
    if (xnn.length)
      lines.push(`- xnnpack / ORT: geometric mean ${geo(xnn.map((o) => o.x)).toFixed(2)}x over ${xnn.length} models, `
        + `worst ${xnn[0].x.toFixed(2)}x (${xnn[0].r.model}), best ${xnn.at(-1).x.toFixed(2)}x (${xnn.at(-1).r.model}).`);
    lines.push(`- Not run or failed (onednn): ${at.filter((r) => r.onednn?.median_ms === undefined).map((r) => r.model).join(', ') || 'none'}.`);
    const slower = at.filter((r) => r.onednn?.median_ms > (r.portable?.median_ms ?? Infinity));
    lines.push(`- Delegated slower than portable: ${slower.map((r) => `${r.model} (${fmt(r.onednn.median_ms)} against ${fmt(r.portable.median_ms)} ms)`).join(', ') || 'none'}.`,
      '');
    if (args.title === 'arch') {
      // Every model slower than ORT, with the costliest steps of both programs.
      lines.push('Every model slower than ORT on onednn, and where the time of its onednn and portable programs goes '
        + '(`strata-run --profile`, at this thread count; delegate steps by op and implementation, portable kernels '
        + 'outside the delegate by kernel; shares of the whole run):', '',
        '| model | onednn / ORT | portable / ORT | costliest onednn steps | costliest portable kernels |',
        '|---|---:|---:|---|---|');
      for (const { r, x } of one.filter((o) => o.x > 1))
        lines.push(`| ${r.model} | ${x.toFixed(2)}x | ${ratio(r.portable?.median_ms, r.ort.median_ms)} `
          + `| ${(r.profile ?? []).join('; ') || '—'} | ${(r.portableProfile ?? []).join('; ') || '—'} |`);
    } else {
      lines.push('The five slowest against ORT, and where their delegate time goes (`strata-run --profile`, at this thread count):', '',
        '| model | onednn / ORT | costliest steps |', '|---|---:|---|');
      for (const { r, x } of one.slice(0, 5))
        lines.push(`| ${r.model} | ${x.toFixed(2)}x | ${(r.profile ?? []).join('; ') || '—'} |`);
    }
    lines.push('');
  }
  if (determinism.length) {
    const differ = determinism.filter((d) => !d.same);
    lines.push('#### Determinism', '',
      `- Two compiles of each model and configuration: ${determinism.length - differ.length} of ${determinism.length} byte-identical`
      + `${differ.length ? `; differ: ${differ.map((d) => `${d.model} (${d.config})`).join(', ')}` : ''}.`, '');
  }
  return lines.join('\n');
}

// Each program against PyTorch's reference outputs: the largest rel-L2
// over its outputs, per model and configuration.
function accuracySection() {
  if (!accuracy.length) return '';
  const configs = [...new Set(accuracy.map((x) => x.config))];
  const models = [...new Set(accuracy.map((x) => x.model))];
  const cell = (model, config) => {
    const x = accuracy.find((y) => y.model === model && y.config === config);
    if (!x) return '—';
    const value = x.relL2 === undefined ? 'no figure' : x.relL2.toExponential(1);
    return x.pass ? value : `**${value} (fail)**`;
  };
  const failed = accuracy.filter((x) => !x.pass);
  const worst = (config) => {
    const values = accuracy.filter((x) => x.config === config && x.relL2 !== undefined);
    if (!values.length) return `${config}: no figures`;
    const w = values.reduce((p, q) => (q.relL2 > p.relL2 ? q : p));
    return `${config} largest ${w.relL2.toExponential(1)} (${w.model})`;
  };
  return ['## Accuracy', '',
    '`strata-run --expect` against the PyTorch reference outputs the generator saved',
    '(`test_data_set_0`), limit rel-L2 1e-5; the largest rel-L2 over the outputs.', '',
    `- ${accuracy.length - failed.length} of ${accuracy.length} programs within 1e-5`
    + `${failed.length ? `; above: ${failed.map((x) => `${x.model} (${x.config})`).join(', ')}` : ''}.`,
    `- ${configs.map(worst).join('; ')}.`, '',
    `| model | ${configs.join(' | ')} |`, `|---|${configs.map(() => '---:').join('|')}|`,
    ...models.map((m) => `| ${m} | ${configs.map((c) => cell(m, c)).join(' | ')} |`), ''].join('\n');
}

const runs = meta.runs ?? '?';
const md = `# Performance against ONNX Runtime

Generated by \`benchmarks/peer/run-peers.sh\` (see \`benchmarks/peer/README.md\`);
do not edit by hand: rerun the script. Raw figures: \`$BUILD_DIR/peer/results.json\`.
${args.title === 'arch' ? `
The architecture set (\`models/arch.py\`, \`run-peers.sh --arch\`): networks outside
the zoo, written as their public reference implementations write them, with
seeded random weights: segmentation, detection heads, recurrent, audio,
recommendation, super-resolution, style transfer and transformers. Models
exported with dynamic axes are compiled with their shapes pinned
(\`--input-shape\`, from each model's \`compile-flags\`).
` : ''}
## Method

- **Same run, same files.** For each model the harness compiles \`model.onnx\`
  with \`strata-compile\` (portable; \`--backend onednn\`, whose default runs
  wide 3x3 convolutions on the delegate's Winograd kernel; for models that
  have convolutions, onednn with \`--backend-option winograd=false\`, direct
  convolutions only; \`--backend xnnpack\`, the XNNPACK delegate with the
  portable kernels for what it does not claim), then for each thread count runs ONNX Runtime and each
  Strata program one after the other, never two at once, on the same input
  (\`test_data_set_0/input_0.pb\`), batch 1, in ${meta.rounds ?? 1} round(s) that
  alternate the two sides, so that a slow spell of the shared machine falls
  on both.
- **ONNX Runtime**: npm \`onnxruntime-node\` ${ortVersion} (CPU execution provider,
  the library shipped in the package), \`graphOptimizationLevel: 'all'\`,
  \`executionMode: 'sequential'\`, \`intraOpNumThreads\` = threads,
  \`interOpNumThreads: 1\`; timed with \`performance.now()\` around each awaited
  \`session.run\` (which includes the node binding's per-call cost, some
  10 µs: it dominates the digits models' figures).
- **Strata**: \`strata-run X.strata --inputs test_data_set_0 --bench N --threads T\`,
  timed with \`steady_clock\` around each \`Method::execute\`.
- **Runs**: per round, max(1, N/10) untimed warm-up runs, then N =
  ${Math.ceil((+meta.runs || 0) / (+meta.rounds || 1)) || '?'} timed runs per configuration (${runs} over all rounds)${(+meta.min_ms || 0) > 0
    ? `, more for fast models: each round times at least ${meta.min_ms} ms per
  configuration, the count (the same for ORT and every Strata program, capped
  at 1000) from a 3-run probe of the onednn program at that thread count;
  \`results.json\` gives each cell's runs` : ''};
  ${(+meta.rounds || 1) > 1
    ? 'cells give the median of the rounds\' medians and, in parentheses, the\n  lowest and highest round median'
    : 'cells give the median and, in parentheses, p10–p90 (linear\n  interpolation between sorted samples, the same definition on both sides)'}.
  \`strata-run\` prints milliseconds with 3 decimals, so sub-10 µs figures
  (the digits models) are coarse.
- **Ratios** are Strata / ORT medians: below 1.00x Strata is faster.
- **Load + init.** Strata: \`load\` (\`Program::load\`: mmap of the \`.strata\`
  file and full verification) plus \`init\` (\`Program::loadMethod\`: arena
  allocation and backend delegate initialisation, e.g. oneDNN primitive
  creation), as printed by \`strata-run\` in a fresh process; in parentheses
  the same once more in that process (\`load+init again\`: oneDNN's
  primitive cache is warm). Fresh is divided by ORT's first creation in its
  fresh process, again by ORT's later creations. ORT:
  \`InferenceSession.create(path)\` (protobuf parse, graph optimisation, kernel
  creation, weight prepacking); created 6 times in one process, the median of
  the last 5 is given, the first one (which also pays ORT's one-time
  environment set-up) in parentheses. The model files are in the page cache on
  both sides.
- **n/a (reason)**: that configuration failed to compile or run; the reason is
  the tool's first error line. "—": not applicable (direct convolutions for
  models without convolutions) or no figure to divide.

## Machine

${meta.cpu}, ${meta.cores} cores, ${meta.memory_gib} GiB, ${meta.os}; node ${meta.node}.
Strata commit ${meta.commit ?? 'unknown'}. Run ${meta.started ?? '?'} to ${meta.finished ?? '?'},
load average ${meta.loadavg ?? '?'} at start, ${meta.loadavg_end ?? '?'} at the end
(the machine is shared: figures move by a few percent between runs, more at
2 threads when anything else runs).${meta.threads_flag === 'no'
  ? '\nThis \`strata-run\` had no \`--threads\` option: Strata ran on its default (one\nthread) and only at 1 thread.' : ''}

## Results

${args.title === 'zoo' || args.title === 'arch' ? `### Summary\n\n${summary()}\n### Per model\n\n` : ''}${table.join('\n')}
${accuracy.length ? `\n${accuracySection()}` : ''}`;
mkdirSync(path.dirname(args.md), { recursive: true });
writeFileSync(args.md, md);

// ort-ref.mjs - ONNX Runtime's reference outputs and latency for the
// wild-model corpus (benchmarks/wild/).
//
// Usage: node benchmarks/wild/ort-ref.mjs [OUT] [--opt all|basic|extended|disabled]
//                                         [--time-ms T] [ID...]
// For each OUT/<id>/model.onnx (OUT: build/wild) and each of its
// test_data_set_N folders (make-inputs.py): runs onnxruntime-node at one
// thread (intraOpNumThreads 1, interOpNumThreads 1, sequential) with graph
// optimisation level --opt ('all' by default) and writes the outputs as
// test_data_set_N/output_K.pb (ONNX TensorProto, graph output order). With
// another level than 'all' the outputs go to OUT/<id>/ort-LEVEL/
// test_data_set_N/ instead, so that both can be compared with Strata (ORT's
// 'all' level is known to be wrong on some graphs; see TOOLCHAIN.md). Then
// times set 0: median of N runs after 2 warm-up runs, N chosen so that the
// runs take about T ms (1500 by default; 5..50 runs). Writes OUT/<id>/ort.json
// (or ort-LEVEL.json): { ok, error, opt, median_ms, p10_ms, p90_ms, runs,
// outputs }. A model that fails is recorded there and the rest go on. A
// model with a stream/ folder (VAD) also gets OUT/<id>/ort-stream.json: the
// speech probability per chunk, the state carried from chunk to chunk.
//
// onnxruntime-node comes from build/peer/npm (scripts/install-ort.sh).
import { existsSync, mkdirSync, readFileSync, readdirSync, writeFileSync } from 'node:fs';
import { createRequire } from 'node:module';
import { dirname, join, resolve } from 'node:path';
import { fileURLToPath } from 'node:url';
import { tensorFromPb, tensorToPb } from '../peer/tensor-io.mjs';

const here = dirname(fileURLToPath(import.meta.url));
const root = resolve(here, '../..');
const args = process.argv.slice(2);
let out = join(root, 'build', 'wild');
let opt = 'all';
let timeMs = 1500;
let threads = 1;
const only = [];
for (let i = 0; i < args.length; i++) {
  if (args[i] === '--opt') opt = args[++i];
  else if (args[i] === '--time-ms') timeMs = Number(args[++i]);
  else if (args[i] === '--threads') threads = Number(args[++i]);
  else if (i === 0 && !args[i].startsWith('-') && existsSync(args[i]) &&
           !existsSync(join(args[i], 'model.onnx'))) out = resolve(args[i]);
  else only.push(args[i]);
}
const npmDir = process.env.ORT_NPM_DIR || join(root, 'build', 'peer', 'npm');
const ort = createRequire(join(npmDir, 'package.json'))('onnxruntime-node');

function loadInputs(session, dir) {
  const feeds = {};
  session.inputNames.forEach((name, k) => {
    feeds[name] = tensorFromPb(ort, join(dir, `input_${k}.pb`));
  });
  return feeds;
}

// A VAD stream (make-inputs.py's stream/): the chunks in order, each chunk's
// state outputs (outputs 1..) feeding the next chunk's state inputs; returns
// output 0 (the speech probability) per chunk.
async function runStream(session, sdir) {
  const meta = JSON.parse(readFileSync(join(sdir, 'meta.json')));
  const fixed = {};
  for (const name of meta.inputs.slice(1)) fixed[name] = tensorFromPb(ort, join(sdir, `init_${name}.pb`));
  const probs = [];
  for (let i = 0; i < meta.chunks; i++) {
    const feeds = { ...fixed, [meta.primary]: tensorFromPb(ort, join(sdir, `chunk_${String(i).padStart(4, '0')}.pb`)) };
    const r = await session.run(feeds);
    probs.push(Number(r[session.outputNames[0]].data[0]));
    meta.state_inputs.forEach((name, k) => { fixed[name] = r[session.outputNames[meta.state_outputs_from + k]]; });
  }
  return probs;
}

const pct = (sorted, p) => sorted[Math.min(sorted.length - 1, Math.floor(p * sorted.length))];

async function runModel(id) {
  const dir = join(out, id);
  const sets = readdirSync(dir).filter((d) => /^test_data_set_\d+$/.test(d)).sort();
  if (!sets.length) throw new Error('no test_data_set_N (run make-inputs.py)');
  const session = await ort.InferenceSession.create(join(dir, 'model.onnx'), {
    intraOpNumThreads: threads, interOpNumThreads: 1, executionMode: 'sequential',
    graphOptimizationLevel: opt, logSeverityLevel: 3,
  });
  const info = { ok: true, opt, threads, outputs: [] };
  for (const set of sets) {
    const feeds = loadInputs(session, join(dir, set));
    const results = await session.run(feeds);
    const dest = opt === 'all' ? join(dir, set) : join(dir, `ort-${opt}`, set);
    mkdirSync(dest, { recursive: true });
    session.outputNames.forEach((name, k) => {
      writeFileSync(join(dest, `output_${k}.pb`), tensorToPb(results[name], name));
      if (set === sets[0]) info.outputs.push({ name, type: results[name].type, dims: results[name].dims });
    });
  }
  if (opt === 'all' && existsSync(join(dir, 'stream', 'meta.json')))
    writeFileSync(join(dir, 'ort-stream.json'), JSON.stringify({ probs: await runStream(session, join(dir, 'stream')) }) + '\n');
  const feeds = loadInputs(session, join(dir, sets[0]));
  const times = [];
  for (let i = 0; i < 2; i++) await session.run(feeds);
  let t0 = performance.now();
  await session.run(feeds);
  const once = performance.now() - t0;
  const runs = Math.max(5, Math.min(50, Math.round(timeMs / Math.max(once, 1e-3))));
  for (let i = 0; i < runs; i++) {
    t0 = performance.now();
    await session.run(feeds);
    times.push(performance.now() - t0);
  }
  times.sort((a, b) => a - b);
  Object.assign(info, { runs, median_ms: pct(times, 0.5), p10_ms: pct(times, 0.1), p90_ms: pct(times, 0.9) });
  await session.release?.();
  return info;
}

const ids = only.length ? only
  : readdirSync(out).filter((d) => existsSync(join(out, d, 'model.onnx'))).sort();
let failed = 0;
for (const id of ids) {
  let info;
  try {
    info = await runModel(id);
    console.log(`${id}: ORT ${opt} median ${info.median_ms.toFixed(3)} ms (${info.runs} runs)`);
  } catch (e) {
    failed++;
    info = { ok: false, opt, error: String(e.message || e).split('\n')[0] };
    console.log(`${id}: ORT ${opt} FAILED: ${info.error}`);
  }
  if (existsSync(join(out, id)))
    writeFileSync(join(out, id, opt === 'all' ? 'ort.json' : `ort-${opt}.json`), JSON.stringify(info, null, 1) + '\n');
}
process.exit(failed ? 1 : 0);

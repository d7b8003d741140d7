// ort-bench.mjs - time ONNX Runtime (npm onnxruntime-node, CPU) on one model.
//
//   node ort-bench.mjs --ort-dir DIR --model model.onnx [--input input_0.pb]
//                      [--threads T] [--runs N] [--sessions K]
//
// --ort-dir is the folder whose node_modules holds onnxruntime-node (the
// harness installs it under $BUILD_DIR/peer/npm). Prints one JSON object on
// stdout:
//   { ort_version, threads, runs, warmup, median_ms, p10_ms, p90_ms,
//     session_ms, session_first_ms, session_all_ms }
//
// Method, kept the same as `strata-run --bench N`: max(1, N/10) warm-up runs,
// then N timed runs; p10/median/p90 with linear interpolation between the
// sorted samples. Session creation ("load + init" on ORT's side) is
// InferenceSession.create(path) from the file path: parse, graph optimisation
// (level all), kernel selection and weight prepacking. It is done K (6) times
// in this process, each session released before the next. The first one also
// pays ORT's one-time environment set-up (thread pools, allocators, logging):
// it is reported as session_first_ms, and session_ms is the median of the
// other K-1. --output-dir writes the outputs of the last run there as
// output_K.pb (graph output order), for accuracy comparisons. Imported, it
// gives the same method to other harnesses (benchmarks/ops/time-ops.mjs):
// loadOrt, sessionOptions, timeRuns.
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';
import { pathToFileURL } from 'node:url';
import { tensorFromPb, tensorToPb } from './tensor-io.mjs';

function parseArgs(argv) {
  const args = { threads: 1, runs: 50, sessions: 6 };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '').replace(/-(.)/g, (_, c) => c.toUpperCase());
    if (argv[i + 1] === undefined) throw new Error(`${argv[i]} needs a value`);
    args[key] = ['threads', 'runs', 'sessions'].includes(key) ? Number(argv[i + 1]) : argv[i + 1];
  }
  if (!args.ortDir || !args.model) throw new Error('--ort-dir and --model are required');
  return args;
}

// Same definition as strata-run's percentile(): linear interpolation.
export function percentile(sorted, p) {
  const pos = p * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

// Fallback when there is no .pb: random float32 data of the reported shape.
function randomTensor(ort, meta) {
  if (meta.type !== 'float32') throw new Error(`no .pb input and input '${meta.name}' is ${meta.type}`);
  const dims = meta.shape.map((d) => (typeof d === 'number' && d > 0 ? d : 1));
  const data = new Float32Array(dims.reduce((a, b) => a * b, 1));
  for (let i = 0; i < data.length; ++i) data[i] = Math.random() * 2 - 1;
  return new ort.Tensor('float32', data, dims);
}

// onnxruntime-node from the folder whose node_modules holds it.
export function loadOrt(ortDir) {
  return createRequire(path.join(path.resolve(ortDir), 'package.json'))('onnxruntime-node');
}

// The session options of every measurement: CPU, T intra-op threads,
// sequential, graph optimisation level all.
export function sessionOptions(threads) {
  return {
    executionProviders: ['cpu'],
    intraOpNumThreads: threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
  };
}

// max(1, N/10) warm-up runs, then N timed runs: median, p10, p90 in ms.
// `onLast` receives the outputs of the last timed run.
export async function timeRuns(session, feeds, runs, onLast = null) {
  const warmup = Math.max(1, Math.floor(runs / 10));
  for (let i = 0; i < warmup; ++i) await session.run(feeds);
  const ms = [];
  let results = null;
  for (let i = 0; i < runs; ++i) {
    const start = performance.now();
    results = await session.run(feeds);
    ms.push(performance.now() - start);
  }
  if (onLast && results) onLast(results);
  ms.sort((a, b) => a - b);
  return { runs, warmup, median_ms: percentile(ms, 0.5), p10_ms: percentile(ms, 0.1), p90_ms: percentile(ms, 0.9) };
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const ort = loadOrt(args.ortDir);
  const options = sessionOptions(args.threads);

  // Session creation, K times; keep the final one for the timed runs.
  const sessionMs = [];
  let session = null;
  for (let k = 0; k < Math.max(1, args.sessions); ++k) {
    if (session) await session.release();
    const start = performance.now();
    session = await ort.InferenceSession.create(args.model, options);
    sessionMs.push(performance.now() - start);
  }

  // Feeds: the first input from the .pb file when given, random otherwise.
  const feeds = {};
  session.inputNames.forEach((name, i) => {
    const meta = (session.inputMetadata || [])[i] || { name, type: 'float32', shape: [] };
    const file = i === 0 && args.input ? args.input
      : args.input && path.join(path.dirname(args.input), `input_${i}.pb`);
    feeds[name] = file && existsSync(file) ? tensorFromPb(ort, file) : randomTensor(ort, meta);
  });

  const timed = await timeRuns(session, feeds, args.runs, args.outputDir && ((results) => {
    mkdirSync(args.outputDir, { recursive: true });
    session.outputNames.forEach((name, k) => writeFileSync(
      path.join(args.outputDir, `output_${k}.pb`), tensorToPb(results[name], name)));
  }));
  await session.release();

  const later = (sessionMs.length > 1 ? sessionMs.slice(1) : sessionMs).sort((a, b) => a - b);
  console.log(JSON.stringify({
    ort_version: ort.env.versions?.node ?? 'unknown',
    threads: args.threads, ...timed,
    session_ms: percentile(later, 0.5), session_first_ms: sessionMs[0],
    session_all_ms: sessionMs,
  }));
}

// A command when run, a module (the helpers above) when imported.
if (process.argv[1] && import.meta.url === pathToFileURL(path.resolve(process.argv[1])).href) {
  main().catch((e) => {
    console.error(`ort-bench: ${e.message ?? e}`);
    process.exit(1);
  });
}

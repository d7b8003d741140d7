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
// other K-1.
import { createRequire } from 'node:module';
import { readFileSync, existsSync } from 'node:fs';
import path from 'node:path';
import { performance } from 'node:perf_hooks';

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
function percentile(sorted, p) {
  const pos = p * (sorted.length - 1);
  const lo = Math.floor(pos);
  const hi = Math.min(lo + 1, sorted.length - 1);
  return sorted[lo] + (sorted[hi] - sorted[lo]) * (pos - lo);
}

// --- Minimal ONNX TensorProto reader: dims (1), data_type (2), float_data (4),
// --- int32_data (5), int64_data (7), name (8), raw_data (9). Enough for the
// --- test_data_set_N/input_N.pb files of the shared models.
function readVarint(buf, at) {
  let value = 0n, shift = 0n, byte;
  do {
    byte = buf[at.pos++];
    value |= BigInt(byte & 0x7f) << shift;
    shift += 7n;
  } while (byte & 0x80);
  return value;
}

function parseTensorProto(buf) {
  const t = { dims: [], dataType: 0, raw: null, floats: [], ints: [] };
  const at = { pos: 0 };
  while (at.pos < buf.length) {
    const key = Number(readVarint(buf, at));
    const field = key >> 3, wire = key & 7;
    if (wire === 0) {                       // varint
      const v = readVarint(buf, at);
      if (field === 1) t.dims.push(Number(BigInt.asIntN(64, v)));
      else if (field === 2) t.dataType = Number(v);
      else if (field === 5 || field === 7) t.ints.push(BigInt.asIntN(64, v));
    } else if (wire === 2) {                // length-delimited
      const len = Number(readVarint(buf, at));
      const bytes = buf.subarray(at.pos, at.pos + len);
      at.pos += len;
      if (field === 9) t.raw = bytes;
      else if (field === 8) t.name = bytes.toString('utf8');
      else if (field === 1 || field === 5 || field === 7) {   // packed varints
        const sub = { pos: 0 };
        while (sub.pos < bytes.length) {
          const v = BigInt.asIntN(64, readVarint(bytes, sub));
          if (field === 1) t.dims.push(Number(v)); else t.ints.push(v);
        }
      } else if (field === 4) {             // packed floats
        const copy = Uint8Array.from(bytes);
        t.floats.push(...new Float32Array(copy.buffer));
      }
    } else if (wire === 5) {                // fixed32 (unpacked float_data)
      if (field === 4) t.floats.push(buf.readFloatLE(at.pos));
      at.pos += 4;
    } else if (wire === 1) {
      at.pos += 8;
    } else {
      throw new Error(`unsupported protobuf wire type ${wire}`);
    }
  }
  return t;
}

// ONNX data_type -> [ORT tensor type, typed array constructor].
const TYPES = {
  1: ['float32', Float32Array], 2: ['uint8', Uint8Array], 3: ['int8', Int8Array],
  6: ['int32', Int32Array], 7: ['int64', BigInt64Array], 9: ['bool', Uint8Array],
  11: ['float64', Float64Array],
};

function tensorFromPb(ort, file) {
  const t = parseTensorProto(readFileSync(file));
  const entry = TYPES[t.dataType];
  if (!entry) throw new Error(`${file}: ONNX data_type ${t.dataType} not supported`);
  const [type, Ctor] = entry;
  let data;
  if (t.raw) data = new Ctor(Uint8Array.from(t.raw).buffer);   // copy: aligned
  else if (type === 'float32') data = Float32Array.from(t.floats);
  else if (type === 'int64') data = BigInt64Array.from(t.ints);
  else data = Ctor.from(t.ints.map(Number));
  return new ort.Tensor(type, data, t.dims);
}

// Fallback when there is no .pb: random float32 data of the reported shape.
function randomTensor(ort, meta) {
  if (meta.type !== 'float32') throw new Error(`no .pb input and input '${meta.name}' is ${meta.type}`);
  const dims = meta.shape.map((d) => (typeof d === 'number' && d > 0 ? d : 1));
  const data = new Float32Array(dims.reduce((a, b) => a * b, 1));
  for (let i = 0; i < data.length; ++i) data[i] = Math.random() * 2 - 1;
  return new ort.Tensor('float32', data, dims);
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const require = createRequire(path.join(path.resolve(args.ortDir), 'package.json'));
  const ort = require('onnxruntime-node');
  const options = {
    executionProviders: ['cpu'],
    intraOpNumThreads: args.threads,
    interOpNumThreads: 1,
    graphOptimizationLevel: 'all',
    executionMode: 'sequential',
  };

  // Session creation, K times; keep the last session for the timed runs.
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

  const warmup = Math.max(1, Math.floor(args.runs / 10));
  for (let i = 0; i < warmup; ++i) await session.run(feeds);
  const ms = [];
  for (let i = 0; i < args.runs; ++i) {
    const start = performance.now();
    await session.run(feeds);
    ms.push(performance.now() - start);
  }
  await session.release();
  ms.sort((a, b) => a - b);

  const later = (sessionMs.length > 1 ? sessionMs.slice(1) : sessionMs).sort((a, b) => a - b);
  console.log(JSON.stringify({
    ort_version: ort.env.versions?.node ?? 'unknown',
    threads: args.threads, runs: args.runs, warmup,
    median_ms: percentile(ms, 0.5), p10_ms: percentile(ms, 0.1), p90_ms: percentile(ms, 0.9),
    session_ms: percentile(later, 0.5), session_first_ms: sessionMs[0],
    session_all_ms: sessionMs,
  }));
}

main().catch((e) => {
  console.error(`ort-bench: ${e.message ?? e}`);
  process.exit(1);
});

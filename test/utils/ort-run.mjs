// ort-run.mjs - run an ONNX model in ONNX Runtime (npm onnxruntime-node,
// CPU, graph optimisation level all) for the lit tests.
//
//   node ort-run.mjs --ort-dir DIR --model m.onnx --inputs DIR
//        [--agree-with output_0.npy [--min-agreement 0.99]]
//     Runs on DIR/input_N.pb. With --agree-with (Strata's output of the
//     same input, from strata-run --output-dir), counts the elements of
//     output 0 that differ by at most one quantization step of that output,
//     the step being max|y| / 127 (symmetric int8's scale for it), and fails
//     below --min-agreement of them.
//   node ort-run.mjs --ort-dir DIR --model m.onnx --images X.npy --labels Y.npy
//     Classification accuracy over the images (one sample per leading
//     index), printed as strata-eval prints it.
//   node ort-run.mjs --ort-dir DIR --model m.onnx --images X.npy --outputs-npy Y.npy
//     Output 0 of every image, stacked along a new leading axis, as a
//     float32 .npy (a reference over a whole data set).
//   node ort-run.mjs --ort-dir DIR --model m.onnx --make-reference DIR
//        [--seed N] [--input-shape name=2x3] [--input-value name=16000]
//     Writes DIR/input_N.pb, pseudo-random inputs of the model's declared
//     (static) shapes and types (floats uniform in [-2, 2), integers in
//     [0, 4), uint8 in [0, 256), booleans), or reads those already there, runs them and writes
//     ONNX Runtime's outputs as DIR/output_N.pb: the reference for
//     strata-run --expect.
//   --opt-level L   ONNX Runtime's graph optimisation level (all; disabled
//                   runs the QDQ graph as written, in float)
import { createRequire } from 'node:module';
import { existsSync, mkdirSync, writeFileSync } from 'node:fs';
import path from 'node:path';
import { readNpy, tensorFromPb, tensorToPb } from '../../benchmarks/peer/tensor-io.mjs';

function parseArgs(argv) {
  const args = { minAgreement: 0.99 };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '').replace(/-(.)/g, (_, c) => c.toUpperCase());
    if (argv[i + 1] === undefined) throw new Error(`${argv[i]} needs a value`);
    args[key] = key === 'minAgreement' ? Number(argv[i + 1]) : argv[i + 1];
  }
  if (!args.ortDir || !args.model) throw new Error('--ort-dir and --model are required');
  if (!args.inputs && !args.makeReference &&
      !(args.images && (args.labels || args.outputsNpy)))
    throw new Error('give --inputs DIR, --make-reference DIR, or --images and --labels or --outputs-npy');
  return args;
}

async function accuracy(ort, session, args) {
  const images = readNpy(args.images);
  const labels = args.labels ? readNpy(args.labels) : null;
  const n = images.dims[0];
  const per = images.data.length / n;
  const meta = session.inputMetadata?.[0];
  const dims = meta?.shape?.every((d) => typeof d === 'number' && d > 0)
    ? meta.shape : [1, ...images.dims.slice(1)];
  let correct = 0;
  const outputs = [];
  let outDims = [];
  for (let i = 0; i < n; ++i) {
    const sample = images.data.slice(i * per, (i + 1) * per);
    const out = await session.run({ [session.inputNames[0]]: new ort.Tensor('float32', sample, dims) });
    const y = out[session.outputNames[0]].data;
    outputs.push(Float32Array.from(y));
    outDims = out[session.outputNames[0]].dims;
    let best = 0;
    for (let k = 1; k < y.length; ++k) if (y[k] > y[best]) best = k;
    if (labels && BigInt(best) === BigInt(labels.data[i])) ++correct;
  }
  if (args.outputsNpy) {
    const shape = [n, ...outDims];
    const header = `{'descr': '<f4', 'fortran_order': False, 'shape': (${shape.join(', ')}${shape.length === 1 ? ',' : ''}), }`;
    const pad = 64 - ((10 + header.length + 1) % 64);
    const text = header + ' '.repeat(pad % 64) + '\n';
    const head = Buffer.alloc(10);
    head.write('\x93NUMPY', 0, 'latin1');
    head[6] = 1; head[7] = 0;
    head.writeUInt16LE(text.length, 8);
    const body = Buffer.concat(outputs.map((y) => Buffer.from(y.buffer, y.byteOffset, y.byteLength)));
    writeFileSync(args.outputsNpy, Buffer.concat([head, Buffer.from(text, 'latin1'), body]));
  }
  if (labels) console.log(`accuracy: ${(correct / n).toFixed(5)} (${correct}/${n})`);
  return true;
}

async function agreement(ort, session, args) {
  const feeds = {};
  session.inputNames.forEach((name, i) => {
    const file = path.join(args.inputs, `input_${i}.pb`);
    if (!existsSync(file)) throw new Error(`${file}: no such input`);
    feeds[name] = tensorFromPb(ort, file);
  });
  const out = await session.run(feeds);
  const got = out[session.outputNames[0]].data;
  console.log(`output 0: ${got.length} elements`);
  if (!args.agreeWith) return true;
  const want = readNpy(args.agreeWith).data;
  if (want.length !== got.length)
    throw new Error(`${args.agreeWith} has ${want.length} elements, ONNX Runtime's output ${got.length}`);
  let amax = 0;
  for (const v of want) amax = Math.max(amax, Math.abs(v));
  const step = amax / 127;
  let within = 0, worst = 0, signal = 0, noise = 0;
  for (let i = 0; i < got.length; ++i) {
    const d = Math.abs(got[i] - want[i]);
    signal += want[i] * want[i];
    noise += d * d;
    worst = Math.max(worst, d);
    if (d <= step) ++within;
  }
  const share = within / got.length;
  const pass = share >= args.minAgreement;
  console.log(`agreement: ${pass ? 'PASS' : 'FAIL'} ${within}/${got.length} elements ` +
    `(${(100 * share).toFixed(2)}%) within one step ${step.toExponential(3)}; ` +
    `worst ${(worst / step).toFixed(2)} steps; sqnr ${(10 * Math.log10(signal / noise)).toFixed(2)} dB; ` +
    `required ${(100 * args.minAgreement).toFixed(2)}%`);
  return pass;
}

// IEEE half-precision bits of a float (round to nearest even, no NaNs here).
function toHalf(value) {
  const f = new Float32Array([value]);
  const bits = new Uint32Array(f.buffer)[0];
  const sign = (bits >>> 16) & 0x8000;
  const exp = ((bits >>> 23) & 0xff) - 127 + 15;
  const mant = bits & 0x7fffff;
  if (exp <= 0) return sign;
  if (exp >= 31) return sign | 0x7c00;
  let half = sign | (exp << 10) | (mant >>> 13);
  const rest = mant & 0x1fff;
  if (rest > 0x1000 || (rest === 0x1000 && (half & 1))) ++half;
  return half;
}

async function reference(ort, session, args) {
  const dir = args.makeReference;
  mkdirSync(dir, { recursive: true });
  let state = BigInt(args.seed ?? 1);
  const next = () => {     // 64-bit LCG (Knuth's MMIX constants)
    state = BigInt.asUintN(64, state * 6364136223846793005n + 1442695040888963407n);
    return Number(state >> 11n) / 2 ** 53;
  };
  const feeds = {};
  session.inputNames.forEach((name, i) => {
    const file = path.join(dir, `input_${i}.pb`);
    if (existsSync(file)) { feeds[name] = tensorFromPb(ort, file); return; }
    const meta = session.inputMetadata[i];
    const given = (args.inputShape ?? '').split(',').find((spec) => spec.startsWith(`${name}=`));
    const dims = given ? given.slice(name.length + 1).split('x').map(Number) : meta.shape;
    if (!dims.every((d) => typeof d === 'number' && d >= 0))
      throw new Error(`input '${name}' has no static shape (${dims}); write ${file} by hand`);
    const n = dims.reduce((a, b) => a * b, 1);
    const fixed = (args.inputValue ?? '').split(',').find((spec) => spec.startsWith(`${name}=`));
    const value = fixed ? Number(fixed.slice(name.length + 1)) : undefined;
    let data;
    if (value !== undefined && meta.type === 'int64') data = BigInt64Array.from({ length: n }, () => BigInt(value));
    else if (value !== undefined && meta.type === 'float32') data = Float32Array.from({ length: n }, () => value);
    else switch (meta.type) {
      case 'float32': data = Float32Array.from({ length: n }, () => 4 * next() - 2); break;
      case 'float64': data = Float64Array.from({ length: n }, () => 4 * next() - 2); break;
      case 'float16': data = Uint16Array.from({ length: n }, () => toHalf(4 * next() - 2)); break;
      case 'int64': data = BigInt64Array.from({ length: n }, () => BigInt(Math.floor(4 * next()))); break;
      case 'int32': data = Int32Array.from({ length: n }, () => Math.floor(4 * next())); break;
      case 'bool': data = Uint8Array.from({ length: n }, () => (next() < 0.5 ? 1 : 0)); break;
      case 'uint8': data = Uint8Array.from({ length: n }, () => Math.floor(256 * next())); break;
      default: throw new Error(`input '${name}': type ${meta.type} not generated`);
    }
    feeds[name] = new ort.Tensor(meta.type, data, dims);
    writeFileSync(file, tensorToPb(feeds[name], name));
  });
  const out = await session.run(feeds);
  session.outputNames.forEach((name, i) => {
    writeFileSync(path.join(dir, `output_${i}.pb`), tensorToPb(out[name], name));
    console.log(`output ${i} '${name}': ${out[name].type} [${out[name].dims.join(', ')}]`);
  });
  return true;
}

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const require = createRequire(path.join(path.resolve(args.ortDir), 'package.json'));
  const ort = require('onnxruntime-node');
  const session = await ort.InferenceSession.create(args.model, {
    executionProviders: ['cpu'], intraOpNumThreads: 1, interOpNumThreads: 1,
    graphOptimizationLevel: args.optLevel ?? 'all', executionMode: 'sequential',
  });
  const ok = args.makeReference ? await reference(ort, session, args)
    : args.images ? await accuracy(ort, session, args) : await agreement(ort, session, args);
  await session.release();
  process.exit(ok ? 0 : 1);
}

main().catch((e) => {
  console.error(`ort-run: ${e.message ?? e}`);
  process.exit(2);
});

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
//   --opt-level L   ONNX Runtime's graph optimisation level (all; disabled
//                   runs the QDQ graph as written, in float)
import { createRequire } from 'node:module';
import { existsSync } from 'node:fs';
import path from 'node:path';
import { readNpy, tensorFromPb } from '../../benchmarks/peer/tensor-io.mjs';

function parseArgs(argv) {
  const args = { minAgreement: 0.99 };
  for (let i = 0; i < argv.length; i += 2) {
    const key = argv[i].replace(/^--/, '').replace(/-(.)/g, (_, c) => c.toUpperCase());
    if (argv[i + 1] === undefined) throw new Error(`${argv[i]} needs a value`);
    args[key] = key === 'minAgreement' ? Number(argv[i + 1]) : argv[i + 1];
  }
  if (!args.ortDir || !args.model) throw new Error('--ort-dir and --model are required');
  if (!args.inputs && !(args.images && args.labels))
    throw new Error('give --inputs DIR, or --images and --labels');
  return args;
}

async function accuracy(ort, session, args) {
  const images = readNpy(args.images);
  const labels = readNpy(args.labels);
  const n = images.dims[0];
  const per = images.data.length / n;
  const meta = session.inputMetadata?.[0];
  const dims = meta?.shape?.every((d) => typeof d === 'number' && d > 0)
    ? meta.shape : [1, ...images.dims.slice(1)];
  let correct = 0;
  for (let i = 0; i < n; ++i) {
    const sample = images.data.slice(i * per, (i + 1) * per);
    const out = await session.run({ [session.inputNames[0]]: new ort.Tensor('float32', sample, dims) });
    const y = out[session.outputNames[0]].data;
    let best = 0;
    for (let k = 1; k < y.length; ++k) if (y[k] > y[best]) best = k;
    if (BigInt(best) === BigInt(labels.data[i])) ++correct;
  }
  console.log(`accuracy: ${(correct / n).toFixed(5)} (${correct}/${n})`);
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

async function main() {
  const args = parseArgs(process.argv.slice(2));
  const require = createRequire(path.join(path.resolve(args.ortDir), 'package.json'));
  const ort = require('onnxruntime-node');
  const session = await ort.InferenceSession.create(args.model, {
    executionProviders: ['cpu'], intraOpNumThreads: 1, interOpNumThreads: 1,
    graphOptimizationLevel: args.optLevel ?? 'all', executionMode: 'sequential',
  });
  const ok = args.images ? await accuracy(ort, session, args) : await agreement(ort, session, args);
  await session.release();
  process.exit(ok ? 0 : 1);
}

main().catch((e) => {
  console.error(`ort-run: ${e.message ?? e}`);
  process.exit(2);
});

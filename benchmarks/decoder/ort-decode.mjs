// ort-decode.mjs - ONNX Runtime's decode step on a decoder with
// past_key_values inputs (models/decoder.py's with_past.onnx), as its users
// run it: one new token, the cache of `past` tokens given as inputs, the
// presents returned (and passed back as the next past).
//
//   node ort-decode.mjs --ort-dir DIR --model with_past.onnx --past P
//                       --heads H --head-dim D [--threads T] [--runs N]
//
// Prints one JSON object: { past, threads, runs, median_ms, p10_ms, p90_ms }.
import { performance } from 'node:perf_hooks';
import { loadOrt, percentile } from '../peer/ort-bench.mjs';

const args = { threads: 1, runs: 30 };
for (let i = 2; i < process.argv.length; i += 2)
  args[process.argv[i].replace(/^--/, '').replace(/-(.)/g, (_, c) => c.toUpperCase())] = process.argv[i + 1];
const ort = loadOrt(args.ortDir);
const threads = Number(args.threads), runs = Number(args.runs), past = Number(args.past);
const session = await ort.InferenceSession.create(args.model, {
  intraOpNumThreads: threads, interOpNumThreads: 1, graphOptimizationLevel: 'all',
});
const feeds = {};
for (const name of session.inputNames) {
  if (name === 'input_ids') feeds[name] = new ort.Tensor('int64', BigInt64Array.from([65n]), [1, 1]);
  else if (name === 'attention_mask') feeds[name] = new ort.Tensor('int64', new BigInt64Array(past + 1).fill(1n), [1, past + 1]);
  else if (name === 'position_ids') feeds[name] = new ort.Tensor('int64', BigInt64Array.from([BigInt(past)]), [1, 1]);
}
// The cache: [1, heads, past, head-dim] of small random values.
const heads = Number(args.heads), dim = Number(args.headDim);
for (const name of session.inputNames)
  if (name.startsWith('past_key_values')) {
    const data = new Float32Array(heads * past * dim);
    for (let i = 0; i < data.length; ++i) data[i] = Math.random() * 0.2 - 0.1;
    feeds[name] = new ort.Tensor('float32', data, [1, heads, past, dim]);
  }
const times = [];
for (let i = 0; i < runs + Math.max(1, runs / 10); ++i) {
  const start = performance.now();
  await session.run(feeds);
  const ms = performance.now() - start;
  if (i >= Math.max(1, runs / 10)) times.push(ms);
}
times.sort((a, b) => a - b);
console.log(JSON.stringify({
  past, threads, runs, median_ms: percentile(times, 0.5),
  p10_ms: percentile(times, 0.1), p90_ms: percentile(times, 0.9),
}));

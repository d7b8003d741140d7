// ort-decode.mjs - ONNX Runtime's decode step on a decoder with
// past_key_values inputs (models/decoder.py's with_past.onnx), as its users
// run it: one new token, the cache of `past` tokens given as inputs, the
// presents returned (and passed back as the next past).
//
//   node ort-decode.mjs --ort-dir DIR --model with_past.onnx --past P
//                       --heads H --head-dim D [--threads T] [--runs N]
//                       [--mode generate|repeat]
//
// --mode generate (the default) runs the steps of a generation: the cache
// starts at P + 1 - (warm-up + N) tokens and each step passes its presents
// back as the next past, one token longer, the last step's past P tokens.
// --mode repeat runs every step on the same past of P tokens.
//
// Prints one JSON object: { past, threads, runs, mode, median_ms, p10_ms,
// p90_ms }.
import { performance } from 'node:perf_hooks';
import { loadOrt, percentile } from '../peer/ort-bench.mjs';

const args = { threads: 1, runs: 30, mode: 'generate' };
for (let i = 2; i < process.argv.length; i += 2)
  args[process.argv[i].replace(/^--/, '').replace(/-(.)/g, (_, c) => c.toUpperCase())] = process.argv[i + 1];
const ort = loadOrt(args.ortDir);
const threads = Number(args.threads), runs = Number(args.runs);
const warm = Math.max(1, Math.floor(runs / 10));
const grow = args.mode === 'generate';
if (!grow && args.mode !== 'repeat') throw new Error(`--mode ${args.mode}: generate or repeat`);
// The past of the first step: generation ends at the given past.
const past = grow ? Number(args.past) + 1 - (warm + runs) : Number(args.past);
if (past < 0) throw new Error(`--past ${args.past} is shorter than the ${warm + runs} steps`);
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
for (let i = 0; i < runs + warm; ++i) {
  const start = performance.now();
  const results = await session.run(feeds);
  const ms = performance.now() - start;
  if (i >= warm) times.push(ms);
  if (!grow) continue;
  // The next step: the presents as its past, one more position.
  const length = past + i + 2;
  for (const name of session.inputNames)
    if (name.startsWith('past_key_values'))
      feeds[name] = results[name.replace('past_key_values', 'present')];
  feeds.attention_mask = new ort.Tensor('int64', new BigInt64Array(length).fill(1n), [1, length]);
  if ('position_ids' in feeds)
    feeds.position_ids = new ort.Tensor('int64', BigInt64Array.from([BigInt(length - 1)]), [1, 1]);
}
times.sort((a, b) => a - b);
console.log(JSON.stringify({
  past: Number(args.past), threads, runs, mode: args.mode,
  median_ms: percentile(times, 0.5),
  p10_ms: percentile(times, 0.1), p90_ms: percentile(times, 0.9),
}));

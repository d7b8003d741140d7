// ort-stream-state.mjs - a Silero VAD model's stream on ONNX Runtime, the
// recurrent state fed back by hand from each chunk to the next.
//   node ort-stream-state.mjs ORT_DIR model.onnx chunks.json out.json
// chunks.json: arrays of samples; out.json: the speech probability of each.
import { readFileSync, writeFileSync } from 'node:fs';
import { loadOrt } from '../peer/ort-bench.mjs';

const [ortDir, model, chunksPath, outPath] = process.argv.slice(2);
const ort = loadOrt(ortDir);
const session = await ort.InferenceSession.create(model, { intraOpNumThreads: 1 });
let state = new ort.Tensor('float32', new Float32Array(2 * 128), [2, 1, 128]);
const probs = [];
for (const chunk of JSON.parse(readFileSync(chunksPath))) {
  const feeds = { input: new ort.Tensor('float32', Float32Array.from(chunk), [1, chunk.length]), state };
  if (session.inputNames.includes('sr'))
    feeds.sr = new ort.Tensor('int64', BigInt64Array.from([16000n]), []);
  const out = await session.run(feeds);
  probs.push(out[session.outputNames[0]].data[0]);
  state = out[session.outputNames[1]];
}
writeFileSync(outPath, JSON.stringify(probs));

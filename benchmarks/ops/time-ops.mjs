// time-ops.mjs - time each op case on ONNX Runtime and on its compiled
// Strata programs, alternating, and check the programs' outputs against
// ONNX Runtime's.
//
//   node time-ops.mjs --work DIR --models DIR --bin DIR --ort-dir DIR
//        --config NAME=FLAGS... [--threads T] [--rounds R] [--runs N]
//        [--min-ms MS] [--max-runs K] [--timeout-s S] CASE...
//
// Per case (MODELS/<case>/model.onnx, inputs in test_data_set_0/):
//   - strata-compile with each configuration's FLAGS (space-separated) into
//     WORK/<case>/<NAME>.strata (a failure is recorded, its log kept);
//   - ONNX Runtime (ort-bench.mjs's session options and method) runs once
//     and writes its outputs to WORK/<case>/ort/output_K.pb;
//   - a check run of each program: `strata-run --bench 3` with --expect
//     (ORT's outputs: the log gives each output's rel-L2; report.mjs
//     applies the limit) and --profile-tsv (which implementation ran each
//     delegate step, which instructions ran on portable kernels); its
//     median is the program's probe;
//   - the run count per round: N, or more to fill MS ms (from ORT's median
//     of 3 runs; at most K), the same for ORT and every program, except
//     that a side whose probe says a round would pass 10 x MS ms (at least
//     500 ms) runs fewer (down to 3): a reference kernel 400 times slower
//     than ORT would otherwise take minutes;
//   - R rounds of: ORT timed in this process, then `strata-run --bench` on
//     each program.
// Appends one JSON line per case to WORK/results.jsonl; a failure becomes
// an `error` field there, never a stop.
import { appendFileSync, existsSync, mkdirSync, readFileSync, rmSync, writeFileSync } from 'node:fs';
import { spawnSync } from 'node:child_process';
import path from 'node:path';
import { loadOrt, sessionOptions, timeRuns } from '../peer/ort-bench.mjs';
import { parseStrataLog, reason } from '../peer/logs.mjs';
import { tensorFromPb, tensorToPb } from '../peer/tensor-io.mjs';

const args = { threads: 1, rounds: 3, runs: 5, minMs: 0, maxRuns: 2000, timeoutS: 300, cases: [] };
const flags = {};   // configuration name -> strata-compile flags
const argv = process.argv.slice(2);
for (let i = 0; i < argv.length; ++i) {
  const a = argv[i];
  if (!a.startsWith('--')) { args.cases.push(a); continue; }
  const key = a.slice(2).replace(/-(.)/g, (_, c) => c.toUpperCase());
  const value = argv[++i];
  if (key === 'config') {
    const [name, ...rest] = value.split('=');
    flags[name] = rest.join('=').split(/\s+/).filter(Boolean);
  } else {
    args[key] = ['threads', 'rounds', 'runs', 'minMs', 'maxRuns', 'timeoutS'].includes(key) ? Number(value) : value;
  }
}
const configs = Object.keys(flags);
const ort = loadOrt(args.ortDir);
const results = path.join(args.work, 'results.jsonl');

// The TSV of --profile-tsv: instructions (portable kernels or delegate
// calls) and the delegate's steps with their implementation.
function readProfile(file) {
  if (!existsSync(file)) return null;
  const profile = { instructions: [], steps: [] };
  for (const line of readFileSync(file, 'utf8').split('\n')) {
    const f = line.split('\t');
    if (f[0] === 'instruction') profile.instructions.push({ label: f[2], ns: +f[3] });
    else if (f[0] === 'step') profile.steps.push({ op: f[3], impl: f[4], layout: f[5], ns: +f[6] });
  }
  return profile;
}

// rel_l2 of each output from `strata-run --expect` ("output K: PASS|FAIL ...
// rel_l2 X"), or the reason there are none.
function readExpect(file) {
  const text = existsSync(file) ? readFileSync(file, 'utf8') : '';
  const outputs = [...text.matchAll(/^output (\d+): (?:PASS|FAIL)\b.*?rel_l2 (\S+)/gm)]
    .map((m) => ({ output: +m[1], rel_l2: Number(m[2]) }));
  return outputs;
}

// Round 0 is the check run.
function runStrata(dir, config, caseDir, runs, round) {
  const log = path.join(dir, round ? `${config}-r${round}.log` : `${config}-check.log`);
  const argsList = [path.join(dir, `${config}.strata`), '--inputs', path.join(caseDir, 'test_data_set_0'),
    '--bench', String(runs), '--threads', String(args.threads)];
  if (round === 0) {
    if (existsSync(path.join(dir, 'ort', 'output_0.pb')))
      // Every element passes here; the rel-L2 printed is judged by the report.
      argsList.push('--expect', path.join(dir, 'ort'), '--atol', '1e30', '--rtol', '0', '--rel-l2', '1e30');
    if (config !== 'portable') argsList.push('--profile-tsv', path.join(dir, `${config}.profile.tsv`));
  }
  const r = spawnSync(path.join(args.bin, 'strata-run'), argsList,
    { encoding: 'utf8', timeout: args.timeoutS * 1000, maxBuffer: 1 << 26 });
  writeFileSync(log, `${r.stdout ?? ''}${r.stderr ?? ''}`);
  if (r.error?.code === 'ETIMEDOUT' || r.signal === 'SIGTERM') return { error: `timed out after ${args.timeoutS} s` };
  if (r.signal) return { error: `killed by ${r.signal}` };
  if (r.status !== 0) return { error: reason(log) };
  const parsed = parseStrataLog(log);
  if (round === 0) {
    parsed.expect = readExpect(log);
    parsed.profile = readProfile(path.join(dir, `${config}.profile.tsv`));
  }
  return parsed;
}

async function runCase(id) {
  const caseDir = path.join(args.models, id);
  const dir = path.join(args.work, id);
  mkdirSync(dir, { recursive: true });
  const result = { id, ort_version: ort.env.versions?.node, ort: { rounds: [] }, configs: {} };
  for (const config of configs) {
    const program = path.join(dir, `${config}.strata`);
    const log = path.join(dir, `${config}.compile.log`);
    const r = spawnSync(path.join(args.bin, 'strata-compile'),
      [path.join(caseDir, 'model.onnx'), '-o', program, ...flags[config]],
      { encoding: 'utf8', timeout: args.timeoutS * 1000, maxBuffer: 1 << 26 });
    writeFileSync(log, `${r.stdout ?? ''}${r.stderr ?? ''}${r.signal ? `killed by ${r.signal}\n` : ''}`);
    if (r.status !== 0) rmSync(program, { force: true });
    result.configs[config] = existsSync(path.join(dir, `${config}.strata`)) ? { rounds: [] }
      : { error: `compile: ${reason(path.join(dir, `${config}.compile.log`))}` };
  }

  // ORT: session, feeds, outputs (the reference), the probe.
  let session = null, feeds = null, runs = args.runs;
  try {
    session = await ort.InferenceSession.create(path.join(caseDir, 'model.onnx'), sessionOptions(args.threads));
    feeds = {};
    session.inputNames.forEach((name, k) => {
      feeds[name] = tensorFromPb(ort, path.join(caseDir, 'test_data_set_0', `input_${k}.pb`));
    });
    const outputs = await session.run(feeds);
    mkdirSync(path.join(dir, 'ort'), { recursive: true });
    session.outputNames.forEach((name, k) => {
      writeFileSync(path.join(dir, 'ort', `output_${k}.pb`), tensorToPb(outputs[name], name));
    });
    const probe = await timeRuns(session, feeds, 3);
    if (args.minMs > 0)
      runs = Math.min(args.maxRuns, Math.max(args.runs, Math.ceil(args.minMs / Math.max(probe.median_ms, 1e-3))));
  } catch (e) {
    result.ort = { error: String(e.message ?? e).split('\n')[0].slice(0, 120) };
    session = null;
  }
  result.runs = runs;

  // The check runs; their medians cap the slow sides' run counts.
  const capMs = Math.max(500, 10 * args.minMs);
  const sideRuns = {};
  for (const config of configs) {
    const cell = result.configs[config];
    if (cell.error) continue;
    const r = runStrata(dir, config, caseDir, 3, 0);
    if (r.error) { result.configs[config] = { error: r.error }; continue; }
    Object.assign(cell, { expect: r.expect, profile: r.profile, load_init_ms: r.load_init_ms, probe_ms: r.median_ms });
    sideRuns[config] = Math.max(3, Math.min(runs, Math.ceil(capMs / Math.max(r.median_ms, 1e-3))));
  }

  for (let round = 1; round <= args.rounds; ++round) {
    if (session) {
      try { result.ort.rounds.push(await timeRuns(session, feeds, runs)); }
      catch (e) { result.ort = { error: String(e.message ?? e).split('\n')[0].slice(0, 120) }; session = null; }
    }
    for (const config of configs) {
      const cell = result.configs[config];
      if (cell.error) continue;
      const r = runStrata(dir, config, caseDir, sideRuns[config], round);
      if (r.error) { result.configs[config] = { error: r.error }; continue; }
      cell.rounds.push({ median_ms: r.median_ms, p10_ms: r.p10_ms, p90_ms: r.p90_ms, runs: r.runs });
    }
  }
  if (session) await session.release();
  appendFileSync(results, JSON.stringify(result) + '\n');
  const show = (c) => (c.error ? 'n/a' : c.rounds?.length ? Math.min(...c.rounds.map((x) => x.median_ms)).toFixed(3) : '?');
  console.log(`${id}: ort ${show(result.ort)} ${configs.map((c) => `${c} ${show(result.configs[c])}`).join(' ')} ms (${runs} runs)`);
}

for (const id of args.cases) {
  try { await runCase(id); }
  catch (e) {
    appendFileSync(results, JSON.stringify({ id, error: String(e.message ?? e).split('\n')[0] }) + '\n');
    console.log(`${id}: harness error: ${e.message ?? e}`);
  }
}

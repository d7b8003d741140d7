// logs.mjs - what the benchmark harnesses read from the tools' logs and
// from the machine: a failure's reason, strata-run's bench and load lines,
// the CPU. Shared by report.mjs here and benchmarks/ops/.
import { readFileSync } from 'node:fs';
import os from 'node:os';

// The line that says why a tool failed: the first that looks like an error,
// else the last one; without tool and location prefixes, short.
export function reason(file) {
  let lines = [];
  try { lines = readFileSync(file, 'utf8').split('\n').map((l) => l.trim()).filter(Boolean); }
  catch { return 'no log'; }
  const line = lines.find((l) => /error|unknown|unsupported|not supported|cannot|failed/i.test(l))
    ?? lines.at(-1) ?? `exited with no output`;
  const short = line.replace(/^.*?error:\s*/i, '').replace(/^[\w-]+:\s*/, '')
    .replace(/\s+Try:.*$/, '').replace(/\s+/g, ' ').replace(/\.$/, '');
  const shorter = short.length > 50 ? short.replace(/\s*\([^()]*\)$/, '') : short;
  return shorter.length > 50 ? `${shorter.slice(0, 47)}...` : shorter;
}

// strata-run prints `bench: N runs after W warm-up: median X ms, p10 Y ms,
// p90 Z ms` and `load: A ms, init: B ms`.
export function parseStrataLog(file) {
  const text = readFileSync(file, 'utf8');
  const bench = text.match(/bench:\s*(\d+)\s+runs after\s+(\d+)\s+warm-up:\s*median\s+([\d.]+)\s*ms,\s*p10\s+([\d.]+)\s*ms,\s*p90\s+([\d.]+)\s*ms/);
  if (!bench) return { error: reason(file) };
  const result = { runs: +bench[1], warmup: +bench[2], median_ms: +bench[3], p10_ms: +bench[4], p90_ms: +bench[5] };
  const load = text.match(/load:\s*([\d.]+)\s*ms,\s*init:\s*([\d.]+)\s*ms/);
  if (load) Object.assign(result, { load_ms: +load[1], init_ms: +load[2], load_init_ms: +load[1] + +load[2] });
  const again = text.match(/load\+init again:\s*([\d.]+)\s*ms/);
  if (again) result.load_init_again_ms = +again[1];
  return result;
}

// CPU model, family/model numbers and the vector extensions that matter here.
export function cpuDescription() {
  let info = '';
  try { info = readFileSync('/proc/cpuinfo', 'utf8'); } catch { return os.cpus()[0]?.model ?? 'unknown'; }
  const field = (name) => info.match(new RegExp(`^${name}\\s*:\\s*(.*)$`, 'm'))?.[1]?.trim();
  const flags = new Set((field('flags') ?? '').split(/\s+/));
  const isa = ['avx2', 'avx512f', 'avx512_vnni', 'avx512_bf16', 'amx_tile'].filter((f) => flags.has(f));
  return `${field('model name') ?? 'unknown CPU'} (family ${field('cpu family')}, model ${field('model')}; ${isa.join(', ') || 'no AVX2'})`;
}

#!/usr/bin/env python3
# ===- models-summary.py - the zoo and the wild corpus on oneDNN, together -===//
#
# Usage: models-summary.py --zoo PEER_RESULTS [--wild WILD_RESULTS ...]
#                          [--f64 F64_TABLE] [--out docs/performance-models.md]
#
# Reads what the two harnesses left, runs nothing:
#   PEER_RESULTS  $BUILD_DIR/peer/results.json of
#                 `benchmarks/peer/run-peers.sh --zoo [--configs onednn]`
#                 (ONNX Runtime and the onednn program, alternating rounds,
#                 at each thread count; load + init against ORT's session
#                 creation);
#   WILD_RESULTS  results.json of `benchmarks/wild/run-wild.sh` (its
#                 PIPELINES must include onednn), once per thread count
#                 (THREADS=1, THREADS=2), each from its own output folder;
#                 several runs at one thread count are rounds: each model's
#                 ratio is the median of its rounds' ratios;
#   F64_TABLE     the --json table of `benchmarks/wild/f64-ref.py --strata`
#                 (the corpus against float64 references: ORT's error and
#                 Strata's);
# and writes one page: per thread count, every model's onednn / ORT ratio,
# the geometric mean over the zoo and the corpus together, the worst model
# and the models above 1.1x; the load + init ratios of the zoo; the
# corpus's error against float64, as a multiple of ORT's.
#
# ===----------------------------------------------------------------------===//
import argparse
import json
import math


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def zoo_rows(path):
    data = json.load(open(path))
    rows = []
    for r in data['rows']:
        ort, od = r.get('ort') or {}, r.get('onednn') or {}
        if 'median_ms' not in ort or 'median_ms' not in od:
            continue
        rows.append(dict(model=r['model'], set='zoo', threads=r['threads'],
                         ort_ms=ort['median_ms'], ms=od['median_ms'],
                         ratio=od['median_ms'] / ort['median_ms'],
                         load_init=od.get('load_init_ms'),
                         load_init_again=od.get('load_init_again_ms'),
                         session_first=ort.get('session_first_ms'),
                         session_again=ort.get('session_ms')))
    return data.get('meta', {}), rows


def wild_rows(path):
    rows = []
    for m in json.load(open(path)):
        p = (m.get('pipelines') or {}).get('onednn') or {}
        threads = (m.get('ort') or {}).get('threads', 1)
        if not p.get('ratio') or not p.get('median_ms'):
            continue
        rows.append(dict(model=m['id'], set='wild', threads=threads,
                         ort_ms=m['ort'].get('median_ms'), ms=p['median_ms'],
                         ratio=p['ratio'], status=p.get('status'),
                         rel_l2=p.get('rel_l2'), sqnr=p.get('sqnr')))
    return rows


def median(xs):
    xs = sorted(xs)
    n = len(xs)
    return xs[n // 2] if n % 2 else (xs[n // 2 - 1] + xs[n // 2]) / 2


def merge_rounds(rows):
    """Wild rows of one model and thread count from several runs become one:
    the median ratio (and the median times) over the rounds."""
    groups = {}
    for r in rows:
        groups.setdefault((r['set'], r['model'], r['threads']), []).append(r)
    merged = []
    for group in groups.values():
        if len(group) == 1:
            merged.append(dict(group[0], rounds=1))
            continue
        r = dict(group[0])
        r.update(ratio=median([g['ratio'] for g in group]),
                 ort_ms=median([g['ort_ms'] for g in group]),
                 ms=median([g['ms'] for g in group]),
                 rounds=len(group),
                 round_ratios=[g['ratio'] for g in group])
        merged.append(r)
    return merged


def name_ratio(r):
    return '%s %.2fx' % (r['model'], r['ratio'])


def fmt(x, digits=3):
    if x is None:
        return '—'
    return f'{x:.{digits}g}'


def main():
    ap = argparse.ArgumentParser()
    ap.add_argument('--zoo', required=True)
    ap.add_argument('--wild', action='append', default=[])
    ap.add_argument('--f64')
    ap.add_argument('--out', default='docs/performance-models.md')
    a = ap.parse_args()
    meta, rows = zoo_rows(a.zoo)
    wild = []
    for w in a.wild:
        wild += wild_rows(w)
    rows += merge_rounds(wild)
    L = ['# The zoo and the wild corpus on oneDNN, against ONNX Runtime\n',
         '<!-- Written by benchmarks/models-summary.py; do not edit by hand. -->\n',
         'Every model of the zoo (`benchmarks/peer/run-peers.sh --zoo --configs onednn`: '
         'ORT and the program in alternating rounds, the program checked against '
         "PyTorch's outputs) and of the wild corpus (`THREADS=T PIPELINES=onednn "
         'benchmarks/wild/run-wild.sh`: trained models that npm packages ship, checked '
         "against ORT's outputs), compiled with `--backend onednn`, the ratio of Strata's "
         "median latency to ONNX Runtime's (1.30.0, optimisation `all`) at the same "
         'thread count. '
         f"Zoo run: commit {meta.get('commit', '?')}, {meta.get('started', '?')} to "
         f"{meta.get('finished', '?')}, load average {meta.get('loadavg', '?')}; "
         f"{meta.get('cpu', '')}.\n",
         'Rerun: `MODELS_DIR=... benchmarks/peer/run-peers.sh --zoo --configs onednn '
         '--runs 12 --rounds 2 --min-ms 150`, then `THREADS=T PIPELINES=onednn '
         'benchmarks/wild/run-wild.sh` for T = 1 (twice: rounds) and 2, each '
         'results.json copied aside, `benchmarks/wild/f64-ref.py --reuse --strata '
         'build/wild --json F64` after a 1-thread run, then '
         '`benchmarks/models-summary.py --zoo build/peer/results.json --wild '
         'W1a.json --wild W1b.json --wild W2.json --f64 F64`.\n']
    L.append('## Summary\n')
    L.append('| threads | models | geometric mean | worst | above 1.1x |')
    L.append('|---:|---:|---:|---|---|')
    for t in sorted({r['threads'] for r in rows}):
        rs = [r for r in rows if r['threads'] == t]
        worst = max(rs, key=lambda r: r['ratio'])
        above = sorted((r for r in rs if r['ratio'] > 1.1), key=lambda r: -r['ratio'])
        sets = ', '.join(f"{sum(1 for r in rs if r['set'] == s)} {s}" for s in ('zoo', 'wild'))
        rounds = max((r.get('rounds', 1) for r in rs if r['set'] == 'wild'), default=1)
        if rounds > 1:
            sets += f'; wild: median of {rounds} runs'
        L.append(f"| {t} | {len(rs)} ({sets}) | {geomean([r['ratio'] for r in rs]):.2f}x | "
                 f"{worst['model']} {worst['ratio']:.2f}x | "
                 f"{', '.join(name_ratio(r) for r in above) or 'none'} |")
    zoo = [r for r in rows if r['set'] == 'zoo' and r['threads'] == 1 and r['load_init']]
    if zoo:
        first = [r['load_init'] / r['session_first'] for r in zoo if r['session_first']]
        again = [r['load_init_again'] / r['session_again'] for r in zoo
                 if r['session_again'] and r['load_init_again'] is not None]
        L.append('')
        L.append('Load + init of the zoo programs (1 thread) against ORT\'s session creation: '
                 f'fresh process / ORT\'s first session: geometric mean {geomean(first):.3f}x, '
                 f'worst {max(first):.3f}x; again in the same process / ORT again: '
                 f'geometric mean {geomean(again):.3f}x, worst {max(again):.3f}x.\n')
    if a.f64:
        table = [r for r in json.load(open(a.f64)) if r.get('ratio') is not None]
        within = [r for r in table if r['ratio'] <= 2]
        over = sorted((r for r in table if r['ratio'] > 2), key=lambda r: -r['ratio'])
        L.append('## The corpus against float64\n')
        L.append('`benchmarks/wild/f64-ref.py --strata`: each model run in float64 by an ONNX '
                 'interpreter on PyTorch (validated by its float32 run against ORT), ORT\'s '
                 "and the onednn program's largest rel-L2 against it over outputs and input "
                 'sets, and their ratio (an error below 2^-24 counts as 2^-24). '
                 f'{len(within)} of {len(table)} models within 2x ORT\'s error.\n')
        L.append('| model | ORT vs f64 | onednn vs f64 | onednn / ORT | notes |')
        L.append('|---|---:|---:|---:|---|')
        for r in over + sorted(within, key=lambda r: -r['ratio']):
            ratio = f"**{r['ratio']:.2f}**" if r['ratio'] > 2 else f"{r['ratio']:.2f}"
            L.append(f"| {r['id']} | {fmt(r['ort_vs_f64'], 2)} | {fmt(r['strata_vs_f64'], 2)} | "
                     f"{ratio} | {'; '.join(r.get('notes') or [])} |")
        L.append('')
    for t in sorted({r['threads'] for r in rows}):
        L.append(f'## {t} thread{"s" if t != 1 else ""}\n')
        L.append('| model | set | ORT ms | onednn ms | onednn / ORT | check |')
        L.append('|---|---|---:|---:|---:|---|')
        for r in sorted((r for r in rows if r['threads'] == t), key=lambda r: -r['ratio']):
            check = ''
            if r['set'] == 'wild':
                check = f"{r.get('status')}, rel-L2 {fmt(r.get('rel_l2'), 2)}"
                if r.get('sqnr'):
                    check += f", SQNR {r['sqnr']:.1f} dB"
            ratio = f"**{r['ratio']:.2f}x**" if r['ratio'] > 1.1 else f"{r['ratio']:.2f}x"
            if r.get('round_ratios'):
                ratio += ' (' + ', '.join(f'{x:.2f}' for x in r['round_ratios']) + ')'
            L.append(f"| {r['model']} | {r['set']} | {fmt(r['ort_ms'])} | {fmt(r['ms'])} | "
                     f"{ratio} | {check} |")
        L.append('')
    with open(a.out, 'w') as f:
        f.write('\n'.join(L) + '\n')
    print('wrote', a.out)


if __name__ == '__main__':
    main()

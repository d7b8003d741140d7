#!/usr/bin/python3
# ===- report.py - task checks and the report of the wild-model corpus -----===#
#
# Usage: /usr/bin/python3 benchmarks/wild/report.py [OUT] [--doc FILE]
# Reads what run-wild.sh left in OUT/<id>/ (OUT: build/wild): ort.json,
# <pipeline>/compile.{log,rc}, run-test_data_set_N.{log,rc}, basic-*.log,
# bench.log and Strata's outputs in <pipeline>/out/; runs the task-level
# check of each model (models.json "check") on Strata's outputs against
# ORT's; writes OUT/results.json and FILE (docs/wild-models.md): a summary,
# a table per model, and the failures grouped by their first error line.
# ===----------------------------------------------------------------------===#
import collections
import datetime
import glob
import json
import math
import os
import re
import sys

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
PIPELINES = os.environ.get('PIPELINES', 'default onednn').split()


def read(path, default=''):
    try:
        with open(path, errors='replace') as f:
            return f.read()
    except OSError:
        return default


def load_pb(path):
    return numpy_helper.to_array(onnx.load_tensor(path))


# --- the first error line of a compile log, and its cause (for grouping) ---
ROOT = os.path.abspath(os.path.join(os.path.dirname(os.path.abspath(__file__)), '..', '..'))


def first_error(log, rc):
    # Paths relative to the repository: the page is committed.
    log = log.replace(ROOT + os.sep, '')
    lines = [l.strip() for l in log.splitlines() if l.strip()]
    for l in lines:
        if re.search(r'\berror\b|Assertion|Aborted|Segmentation|terminate called|unsupported',
                     l, re.I):
            return l[:400]
    if rc in (124, 137):
        return 'timeout'
    return (lines[0][:400] if lines else f'exit status {rc}, no output')


def cause_of(line):
    """The error text without locations, paths and value names: a group key."""
    s = re.sub(r'^.*?\berror:\s*', '', line)
    s = re.sub(r'loc\([^)]*\)', '', s)
    s = re.sub(r'(/[\w.+-]+)+\.onnx(:\d+:\d+)?:?', '', s)
    s = re.sub(r"(node|value|input|output|tensor|initializer) '[^']*'", r"\1 '…'", s)
    s = re.sub(r'%\w+', '%…', s)
    s = re.sub(r'\b\d+(x\d+)+\b', 'N×…', s)
    return s.strip()[:400]


# What each known cause means, from reading the failing models (regex on the
# cause -> note). Notes are hints for whoever fixes it; the error text rules.
DIAGNOSES = [
    (r"node 'If_25': result has dynamic type 'tensor<\*|node 'node_cond__1': result has dynamic type 'tensor<\*",
     'the top-level If on the `sr` graph input (`Equal(sr, 16000)`: a run-time condition; the '
     '16 kHz and 8 kHz paths) gets an unranked result, although with the input shapes pinned '
     'both branches produce the same static types (silero v4: output 1x1, hn/cn 2x1x64; op18: '
     'output 1x1, stateN 2x1x128). Fix: type an If result from its branches when they agree; '
     'binding `sr` to a constant (16000) would also fold the If away.'),
    (r"'hl.lstm' op X must have rank 3, got 5",
     "the LSTM is in the 8 kHz branch of the top-level If on `sr` (`If_0` else), inside "
     "`decoder/If_1`'s then branch: its X = Unsqueeze(result of `decoder/rnn/If`, a rank "
     'test whose branches give rank 3 or rank 2) comes out with rank 5. With the pinned 16 kHz '
     'chunk that branch sees shapes it was not written for; silero 16k-op15 and half (the same '
     'network without the 8 kHz branch) compile and match. Fix: fold the shape tests and the '
     'dead branches before verifying the ops in them, or fold the If on `sr` (a constant binding).'),
    (r'ReduceMean-18\): its axes are computed at run time',
     "the axes input is an initializer of the enclosing graph read from inside an If branch "
     "(an outer-scope reference; silero op18: `val_30` = [1]): the importer does not treat "
     'outer-scope initializers as constants.'),
    (r'^timeout$',
     'the run did not finish within the step limit.'),
]


def diagnosis(cause):
    for pattern, note in DIAGNOSES:
        if re.search(pattern, cause):
            return note
    return None


def parse_run(log):
    """Worst rel_l2 / lowest sqnr over the outputs of a strata-run --expect log."""
    rel, sqnr, fails = [], [], []
    for m in re.finditer(r'output (\d+): (PASS|FAIL) .*?(?:sqnr (\S+) dB .*?)?rel_l2 (\S+)', log):
        rel.append(float(m.group(4)))
        if m.group(3):
            sqnr.append(float(m.group(3)))
        if m.group(2) == 'FAIL':
            fails.append(int(m.group(1)))
    for m in re.finditer(r'output (\d+): FAIL type (.*)', log):
        fails.append(int(m.group(1)))
        rel.append(math.inf)
    worst = max(rel) if rel else None
    return dict(rel_l2=worst, sqnr=min(sqnr) if sqnr else None, failed_outputs=sorted(set(fails)))


def parse_bench(log):
    m = re.search(r'bench: \d+ runs after \d+ warm-up: median ([\d.]+) ms', log)
    return float(m.group(1)) if m else None


# --- task-level checks: Strata's outputs against ORT's ----------------------
def ctc_decode(probs, keys):
    idx = probs[0].argmax(-1)
    chars, prev = [], 0
    for i in idx:
        if i != prev and i != 0:
            chars.append(keys[i] if i < len(keys) else f'<{i}>')
        prev = i
    return ''.join(chars)


def vad_stream_check(mdir, pdir):
    """Strata's stream (vad-stream.py) against the utterance and ORT's stream."""
    try:
        meta = json.load(open(os.path.join(mdir, 'stream', 'meta.json')))
        got = json.load(open(os.path.join(pdir, 'stream.json')))
        want = json.load(open(os.path.join(mdir, 'ort-stream.json')))['probs']
    except (OSError, ValueError) as e:
        return False, f'no stream result ({e})'
    if got.get('error'):
        return False, 'stream: ' + got['error']
    s, dt = got['probs'], meta['chunk_s']
    t0, t1 = meta['speech_start_s'], meta['speech_end_s']
    speech = [p for i, p in enumerate(s) if i * dt >= t0 + 0.1 and (i + 1) * dt <= t1]
    before = [p for i, p in enumerate(s) if (i + 1) * dt <= t0]
    after = [p for i, p in enumerate(s) if i * dt >= t1 + 0.3]
    diff = max(abs(a - b) for a, b in zip(s, want)) if len(s) == len(want) else math.inf
    frac = sum(p > 0.5 for p in speech) / max(len(speech), 1)
    ort_frac = sum(p > 0.5 for i, p in enumerate(want) if i * dt >= t0 + 0.1 and (i + 1) * dt <= t1) / max(len(speech), 1)
    ok = (frac >= 0.5 and max(before, default=0) < 0.3 and
          (sum(after) / max(len(after), 1)) < 0.3 and diff < 0.02)
    return ok, (f'stream of {len(s)} chunks: {100 * frac:.0f}% of speech chunks > 0.5 (ORT {100 * ort_frac:.0f}%), '
                f'silence max {max(before + after, default=0):.3f}, max |p - p_ORT| {diff:.1e}')


def task_check(check, mdir, sdir, sets):
    """(passed or None, detail text)."""
    if not check:
        return None, 'no task check (rel-L2 only)'
    kind, k = check['kind'], check.get('output', 0)
    if kind == 'vad':
        return vad_stream_check(mdir, os.path.dirname(sdir))
    details, ok = [], True
    for s in sets:
        ref_path = os.path.join(mdir, s, f'output_{k}.pb')
        got_path = os.path.join(sdir, s, f'output_{k}.pb')
        if not os.path.exists(got_path):
            return False, f'no Strata output for {s}'
        want, got = load_pb(ref_path).astype(np.float64), load_pb(got_path).astype(np.float64)
        if got.size != want.size:
            return False, f'{s}: output {k} has {got.size} elements, ORT {want.size}'
        if kind == 'vad':
            pw, pg = float(want.ravel()[0]), float(got.ravel()[0])
            same = (pw > 0.5) == (pg > 0.5) and abs(pw - pg) < 0.05
            details.append(f'{s}: p={pg:.3f} (ORT {pw:.3f})')
        elif kind == 'argmax':
            a, b = int(got.argmax()), int(want.argmax())
            same = a == b
            details.append(f'argmax {a} (ORT {b})')
        elif kind == 'score':
            same = abs(float(got.ravel()[0]) - float(want.ravel()[0])) <= 0.01
            details.append(f'score {float(got.ravel()[0]):.4f} (ORT {float(want.ravel()[0]):.4f})')
        elif kind == 'cosine':
            c = float(np.dot(got.ravel(), want.ravel()) /
                      (np.linalg.norm(got) * np.linalg.norm(want) + 1e-30))
            same = c >= 0.999
            details.append(f'cosine {c:.6f}')
        elif kind == 'maxabs':
            d = float(np.abs(got - want).max())
            same = d <= check.get('tol', 1e-3)
            details.append(f'max |diff| {d:.2e}')
        elif kind == 'binmap':
            t = check.get('threshold', 0.5)
            agree = float(((got > t) == (want > t)).mean())
            same = agree >= 0.999
            details.append(f'{100 * agree:.3f}% of pixels agree at > {t} '
                           f'({100 * float((want > t).mean()):.1f}% on)')
        elif kind == 'topk':
            n = check.get('k', 5)
            a = set(np.argsort(-got.ravel())[:n].tolist())
            b = set(np.argsort(-want.ravel())[:n].tolist())
            same = a == b
            details.append(f'top-{n} positions: {len(a & b)}/{n} agree')
        elif kind == 'topboxes':
            n = check.get('k', 5)
            sg, sw = got.reshape(-1, got.shape[-1])[:, -1], want.reshape(-1, want.shape[-1])[:, -1]
            bi = os.path.join(sdir, s, f"output_{check['boxes']}.pb")
            bw = load_pb(os.path.join(mdir, s, f"output_{check['boxes']}.pb")).reshape(-1, 4)
            bg = load_pb(bi).reshape(-1, 4) if os.path.exists(bi) else np.zeros_like(bw)
            a, b = np.argsort(-sg)[:n], np.argsort(-sw)[:n]
            box_diff = float(np.abs(bg[b] - bw[b]).max())
            same = set(a.tolist()) == set(b.tolist()) and box_diff < 1e-3
            details.append(f'top-{n} boxes: {len(set(a) & set(b))}/{n} agree, '
                           f'max coord diff {box_diff:.1e} (best score {sw[b[0]]:.3f})')
        elif kind == 'ctc':
            lines = read(os.path.join(mdir, check['keys'])).split('\n')
            if lines and lines[-1] == '':
                lines.pop()
            keys = ['<blank>'] + lines + [' ']   # PaddleOCR: blank first, space last
            tg, tw = ctc_decode(got, keys), ctc_decode(want, keys)
            same = tg == tw
            details.append(f'text "{tg}" (ORT "{tw}")')
        else:
            return None, f'unknown check {kind}'
        ok = ok and same
    return ok, '; '.join(details)


def ort_spread(mdir, sets, outputs):
    """The largest rel-L2 between ORT 'all' and ORT 'basic' on these outputs:
    how far ORT's own two optimisation levels disagree (None when unknown)."""
    worst = None
    for s in sets:
        for k in outputs:
            a = os.path.join(mdir, s, f'output_{k}.pb')
            b = os.path.join(mdir, 'ort-basic', s, f'output_{k}.pb')
            if not (os.path.exists(a) and os.path.exists(b)):
                continue
            x, y = load_pb(a).astype(np.float64), load_pb(b).astype(np.float64)
            d = float(np.linalg.norm(x - y) / (np.linalg.norm(x) + 1e-300))
            worst = d if worst is None else max(worst, d)
    return worst


def model_ops(path):
    try:
        m = onnx.load(path, load_external_data=False)
    except Exception:
        return 0, []
    counter = collections.Counter()

    def walk(g):
        for n in g.node:
            counter[n.op_type] += 1
            for a in n.attribute:
                if a.g and a.g.node:
                    walk(a.g)
                for sub in a.graphs:
                    walk(sub)
    walk(m.graph)
    return sum(counter.values()), sorted(counter)


def collect(out):
    models = json.load(open(os.path.join(HERE, 'models.json')))
    results = []
    for e in models:
        mdir = os.path.join(out, e['id'])
        r = dict(id=e['id'], package=e['package'], task=e['task'], exporter=e['exporter'],
                 opset=e['opset'], bytes=e['bytes'], quantized=e['quantized'], pipelines={})
        r['ops_count'], r['op_types'] = model_ops(os.path.join(mdir, 'model.onnx'))
        cov = read(os.path.join(mdir, 'coverage.txt'))
        r['unsupported_ops'] = re.findall(r'^UNSUPPORTED (\S+) x(\d+)', cov, re.M)
        r['unsupported_ops'] = [f'{op} x{n}' for op, n in r['unsupported_ops']]
        r['coverage_run'] = bool(re.search(r'op types (are )?(supported|unsupported)', cov))
        try:
            r['ort'] = json.load(open(os.path.join(mdir, 'ort.json')))
        except (OSError, ValueError):
            r['ort'] = dict(ok=False, error='not run')
        sets = sorted(os.path.basename(d) for d in glob.glob(os.path.join(mdir, 'test_data_set_*')))
        for pipe in PIPELINES:
            p = os.path.join(mdir, pipe)
            rc_text = read(os.path.join(p, 'compile.rc')).strip()
            pr = dict()
            if not rc_text:
                pr['status'] = 'not run'
                r['pipelines'][pipe] = pr
                continue
            rc = int(rc_text)
            if rc != 0 or not os.path.exists(os.path.join(p, 'model.strata')):
                pr['status'] = 'compile-fail'
                pr['error'] = first_error(read(os.path.join(p, 'compile.log')), rc)
                pr['cause'] = cause_of(pr['error'])
                r['pipelines'][pipe] = pr
                continue
            worst_rel, worst_sqnr, run_ok, errors, basic_ok = 0.0, None, True, [], None
            failed_outputs = set()
            for s in sets:
                rrc = read(os.path.join(p, f'run-{s}.rc')).strip()
                log = read(os.path.join(p, f'run-{s}.log'))
                parsed = parse_run(log)
                if rrc != '0':
                    run_ok = False
                    if rrc != '1' or parsed['rel_l2'] is None:
                        errors.append(first_error(log, int(rrc or -1)))
                failed_outputs.update(parsed['failed_outputs'])
                if parsed['rel_l2'] is not None:
                    worst_rel = max(worst_rel, parsed['rel_l2'])
                if parsed['sqnr'] is not None:
                    worst_sqnr = parsed['sqnr'] if worst_sqnr is None else min(worst_sqnr, parsed['sqnr'])
                blog = os.path.join(p, f'basic-{s}.log')
                if os.path.exists(blog):
                    b = parse_run(read(blog))
                    this = b['rel_l2'] is not None and not b['failed_outputs']
                    basic_ok = this if basic_ok is None else basic_ok and this
            pr['rel_l2'] = worst_rel if worst_rel != math.inf else 'inf'
            pr['failed_outputs'] = sorted(failed_outputs)
            pr['sqnr'] = worst_sqnr
            if errors:
                pr['status'] = 'run-fail'
                pr['error'] = errors[0]
                pr['cause'] = cause_of(errors[0])
            elif run_ok:
                pr['status'] = 'match'
            else:
                pr['status'] = 'match-ort-basic' if basic_ok else 'mismatch'
            if pr['status'] == 'mismatch':
                pr['ort_spread'] = ort_spread(mdir, sets, pr['failed_outputs'])
            if pr['status'] != 'run-fail':
                pr['task_ok'], pr['task'] = task_check(e.get('check'), mdir, os.path.join(p, 'out'), sets)
            pr['median_ms'] = parse_bench(read(os.path.join(p, 'bench.log')))
            om = r['ort'].get('median_ms')
            if pr['median_ms'] and om:
                pr['ratio'] = pr['median_ms'] / om
            wall = read(os.path.join(p, 'run-test_data_set_0.seconds')).strip()
            if wall:
                pr['run_wall_s'] = float(wall)
            if not pr['median_ms']:
                brc = read(os.path.join(p, 'bench.rc')).strip()
                pr['bench'] = 'timeout' if brc in ('124', '137') else f'failed ({brc or "not run"})'
                if pr.get('run_wall_s') and om and pr['status'] != 'run-fail':
                    # one --expect run, load and compare included: an upper bound
                    pr['ratio_approx'] = 1e3 * pr['run_wall_s'] / om
            r['pipelines'][pipe] = pr
        results.append(r)
    return results


def fmt_size(n):
    return f'{n / 1e6:.1f} MB' if n >= 1e6 else f'{n / 1e3:.0f} kB'


def fmt_result(pr):
    st = pr.get('status')
    if st in ('match', 'match-ort-basic', 'mismatch'):
        acc = (f"SQNR {pr['sqnr']:.1f} dB" if pr.get('sqnr') is not None
               else f"rel-L2 {float(pr['rel_l2']):.1e}")
        word = {'match': 'match', 'match-ort-basic': 'match (ORT basic)', 'mismatch': '**mismatch**'}[st]
        task = {True: ', task ok', False: ', **task FAIL**', None: ''}[pr.get('task_ok')]
        return f'{word}, {acc}{task}'
    if st == 'compile-fail':
        return 'compile fails'
    if st == 'run-fail':
        return 'run fails'
    return st or '—'


def build_info():
    """Which Strata this run measured: the commit, and when the tools were built."""
    import subprocess
    try:
        head = subprocess.run(['git', '-C', ROOT, 'rev-parse', '--short', 'HEAD'],
                              capture_output=True, text=True).stdout.strip()
        dirty = subprocess.run(['git', '-C', ROOT, 'status', '--porcelain', '--untracked-files=no'],
                               capture_output=True, text=True).stdout.strip()
    except OSError:
        head, dirty = '?', ''
    tool = os.path.join(ROOT, 'build', 'bin', 'strata-compile')
    built = (datetime.datetime.fromtimestamp(os.path.getmtime(tool)).strftime('%Y-%m-%d %H:%M')
             if os.path.exists(tool) else 'not built')
    return (f"commit {head or '?'}" + (' with uncommitted changes in the work tree' if dirty else '')
            + f'; build/bin/strata-compile built {built}')


def geomean(xs):
    return math.exp(sum(math.log(x) for x in xs) / len(xs)) if xs else None


def write_doc(results, path, out):
    n = len(results)
    threads = next((r['ort'].get('threads', 1) for r in results if r['ort'].get('ok')), 1)
    tword = f"{threads} thread{'s' if threads != 1 else ''}"
    L = []
    L.append('# Wild models: trained ONNX models that npm packages ship\n')
    L.append('Generated by `benchmarks/wild/run-wild.sh` on '
             f'{datetime.date.today().isoformat()} ({n} models; the corpus, its sources and recipes: '
             '`benchmarks/wild/models.json`). Reference: ONNX Runtime (onnxruntime-node, '
             f'graph optimisation `all`, {tword}). A model *matches* when every output is within '
             'rel-L2 1e-4 of ORT\'s (quantized models: SQNR ≥ 30 dB) on every input set; the task '
             'check compares what an application reads out (VAD decision, decoded OCR text, top '
             'boxes, argmax, ...). Latency ratio: Strata `strata-run --bench N --threads '
             f'{threads}` median / ORT median at {tword}, same run (where the bench timed out: the wall time '
             'of one `--expect` run, load included, marked ≤). The fp16 model is judged by SQNR ≥ 40 dB '
             '(ORT computes its convolutions in fp16).\n')
    L.append(f'Strata: {build_info()}.\n')
    L.append('Rerun: `bash benchmarks/wild/fetch.sh && /usr/bin/python3 benchmarks/wild/make-inputs.py '
             '&& bash benchmarks/wild/run-wild.sh` (ORT: `BUILD_DIR=build bash scripts/install-ort.sh`).\n')
    L.append('## Summary\n')
    L.append('| pipeline | compiled | run | match ORT | task check ok | geomean ratio (benched) | worst ratio |')
    L.append('|---|---|---|---|---|---|---|')
    for pipe in PIPELINES:
        prs = [r['pipelines'].get(pipe, {}) for r in results]
        compiled = [p for p in prs if p.get('status') not in (None, 'not run', 'compile-fail')]
        ran = [p for p in compiled if p.get('status') != 'run-fail']
        match = [p for p in ran if p.get('status') in ('match', 'match-ort-basic')]
        task = [p for p in ran if p.get('task_ok')]
        ratios = [(p['ratio'], r['id']) for r, p in zip(results, prs) if p.get('ratio')]
        gm = geomean([x for x, _ in ratios])
        approx = [(p['ratio_approx'], '≤', r['id']) for r, p in zip(results, prs) if p.get('ratio_approx')]
        worst = max([(x, '', i) for x, i in ratios] + approx) if ratios or approx else None
        L.append(f'| {pipe} | {len(compiled)}/{n} | {len(ran)}/{n} | {len(match)}/{n} | {len(task)} | '
                 f"{f'{gm:.2f}' if gm else '—'} | "
                 f"{f'{worst[1]}{worst[0]:.2f} ({worst[2]})' if worst else '—'} |")
    L.append('')
    L.append('Per exporter (compiled / matching, per pipeline):\n')
    L.append('| exporter | models | ' + ' | '.join(PIPELINES) + ' |')
    L.append('|---|---|' + '---|' * len(PIPELINES))
    by_exp = collections.defaultdict(list)
    for r in results:
        by_exp[r['exporter'].split(' (')[0].split()[0]].append(r)
    for exp, rs in sorted(by_exp.items()):
        cells = []
        for pipe in PIPELINES:
            prs = [r['pipelines'].get(pipe, {}) for r in rs]
            c = sum(p.get('status') not in (None, 'not run', 'compile-fail') for p in prs)
            m = sum(p.get('status') in ('match', 'match-ort-basic') for p in prs)
            cells.append(f'{c} / {m}')
        L.append(f'| {exp} | {len(rs)} | ' + ' | '.join(cells) + ' |')
    L.append('')
    missing = collections.defaultdict(list)
    for r in results:
        for entry in r.get('unsupported_ops', []):
            missing[entry.split(' x')[0].split('-')[0]].append(r['id'])
    if missing or any(r.get('coverage_run') for r in results):
        L.append('Op types the importer does not support (`strata-translate --import-onnx --coverage`), '
                 'by number of models that use them:\n')
        L.append('| op type | models | which |')
        L.append('|---|---|---|')
        for op, ids in sorted(missing.items(), key=lambda kv: (-len(kv[1]), kv[0])):
            L.append(f"| {op} | {len(ids)} | {', '.join(ids)} |")
        if not missing:
            L.append('| (none) | 0 | |')
        L.append('')
    L.append('## Models\n')
    L.append('| id | package | task | exporter | opset | size | ops | ORT ms | '
             + ' | '.join(f'{p}: result | {p}: ratio' for p in PIPELINES) + ' |')
    L.append('|---|---|---|---|---|---|---|---|' + '---|---|' * len(PIPELINES))
    for r in results:
        om = r['ort'].get('median_ms')
        cells = []
        for pipe in PIPELINES:
            pr = r['pipelines'].get(pipe, {})
            cells.append(fmt_result(pr))
            if pr.get('ratio'):
                cells.append(f"{pr['ratio']:.2f}")
            elif pr.get('ratio_approx'):
                cells.append(f"≤{pr['ratio_approx']:.1f} (bench {pr['bench']}; from one run)")
            elif pr.get('status') == 'run-fail' and pr.get('run_wall_s'):
                cells.append(f"run > {pr['run_wall_s']:.0f} s")
            else:
                cells.append('—')
        exp = r['exporter'].split(' (')[0] + (' (int8)' if r['quantized'] else '')
        L.append(f"| {r['id']} | `{r['package']}` | {r['task']} | {exp} | {r['opset']} | "
                 f"{fmt_size(r['bytes'])} | {r['ops_count']} | "
                 f"{f'{om:.3f}' if om else 'ORT fails'} | " + ' | '.join(cells) + ' |')
    L.append('')
    L.append('## Task checks\n')
    for r in results:
        for pipe in PIPELINES:
            pr = r['pipelines'].get(pipe, {})
            if 'task' in pr:
                mark = {True: 'ok', False: 'FAIL', None: '—'}[pr.get('task_ok')]
                L.append(f"- {r['id']} ({pipe}): {mark}: {pr['task']}")
    L.append('')
    L.append('## Failures, grouped by cause\n')
    L.append('The first error line of each failing step, grouped after removing locations and '
             'value names; under each, the models that hit it (pipeline), and the op types of '
             'those models, to show what is missing.\n')
    groups = collections.defaultdict(list)
    for r in results:
        for pipe in PIPELINES:
            pr = r['pipelines'].get(pipe, {})
            if pr.get('status') in ('compile-fail', 'run-fail'):
                groups[(pr['status'], pr['cause'])].append((r, pipe, pr['error']))
            elif pr.get('status') == 'mismatch':
                names = [r['ort'].get('outputs', [{}] * 99)[k].get('name', k) if k < len(r['ort'].get('outputs', [])) else k
                         for k in pr.get('failed_outputs', [])]
                spread = pr.get('ort_spread')
                note = (f"; ORT 'all' vs 'basic' differ by {spread:.2e} on these outputs"
                        + (' (Strata is within ORT\'s own spread)' if spread and float(pr['rel_l2']) <= spread else '')
                        if spread is not None else '')
                groups[('mismatch', 'outputs differ from ORT (all and basic)')].append(
                    (r, pipe, f"worst rel-L2 {float(pr['rel_l2']):.2e}; failing outputs: {', '.join(map(str, names))}{note}"))
    for (status, cause), items in sorted(groups.items(), key=lambda kv: -len(kv[1])):
        short = cause if len(cause) <= 150 else cause[:150] + '…'
        L.append(f'### {status}: {short} ({len(items)})\n')
        note = diagnosis(cause) or (diagnosis(items[0][2]) if items else None)
        if note:
            L.append(f'What is missing: {note}\n')
        for r, pipe, err in items:
            L.append(f"- {r['id']} ({pipe}): `{err}`")
        miss = sorted(set(op.split(' x')[0] for r, _, _ in items for op in r.get('unsupported_ops', [])))
        if miss:
            L.append(f"\n  Unsupported op types in these models (importer coverage): {', '.join(miss)}\n")
        else:
            ops = sorted(set(op for r, _, _ in items for op in r['op_types']))
            L.append(f"\n  Every op type is covered by the importer; op types in these models: {', '.join(ops)}\n")
    ort_fail = [r for r in results if not r['ort'].get('ok')]
    if ort_fail:
        L.append('### ONNX Runtime itself fails\n')
        for r in ort_fail:
            L.append(f"- {r['id']}: {r['ort'].get('error')}")
        L.append('')
    with open(path, 'w') as f:
        f.write('\n'.join(L) + '\n')


def main():
    args = sys.argv[1:]
    doc = os.path.join(ROOT, 'docs', 'wild-models.md')
    if '--doc' in args:
        i = args.index('--doc')
        doc = args[i + 1]
        del args[i:i + 2]
    out = args[0] if args else os.path.join(ROOT, 'build', 'wild')
    results = collect(out)
    with open(os.path.join(out, 'results.json'), 'w') as f:
        json.dump(results, f, indent=1, default=str)
    write_doc(results, doc, out)
    for pipe in PIPELINES:
        st = collections.Counter(r['pipelines'].get(pipe, {}).get('status') for r in results)
        print(f'{pipe}: ' + ', '.join(f'{k} {v}' for k, v in st.most_common()))
    print(f'wrote {doc} and {os.path.join(out, "results.json")}')


if __name__ == '__main__':
    main()

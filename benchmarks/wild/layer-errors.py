#!/usr/bin/python3
# ===- layer-errors.py - where a model's float32 error against float64 grows -===#
"""Each node's error against float64, for ORT and Strata's pipelines.

Usage: /usr/bin/python3 benchmarks/wild/layer-errors.py MODEL_DIR
           [--set N ...] [--pipelines default onednn ...] [--no-ort]
           [--bin build/bin] [--keep DIR]

MODEL_DIR is a corpus entry of run-wild.sh (model.onnx, test_data_set_N
with ORT's outputs beside the inputs); its id (the folder's name) gives the
--input-shape / --input-value flags of models.json. f64-ref.py says how far
a program's outputs are from float64; this script says where that error
comes from, which --bisect cannot (it compares two float32 builds):
  1. strata-compile --emit onnx-qdq flattens the model as Strata imports it
     (If branches folded, shapes pinned, frozen inputs gone);
  2. every node's float result becomes a graph output (moving data, e.g.
     Reshape or Slice, excepted; exposing values changes no numerics of the
     delegates, which fuse inside edge ops only);
  3. that graph runs in float64 (f64-ref.py's interpreter), on ORT
     (ort-ref.mjs, unless --no-ort) and as a Strata program per pipeline;
  4. prints, per input set, each exposed value's rel-L2 against float64.
An error that grows from one layer to the next with the same inputs is the
model amplifying rounding (compare ORT's column); a jump at one node on one
pipeline only is that kernel's.
"""
import argparse
import importlib.util
import json
import os
import shutil
import subprocess
import sys
import tempfile

import numpy as np
import onnx
from onnx import numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))
MOVES = {'Reshape', 'Squeeze', 'Unsqueeze', 'Slice', 'Concat', 'Gather',
         'Transpose', 'Flatten', 'Identity', 'Split', 'Expand', 'Shape',
         'Cast'}


def load_f64ref():
    spec = importlib.util.spec_from_file_location(
        'f64ref', os.path.join(HERE, 'f64-ref.py'))
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def read_tensor(path):
    t = onnx.TensorProto()
    with open(path, 'rb') as f:
        t.ParseFromString(f.read())
    return numpy_helper.to_array(t)


def rel_l2(got, want):
    got, want = np.asarray(got, np.float64), np.asarray(want, np.float64)
    if got.shape != want.shape:
        return float('nan')
    norm = np.linalg.norm(want)
    return float(np.linalg.norm(got - want) / norm) if norm else float(
        np.linalg.norm(got - want))


def compile_flags(model_id):
    for m in json.load(open(os.path.join(HERE, 'models.json'))):
        if m['id'] == model_id:
            return ([f'--input-shape={k}={v}' for k, v in
                     m.get('input_shapes', {}).items()] +
                    [f'--input-value={k}={v}' for k, v in
                     m.get('input_values', {}).items()],
                    set(m.get('input_values', {})))
    return [], set()


def run(cmd, what):
    r = subprocess.run(cmd, capture_output=True, text=True)
    if r.returncode:
        sys.exit(f'layer-errors.py: {what} failed:\n{r.stderr[-2000:]}')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('model_dir')
    ap.add_argument('--set', type=int, nargs='*', default=None)
    ap.add_argument('--pipelines', nargs='*', default=['default', 'onednn'])
    ap.add_argument('--no-ort', action='store_true')
    ap.add_argument('--bin', default=os.path.join(ROOT, 'build', 'bin'))
    ap.add_argument('--keep', help='work in DIR and keep it')
    args = ap.parse_args()

    model_dir = os.path.abspath(args.model_dir)
    model_id = os.path.basename(model_dir)
    flags, frozen = compile_flags(model_id)
    work = args.keep or tempfile.mkdtemp(prefix='layer-errors.')
    os.makedirs(work, exist_ok=True)
    entry = os.path.join(work, model_id)
    os.makedirs(entry, exist_ok=True)

    # 1. The model as Strata imports it, as ONNX.
    flat = os.path.join(work, 'flat.onnx')
    run([os.path.join(args.bin, 'strata-compile'),
         os.path.join(model_dir, 'model.onnx'), '-o', flat,
         '--emit=onnx-qdq'] + flags, 'strata-compile --emit onnx-qdq')

    # 2. Every computed float value an output.
    model = onnx.shape_inference.infer_shapes(onnx.load(flat))
    graph = model.graph
    infos = {v.name: v for v in list(graph.value_info) + list(graph.output)}
    outputs = [o.name for o in graph.output]
    exposed = {}                         # value name -> (node name, op type)
    for node in graph.node:
        if node.op_type in MOVES:
            continue
        for k, name in enumerate(node.output):
            info = infos.get(name)
            if name and name not in outputs and info is not None and \
                    info.type.tensor_type.elem_type == onnx.TensorProto.FLOAT:
                graph.output.append(info)
                label = node.name or name
                exposed[name] = (label + (f' #{k}' if len(node.output) > 1
                                          else ''), node.op_type)
    onnx.save(model, os.path.join(entry, 'model.onnx'))
    names = [o.name for o in graph.output]

    # The input sets, without the inputs --input-value froze.
    original = onnx.load(os.path.join(model_dir, 'model.onnx'),
                         load_external_data=False).graph
    inits = {t.name for t in original.initializer}
    inputs = [i.name for i in original.input if i.name not in inits]
    sets = sorted(int(d.rsplit('_', 1)[1]) for d in os.listdir(model_dir)
                  if d.startswith('test_data_set_'))
    if args.set is not None:
        sets = [s for s in sets if s in args.set]
    feeds = {}
    for s in sets:
        src = os.path.join(model_dir, f'test_data_set_{s}')
        dst = os.path.join(entry, f'test_data_set_{s}')
        os.makedirs(dst, exist_ok=True)
        feeds[s] = {}
        k = 0
        for i, name in enumerate(inputs):
            if name in frozen:
                continue
            shutil.copy(os.path.join(src, f'input_{i}.pb'),
                        os.path.join(dst, f'input_{k}.pb'))
            feeds[s][name] = read_tensor(os.path.join(dst, f'input_{k}.pb'))
            k += 1

    # 3. Float64, ORT, Strata.
    import torch
    f64ref = load_f64ref()
    interpreter = f64ref.Interpreter(model, torch.float64)
    results = {s: {'f64': interpreter.run(feeds[s])} for s in sets}
    columns = []
    if not args.no_ort:
        run(['node', os.path.join(HERE, 'ort-ref.mjs'), work, '--time-ms', '1',
             model_id], 'ort-ref.mjs')
        columns.append('ORT')
        for s in sets:
            d = os.path.join(entry, f'test_data_set_{s}')
            results[s]['ORT'] = [read_tensor(os.path.join(d, f'output_{k}.pb'))
                                 for k in range(len(names))]
    for pipe in args.pipelines:
        program = os.path.join(work, f'{pipe}.strata')
        backend = [] if pipe == 'default' else ['--backend', pipe]
        run([os.path.join(args.bin, 'strata-compile'),
             os.path.join(entry, 'model.onnx'), '-o', program] + backend,
            f'strata-compile --backend {pipe}')
        columns.append(pipe)
        for s in sets:
            out = os.path.join(work, 'out', pipe, str(s))
            os.makedirs(out, exist_ok=True)
            run([os.path.join(args.bin, 'strata-run'), program, '--threads',
                 '1', '--inputs', os.path.join(entry, f'test_data_set_{s}'),
                 '--output-dir', out], f'strata-run ({pipe}, set {s})')
            results[s][pipe] = [read_tensor(os.path.join(out, f'output_{k}.pb'))
                                for k in range(len(names))]

    # 4. The table.
    for s in sets:
        print(f'\n## {model_id}, test_data_set_{s}: rel-L2 against float64\n')
        print('| value | op | max abs (f64) | ' + ' | '.join(columns) + ' |')
        print('|---|---|---:|' + '---:|' * len(columns))
        order = [n for n in names if n in exposed] + \
            [n for n in names if n not in exposed]
        for name in order:
            k = names.index(name)
            want = results[s]['f64'][k]
            node, op = exposed.get(name, (f'output {name}', ''))
            cells = ['%.1e' % rel_l2(results[s][c][k], want) for c in columns]
            print(f'| {node} | {op} | {np.abs(want).max():.3g} | ' +
                  ' | '.join(cells) + ' |')
    if not args.keep:
        shutil.rmtree(work, ignore_errors=True)


if __name__ == '__main__':
    main()

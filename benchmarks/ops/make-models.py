#!/usr/bin/python3
# ===- make-models.py - the op benchmark's one-node ONNX models ------------===#
#
# Usage: /usr/bin/python3 benchmarks/ops/make-models.py OUT [FAMILY|CASE ...]
# Writes each case of table.py (all, or those of the given families or case
# ids) as OUT/<id>/model.onnx with its weights as initializers and seeded
# inputs as OUT/<id>/test_data_set_0/input_K.pb (graph input order), and
# OUT/cases.tsv: id, family, label, source, op types, opset; and OUT/_floor,
# a one-element Add (not a case): each runtime's per-run overhead. The data of a
# case depends on its id only (seeded by its CRC-32): the same files every
# time. Needs numpy and onnx (Debian python3-onnx).
# ===----------------------------------------------------------------------===#
import os
import sys
import zlib

import numpy as np
import onnx
from onnx import TensorProto, helper, numpy_helper, shape_inference

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import table  # noqa: E402

ELEM = {'float32': TensorProto.FLOAT, 'float16': TensorProto.FLOAT16,
        'int64': TensorProto.INT64, 'int32': TensorProto.INT32,
        'uint32': TensorProto.UINT32, 'uint8': TensorProto.UINT8,
        'int8': TensorProto.INT8, 'bool': TensorProto.BOOL}


def data(t, rng):
    """The values of tensor spec `t`."""
    if t.kind == 'value':
        return np.array(t.value, dtype=t.dtype).reshape(t.shape)
    if t.kind == 'bool':
        return rng.random(t.shape) < 0.5
    if t.kind == 'int':
        return rng.integers(t.lo, t.hi, size=t.shape, endpoint=True).astype(t.dtype)
    if t.kind == 'unpool':
        # Each pooled value's flat index in the 2x larger input, one
        # position per 2x2 window (what MaxPool's indices output holds).
        n, c, h, w = t.shape
        dy, dx = rng.integers(0, 2, size=(2,) + t.shape)
        ys = 2 * np.arange(h).reshape(1, 1, h, 1) + dy
        xs = 2 * np.arange(w).reshape(1, 1, 1, w) + dx
        nc = np.arange(n * c).reshape(n, c, 1, 1)
        return ((nc * 2 * h + ys) * 2 * w + xs).astype(np.int64)
    if t.kind == 'uniform':
        return rng.uniform(t.lo, t.hi, size=t.shape).astype(t.dtype)
    x = rng.standard_normal(t.shape)
    if t.weight and len(t.shape) >= 2:   # weights: N(0, 1/fan_in)
        x /= np.sqrt(np.prod(t.shape[1:]))
    return x.astype(t.dtype)


def build(case):
    rng = np.random.default_rng(zlib.crc32(case.id.encode()))
    inputs, feeds, inits = [], [], []
    for name, t in case.tensors.items():
        value = data(t, rng)
        if t.weight:
            inits.append(numpy_helper.from_array(value, name))
        else:
            inputs.append(helper.make_tensor_value_info(name, ELEM[t.dtype], list(t.shape)))
            feeds.append(numpy_helper.from_array(value, name))
    nodes = [helper.make_node(n.op, n.inputs, n.outputs, name='%s_%d' % (n.op, k), **n.attrs)
             for k, n in enumerate(case.nodes)]
    outputs = [helper.make_tensor_value_info(name, ELEM[dtype] if dtype else TensorProto.UNDEFINED,
                                             list(shape) if shape is not None else None)
               for name, dtype, shape in case.outputs]
    model = helper.make_model(
        helper.make_graph(nodes, case.id, inputs, outputs, initializer=inits),
        opset_imports=[helper.make_opsetid('', case.opset)], producer_name='strata-op-benchmark')
    model.ir_version = 9 if case.opset >= 19 else 8 if case.opset >= 15 else 7
    if any(dtype is None for _, dtype, _ in case.outputs):
        inferred = shape_inference.infer_shapes(model, strict_mode=True)
        known = {v.name: v for v in inferred.graph.output}
        for k, (name, dtype, _) in enumerate(case.outputs):
            t = known[name].type.tensor_type
            if dtype is None and (not t.elem_type or not t.HasField('shape') or
                                  any(not d.HasField('dim_value') for d in t.shape.dim)):
                raise ValueError('%s: no static shape inferred for output %s (declare it in table.py)'
                                 % (case.id, name))
            if dtype is None:
                model.graph.output[k].CopyFrom(known[name])
    return model, feeds


def floor_model():
    """Add of two one-element inputs: what a run costs with nothing to do."""
    x = [helper.make_tensor_value_info(n, TensorProto.FLOAT, [1]) for n in 'ab']
    y = helper.make_tensor_value_info('y', TensorProto.FLOAT, [1])
    model = helper.make_model(helper.make_graph([helper.make_node('Add', ['a', 'b'], ['y'], name='add')],
                                                'floor', x, [y]),
                              opset_imports=[helper.make_opsetid('', 17)], producer_name='strata-op-benchmark')
    model.ir_version = 8
    feeds = [numpy_helper.from_array(np.array([k + 1.0], np.float32), n) for k, n in enumerate('ab')]
    return model, feeds


def write(folder, model, feeds):
    os.makedirs(os.path.join(folder, 'test_data_set_0'), exist_ok=True)
    onnx.save(model, os.path.join(folder, 'model.onnx'))
    for k, feed in enumerate(feeds):
        with open(os.path.join(folder, 'test_data_set_0', 'input_%d.pb' % k), 'wb') as fh:
            fh.write(feed.SerializeToString())


def main(argv):
    if not argv:
        print('usage: make-models.py OUT [FAMILY|CASE ...]', file=sys.stderr)
        return 2
    out, only = argv[0], set(argv[1:])
    cases = [c for c in table.CASES if not only or c.family in only or c.id in only]
    unknown = only - {c.family for c in table.CASES} - {c.id for c in table.CASES}
    if unknown:
        print('make-models.py: no family or case %s' % ', '.join(sorted(unknown)), file=sys.stderr)
        return 2
    os.makedirs(out, exist_ok=True)
    rows = []
    for case in cases:
        write(os.path.join(out, case.id), *build(case))
        rows.append('\t'.join([case.id, case.family, case.label, case.source,
                               ','.join(sorted(case.op_types())), str(case.opset)]))
    write(os.path.join(out, '_floor'), *floor_model())
    with open(os.path.join(out, 'cases.tsv'), 'w') as fh:
        fh.write('\n'.join(rows) + '\n')
    print('make-models.py: %d cases in %s' % (len(rows), out))
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))

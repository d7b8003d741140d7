#!/usr/bin/python3
# ===- f64-ref.py - float64 reference outputs for the wild-model corpus ----===#
"""Float64 reference outputs for the wild-model corpus, and the error table.

Usage: /usr/bin/python3 benchmarks/wild/f64-ref.py [--corpus DIR] [--out DIR]
           [--strata DIR] [--pipeline NAME] [--reuse] [--json FILE] [ID...]

ONNX Runtime's float32 outputs are a reference with an error of their own,
and ORT cannot run these models in float64 (no double Conv). So this script
runs each model's graph with a small ONNX interpreter written on PyTorch
(torch.nn.functional and friends; the 52 op types of the corpus, If
branches included, per the ONNX spec of the opset each model imports), in
one of two precisions:

  float32  validates the interpreter: it must agree with ONNX Runtime to
           ~1e-5 (rel-L2) before its float64 run is trusted;
  float64  the reference: every float tensor (inputs, initializers, float16
           ones included) and every Cast to a float type in float64, i.e.
           the function the model's stored weights define, evaluated with
           float64 rounding.
Integer and bool tensors keep their type in both (shapes, indices, the
quantized model's uint8 and int32 tensors; ConvInteger is exact).

For each model in --corpus (build/wild: <id>/model.onnx, the
test_data_set_N/input_K.pb of make-inputs.py and, beside them, ONNX
Runtime's output_K.pb from ort-ref.mjs) it writes, under --out (default:
the corpus),
  <id>/test_data_set_N/reference_f64/output_K.pb   ONNX TensorProto, float64
      for float outputs (the graph's type otherwise), named after the output
  <id>/f64-ref.json   every number below, per input set and output
and prints a markdown table with, per model, the largest rel-L2
(||a - b|| / ||b||) over its outputs and input sets:
  interp f32 vs ORT   the validation
  interp f32 vs f64   what a plain float32 evaluation (PyTorch's) is off by
  ORT vs f64          ONNX Runtime's own float32 error
  Strata vs f64       with --strata DIR (run-wild.sh's OUT): Strata's
                      outputs, DIR/<id>/<pipeline>/out/test_data_set_N/
                      output_K.pb (--pipeline: onednn)
  Strata / ORT        the ratio of the two (the accuracy contract: <= 2; an
                      ORT error below 2^-24 counts as 2^-24)
Every graph input is fed from its input_K.pb, the ones models.json freezes
with --input-value (Silero's sample rate) included. A model that cannot be
run gets the reason in the table; none is left out. --reuse takes an
earlier run's f64-ref.json and reference_f64/ instead of recomputing (to add
--strata later). One thread, deterministic; the whole corpus takes about 8
minutes on one core, the two isnet-*-1024 models 7 of them, up to 4 GB of
memory. Needs numpy, onnx and torch (Debian: python3-onnx python3-torch).
"""
import argparse
import functools
import heapq
import json
import math
import os
import sys
import time
from collections import ChainMap

import numpy as np
import onnx
import torch
import torch.nn.functional as F
from onnx import helper, numpy_helper

HERE = os.path.dirname(os.path.abspath(__file__))
ROOT = os.path.dirname(os.path.dirname(HERE))

# ONNX TensorProto data_type: float, float16, double, bfloat16 (all computed
# in the run's dtype) and the integer types torch has.
FLOAT_TYPES = (1, 10, 11, 16)
INT_TYPES = {2: torch.uint8, 3: torch.int8, 5: torch.int16, 6: torch.int32,
             7: torch.int64, 9: torch.bool}


# --- the interpreter ---------------------------------------------------------

OPS = {}


def op(*names):
    """Registers an op implementation: fn(interpreter, inputs, attrs, node)."""
    def register(fn):
        for name in names:
            OPS[name] = fn
        return fn
    return register


def attributes(node):
    """The node's attributes as Python values (strings decoded)."""
    out = {}
    for a in node.attribute:
        v = helper.get_attribute_value(a)
        if isinstance(v, bytes):
            v = v.decode()
        elif isinstance(v, list) and v and isinstance(v[0], bytes):
            v = [s.decode() for s in v]
        out[a.name] = v
    return out


def node_reads(node):
    """The value names a node reads, its subgraphs' included (an If branch
    reads the outer scope)."""
    names = {n for n in node.input if n}
    for a in node.attribute:
        for g in ([a.g] if a.type == onnx.AttributeProto.GRAPH else list(a.graphs)):
            for sub in g.node:
                names |= node_reads(sub)
    return names


def topological(graph, env):
    """graph's nodes in an order that computes every value before it is
    read: the stored order where it does that (ONNX asks for it, but some
    exporters append nodes, e.g. the isnet-fp16 model's Casts), else the
    ready node that comes first in the stored order (deterministic)."""
    producer = {n: i for i, node in enumerate(graph.node) for n in node.output if n}
    deps = [{producer[n] for n in node_reads(node) if n in producer and n not in env}
            for node in graph.node]
    users = [[] for _ in graph.node]
    for i, d in enumerate(deps):
        for j in d:
            users[j].append(i)
    waiting = [len(d) for d in deps]
    ready = [i for i, w in enumerate(waiting) if w == 0]
    heapq.heapify(ready)
    order = []
    while ready:
        i = heapq.heappop(ready)
        order.append(graph.node[i])
        for u in users[i]:
            waiting[u] -= 1
            if waiting[u] == 0:
                heapq.heappush(ready, u)
    if len(order) != len(graph.node):
        raise ValueError('the graph has a cycle or reads a value nothing computes')
    return order


class Interpreter:
    """Runs an ONNX ModelProto's main graph on torch tensors, every float
    tensor (float16 and float64 ones included) in dtype (torch.float32 or
    torch.float64), integer and bool tensors in their own type."""

    def __init__(self, model, dtype):
        self.dtype = dtype
        self.opset = next((o.version for o in model.opset_import
                           if o.domain in ('', 'ai.onnx')), None)
        self.graph = model.graph
        self.initializers = {t.name: self.tensor(t) for t in model.graph.initializer}

    def torch_dtype(self, onnx_type):
        if onnx_type in FLOAT_TYPES:
            return self.dtype
        if onnx_type not in INT_TYPES:
            raise NotImplementedError(f'tensor type {onnx.TensorProto.DataType.Name(onnx_type)}')
        return INT_TYPES[onnx_type]

    def tensor(self, proto):
        """A TensorProto as a torch tensor, floats in the compute dtype."""
        return self.array(numpy_helper.to_array(proto), proto.data_type)

    def array(self, arr, onnx_type=None):
        """A numpy array as a torch tensor, floats in the compute dtype."""
        if onnx_type is None:
            onnx_type = helper.np_dtype_to_tensor_dtype(arr.dtype) if hasattr(
                helper, 'np_dtype_to_tensor_dtype') else onnx.mapping.NP_TYPE_TO_TENSOR_TYPE[arr.dtype]
        dtype = self.torch_dtype(onnx_type)
        return torch.from_numpy(np.array(arr)).to(dtype)

    def run(self, feeds):
        """feeds: {input name: numpy array} -> [numpy array per graph output]."""
        env = dict(self.initializers)
        for name, arr in feeds.items():
            env[name] = self.array(arr)
        outs = self.run_graph(self.graph, env)
        return [o.numpy() for o in outs]

    def run_graph(self, graph, env):
        """Runs graph's nodes in env (a dict or a ChainMap over the outer
        scope); returns its outputs. Values die after their last use."""
        outputs = {o.name for o in graph.output}
        nodes = topological(graph, env)
        reads = [node_reads(node) for node in nodes]
        last = {n: i for i, names in enumerate(reads) for n in names}
        local = env.maps[0] if isinstance(env, ChainMap) else env
        for i, node in enumerate(nodes):
            try:
                self.run_node(node, env)
            except Exception as e:
                raise RuntimeError(f'{node.op_type} node {node.name or node.output[0]!r}: '
                                   f'{type(e).__name__}: {e}') from e
            for n in reads[i]:
                if last[n] == i and n in local and n not in outputs:
                    del local[n]
        return [env[o.name] for o in graph.output]

    def run_node(self, node, env):
        if node.domain not in ('', 'ai.onnx'):
            raise NotImplementedError(f'op {node.domain}::{node.op_type}')
        fn = OPS.get(node.op_type)
        if fn is None:
            raise NotImplementedError(f'op {node.op_type}')
        inputs = [env[n] if n else None for n in node.input]
        a = attributes(node)
        self.scope = env                    # the outer scope of If's branches
        outs = fn(self, inputs, a, node)
        if not isinstance(outs, (list, tuple)):
            outs = [outs]
        for name, t in zip(node.output, outs):
            if name:
                env[name] = t

    def run_subgraph(self, graph, env):
        scope = ChainMap({t.name: self.tensor(t) for t in graph.initializer}, env)
        return self.run_graph(graph, scope)


def ints(t):
    """A 1-D (or 0-d) integer tensor as a list of Python ints."""
    return [int(v) for v in t.reshape(-1).tolist()]


def scalar(t):
    """The first element of a tensor as a Python number."""
    return t.reshape(-1)[0].item()


def given(t):
    """An optional input that is present and not an empty tensor."""
    return t is not None and t.numel() > 0


# --- elementwise -------------------------------------------------------------

UNARY = {
    'Relu': torch.relu, 'Sigmoid': torch.sigmoid, 'Tanh': torch.tanh,
    'Exp': torch.exp, 'Log': torch.log, 'Sqrt': torch.sqrt, 'Neg': torch.neg,
    'Not': torch.logical_not, 'Identity': lambda t: t,
}


@op(*UNARY)
def unary(it, x, a, node):
    return UNARY[node.op_type](x[0])


def divide(p, q):
    if not p.is_floating_point() and not q.is_floating_point():
        return torch.div(p, q, rounding_mode='trunc')       # C integer division
    return p / q


BINARY = {
    'Add': torch.add, 'Sub': torch.sub, 'Mul': torch.mul, 'Div': divide,
    'Pow': lambda p, q: torch.pow(p, q).to(p.dtype),        # the base's type
    'Equal': torch.eq, 'GreaterOrEqual': torch.ge,
}


@op(*BINARY)
def binary(it, x, a, node):
    return BINARY[node.op_type](x[0], x[1])


@op('Max')
def max_(it, x, a, node):
    return functools.reduce(torch.maximum, x)


@op('Clip')
def clip(it, x, a, node):
    if it.opset < 11:
        lo, hi = a.get('min', -math.inf), a.get('max', math.inf)
    else:
        lo = scalar(x[1]) if len(x) > 1 and given(x[1]) else None
        hi = scalar(x[2]) if len(x) > 2 and given(x[2]) else None
    return torch.clamp(x[0], lo, hi)


@op('HardSigmoid')
def hard_sigmoid(it, x, a, node):
    return torch.clamp(a.get('alpha', 0.2) * x[0] + a.get('beta', 0.5), 0, 1)


@op('LeakyRelu')
def leaky_relu(it, x, a, node):
    return F.leaky_relu(x[0], a.get('alpha', 0.01))


@op('PRelu')
def prelu(it, x, a, node):
    return torch.where(x[0] < 0, x[0] * x[1], x[0])


@op('Cast')
def cast(it, x, a, node):
    return x[0].to(it.torch_dtype(a['to']))


# --- constants and shapes ----------------------------------------------------

@op('Constant')
def constant(it, x, a, node):
    if 'value' in a:
        return it.tensor(a['value'])
    if 'value_float' in a:
        return torch.tensor(a['value_float'], dtype=it.dtype)
    if 'value_floats' in a:
        return torch.tensor(a['value_floats'], dtype=it.dtype)
    if 'value_int' in a:
        return torch.tensor(a['value_int'], dtype=torch.int64)
    if 'value_ints' in a:
        return torch.tensor(a['value_ints'], dtype=torch.int64)
    raise NotImplementedError(f'Constant with {sorted(a)}')


@op('ConstantOfShape')
def constant_of_shape(it, x, a, node):
    value = it.tensor(a['value']) if 'value' in a else torch.zeros(1, dtype=it.dtype)
    return torch.full(ints(x[0]), value.reshape(-1)[0].item(), dtype=value.dtype)


@op('Shape')
def shape(it, x, a, node):
    dims = list(x[0].shape)
    start, end = a.get('start', 0), a.get('end', None)
    return torch.tensor(dims[start:end], dtype=torch.int64)


@op('Size')
def size(it, x, a, node):
    return torch.tensor(x[0].numel(), dtype=torch.int64)


@op('Reshape')
def reshape(it, x, a, node):
    dims = ints(x[1])
    if not a.get('allowzero', 0):
        dims = [x[0].shape[i] if d == 0 else d for i, d in enumerate(dims)]
    return x[0].reshape(dims)


@op('Flatten')
def flatten(it, x, a, node):
    axis = a.get('axis', 1)
    axis += x[0].dim() if axis < 0 else 0
    return x[0].reshape(math.prod(x[0].shape[:axis]), math.prod(x[0].shape[axis:]))


@op('Transpose')
def transpose(it, x, a, node):
    return x[0].permute(a.get('perm', list(range(x[0].dim()))[::-1]))


def axes_of(it, x, a, k, first_opset):
    """The axes of Squeeze/Unsqueeze/Reduce*: an attribute before
    first_opset, input k from then on; None when absent."""
    if it.opset < first_opset:
        return a.get('axes')
    return ints(x[k]) if len(x) > k and given(x[k]) else None


@op('Squeeze')
def squeeze(it, x, a, node):
    axes = axes_of(it, x, a, 1, 13)
    t = x[0]
    if axes is None:
        return t.reshape([d for d in t.shape if d != 1])
    for ax in sorted((ax % t.dim() for ax in axes), reverse=True):
        t = t.squeeze(ax)
    return t


@op('Unsqueeze')
def unsqueeze(it, x, a, node):
    axes = axes_of(it, x, a, 1, 13)
    t = x[0]
    rank = t.dim() + len(axes)
    for ax in sorted(ax % rank for ax in axes):
        t = t.unsqueeze(ax)
    return t


@op('Concat')
def concat(it, x, a, node):
    return torch.cat(x, dim=a['axis'])


@op('Split')
def split(it, x, a, node):
    t, axis = x[0], a.get('axis', 0)
    n, dim = len(node.output), t.shape[axis]
    if it.opset < 13:
        sizes = a.get('split')
    else:
        sizes = ints(x[1]) if len(x) > 1 and given(x[1]) else None
    if sizes is None:
        if 'num_outputs' in a:              # opset 18: the last part may be smaller
            n = a['num_outputs']
            part = -(-dim // n)
            sizes = [part] * (n - 1) + [dim - part * (n - 1)]
        else:
            sizes = [dim // n] * n
    return list(torch.split(t, sizes, dim=axis))


@op('Slice')
def slice_(it, x, a, node):
    t = x[0]
    if it.opset < 10:
        starts, ends = a['starts'], a['ends']
        axes = a.get('axes', list(range(len(starts))))
        steps = [1] * len(starts)
    else:
        starts, ends = ints(x[1]), ints(x[2])
        axes = ints(x[3]) if len(x) > 3 and given(x[3]) else list(range(len(starts)))
        steps = ints(x[4]) if len(x) > 4 and given(x[4]) else [1] * len(starts)
    for start, end, axis, step in zip(starts, ends, axes, steps):
        axis %= t.dim()
        dim = t.shape[axis]
        start += dim if start < 0 else 0
        end += dim if end < 0 else 0
        if step > 0:                        # clamping of the spec
            start, end = min(max(start, 0), dim), min(max(end, 0), dim)
            t = t.narrow(axis, start, max(end - start, 0))[
                (slice(None),) * axis + (slice(None, None, step),)]
        else:
            start, end = min(max(start, 0), dim - 1), min(max(end, -1), dim - 1)
            t = t.index_select(axis, torch.arange(start, end, step))
    return t


@op('Gather')
def gather(it, x, a, node):
    t, idx = x[0], x[1].to(torch.int64)
    axis = a.get('axis', 0) % t.dim()
    idx = torch.where(idx < 0, idx + t.shape[axis], idx)
    out = t.index_select(axis, idx.reshape(-1))
    return out.reshape(t.shape[:axis] + idx.shape + t.shape[axis + 1:])


@op('Pad')
def pad(it, x, a, node):
    t = x[0]
    mode = a.get('mode', 'constant')
    if it.opset < 11:
        pads, value = a['pads'], a.get('value', 0.0)
        axes = list(range(t.dim()))
    else:
        pads = ints(x[1])
        value = scalar(x[2]) if len(x) > 2 and given(x[2]) else 0
        axes = ints(x[3]) if len(x) > 3 and given(x[3]) else list(range(t.dim()))
    axes = [ax % t.dim() for ax in axes]
    begin, end = pads[:len(axes)], pads[len(axes):]
    if mode == 'constant':
        spec = [0] * (2 * t.dim())                 # F.pad: last axis first
        for ax, b, e in zip(axes, begin, end):
            spec[2 * (t.dim() - 1 - ax)] = b
            spec[2 * (t.dim() - 1 - ax) + 1] = e
        return F.pad(t, spec, value=value)
    for ax, b, e in zip(axes, begin, end):           # reflect, edge, wrap: an index map
        n = t.shape[ax]
        i = torch.arange(-b, n + e)
        if mode == 'edge' or (mode == 'reflect' and n == 1):
            i = i.clamp(0, n - 1)
        elif mode == 'reflect':
            i = i.remainder(2 * n - 2)
            i = torch.where(i >= n, 2 * n - 2 - i, i)
        elif mode == 'wrap':
            i = i.remainder(n)
        else:
            raise NotImplementedError(f'Pad mode {mode}')
        t = t.index_select(ax, i)
    return t


# --- reductions and normalisation --------------------------------------------

def reduce(fn, it, x, a, first_opset):
    t = x[0]
    axes = axes_of(it, x, a, 1, first_opset)
    if not axes:
        if a.get('noop_with_empty_axes', 0):
            return t
        axes = list(range(t.dim()))
    return fn(t, dim=[ax % t.dim() for ax in axes], keepdim=bool(a.get('keepdims', 1)))


@op('ReduceMean')
def reduce_mean(it, x, a, node):
    return reduce(torch.mean, it, x, a, 18)


@op('ReduceMax')
def reduce_max(it, x, a, node):
    return reduce(torch.amax, it, x, a, 18)


@op('Softmax')
def softmax(it, x, a, node):
    t = x[0]
    if it.opset < 13:        # the input coerced to 2-D at axis, softmax over the second
        axis = a.get('axis', 1) % t.dim()
        flat = t.reshape(math.prod(t.shape[:axis]), math.prod(t.shape[axis:]))
        return torch.softmax(flat, dim=1).reshape(t.shape)
    return torch.softmax(t, dim=a.get('axis', -1))


@op('BatchNormalization')
def batch_norm(it, x, a, node):
    if a.get('training_mode', 0):
        raise NotImplementedError('BatchNormalization training_mode')
    t, scale, bias, mean, var = x[:5]
    return F.batch_norm(t, mean, var, scale, bias, training=False, eps=a.get('epsilon', 1e-5))


@op('GlobalAveragePool')
def global_average_pool(it, x, a, node):
    return x[0].mean(dim=list(range(2, x[0].dim())), keepdim=True)


# --- matrix products ---------------------------------------------------------

@op('MatMul')
def matmul(it, x, a, node):
    return torch.matmul(x[0], x[1])


@op('Gemm')
def gemm(it, x, a, node):
    p = x[0].t() if a.get('transA', 0) else x[0]
    q = x[1].t() if a.get('transB', 0) else x[1]
    y = a.get('alpha', 1.0) * (p @ q)
    if len(x) > 2 and x[2] is not None:
        y = y + a.get('beta', 1.0) * x[2]
    return y


# --- convolution and pooling -------------------------------------------------

def spatial_pads(a, in_sizes, kernel, strides, dilations):
    """(begin pads, end pads) per spatial axis: explicit or auto_pad."""
    n = len(in_sizes)
    auto = a.get('auto_pad', 'NOTSET')
    if auto in ('NOTSET', ''):
        pads = a.get('pads', [0] * (2 * n))
        return list(pads[:n]), list(pads[n:])
    if auto == 'VALID':
        return [0] * n, [0] * n
    begin, end = [], []
    for size, k, s, d in zip(in_sizes, kernel, strides, dilations):
        total = max(0, (-(-size // s) - 1) * s + (k - 1) * d + 1 - size)
        small = total // 2
        begin.append(small if auto == 'SAME_UPPER' else total - small)
        end.append(total - begin[-1])
    return begin, end


def pad_spatial(t, begin, end, value=0.0):
    """Pads (or crops, negative) the trailing spatial axes of t."""
    spec = []
    for b, e in zip(reversed(begin), reversed(end)):
        spec += [b, e]
    return F.pad(t, spec, value=value) if any(spec) else t


def conv_nd(t, w, bias, a, transpose=False):
    """Conv or ConvTranspose of t ([N, C, spatial...]) with attributes a."""
    n = t.dim() - 2
    kernel = a.get('kernel_shape') or list(w.shape[2:])
    strides = a.get('strides', [1] * n)
    dilations = a.get('dilations', [1] * n)
    group = a.get('group', 1)
    if not transpose:
        begin, end = spatial_pads(a, t.shape[2:], kernel, strides, dilations)
        conv = getattr(F, f'conv{n}d')
        if begin == end:
            return conv(t, w, bias, strides, begin, dilations, group)
        return conv(pad_spatial(t, begin, end), w, bias, strides, 0, dilations, group)
    # ConvTranspose: the full transposed convolution, then output_padding
    # (zeros, bias only) and the pads cropped; output_shape decides the pads.
    out_pad = a.get('output_padding', [0] * n)
    full = getattr(F, f'conv_transpose{n}d')(t, w, None, strides, 0, 0, group, dilations)
    sizes = [s + p for s, p in zip(full.shape[2:], out_pad)]
    if 'output_shape' in a:
        target = a['output_shape'][-n:]
        total = [sz - o for sz, o in zip(sizes, target)]
        if a.get('auto_pad', 'NOTSET') == 'SAME_UPPER':
            begin = [p // 2 for p in total]
        else:
            begin = [p - p // 2 for p in total]
        end = [p - b for p, b in zip(total, begin)]
    elif a.get('auto_pad', 'NOTSET') in ('SAME_UPPER', 'SAME_LOWER'):
        target = [s * st for s, st in zip(t.shape[2:], strides)]
        total = [sz - o for sz, o in zip(sizes, target)]
        small = [p // 2 for p in total]
        begin = small if a['auto_pad'] == 'SAME_UPPER' else [p - q for p, q in zip(total, small)]
        end = [p - b for p, b in zip(total, begin)]
    else:
        pads = a.get('pads', [0] * (2 * n))
        begin, end = list(pads[:n]), list(pads[n:])
    y = pad_spatial(full, [0] * n, out_pad)
    y = pad_spatial(y, [-b for b in begin], [-e for e in end])
    if bias is not None:
        y = y + bias.reshape([1, -1] + [1] * n)
    return y


@op('Conv')
def conv(it, x, a, node):
    return conv_nd(x[0], x[1], x[2] if len(x) > 2 else None, a)


@op('ConvTranspose')
def conv_transpose(it, x, a, node):
    return conv_nd(x[0], x[1], x[2] if len(x) > 2 else None, a, transpose=True)


@op('ConvInteger')
def conv_integer(it, x, a, node):
    # Exact: the products and sums of 8-bit values fit float64's 53 bits.
    # The zero points subtracted first, so that zero padding pads x with
    # its zero point, as the spec does.
    t = x[0].to(torch.float64)
    w = x[1].to(torch.float64)
    if len(x) > 2 and x[2] is not None:
        t = t - scalar(x[2])
    if len(x) > 3 and x[3] is not None:
        zp = x[3].to(torch.float64)
        w = w - (zp.reshape([-1] + [1] * (w.dim() - 1)) if zp.numel() > 1 else scalar(zp))
    return torch.round(conv_nd(t, w, None, a)).to(torch.int32)


@op('DynamicQuantizeLinear')
def dynamic_quantize_linear(it, x, a, node):
    t = x[0]
    lo = torch.clamp(t.min(), max=0)
    hi = torch.clamp(t.max(), min=0)
    scale = (hi - lo) / 255
    zero = torch.clamp(torch.round(0 - lo / scale), 0, 255)    # round half to even
    q = torch.clamp(torch.round(t / scale) + zero, 0, 255)
    return q.to(torch.uint8), scale, zero.to(torch.uint8)


def pool_geometry(a, in_sizes):
    """ONNX pooling geometry: (kernel, strides, dilations, begin pads, end
    pads, need), need being the padded length each spatial axis must have
    for floor-mode pooling without padding to give the spec's output size
    (ceil_mode included: no window starts in the end padding)."""
    n = len(in_sizes)
    kernel = a['kernel_shape']
    strides = a.get('strides', [1] * n)
    dilations = a.get('dilations', [1] * n)
    begin, end = spatial_pads(a, in_sizes, kernel, strides, dilations)
    out, need = [], []
    for i in range(n):
        span = (kernel[i] - 1) * dilations[i] + 1
        room = in_sizes[i] + begin[i] + end[i] - span
        if a.get('ceil_mode', 0):
            o = -(-room // strides[i]) + 1
            if (o - 1) * strides[i] >= in_sizes[i] + begin[i]:   # a window starting in the end pad
                o -= 1
        else:
            o = room // strides[i] + 1
        out.append(o)
        need.append((o - 1) * strides[i] + span)
    return kernel, strides, dilations, begin, end, need


@op('MaxPool')
def max_pool(it, x, a, node):
    if len(node.output) > 1 and node.output[1]:
        raise NotImplementedError('MaxPool Indices output')
    t = x[0]
    kernel, strides, dilations, begin, _, need = pool_geometry(a, t.shape[2:])
    tail = [nd - s - b for nd, s, b in zip(need, t.shape[2:], begin)]
    p = pad_spatial(t, begin, tail, value=-math.inf)
    return getattr(F, f'max_pool{t.dim() - 2}d')(p, kernel, strides, 0, dilations)


@op('AveragePool')
def average_pool(it, x, a, node):
    t = x[0]
    n = t.dim() - 2
    kernel, strides, dilations, begin, end, need = pool_geometry(a, t.shape[2:])
    if any(d != 1 for d in dilations):
        raise NotImplementedError('AveragePool dilations')
    tail = [nd - s - b for nd, s, b in zip(need, t.shape[2:], begin)]
    # Sums over each window, divided by the count of the window's elements
    # inside the input (count_include_pad: inside input and pads).
    mask = torch.ones([1, 1] + list(t.shape[2:]), dtype=t.dtype)
    if a.get('count_include_pad', 0):
        mask = pad_spatial(mask, begin, end, value=1.0)
        mask = pad_spatial(mask, [0] * n, [nd - m for nd, m in zip(need, mask.shape[2:])])
    else:
        mask = pad_spatial(mask, begin, tail)
    p = pad_spatial(t, begin, tail)
    if n == 1:                                    # as 2-D: divisor_override needs it
        p, mask = p.unsqueeze(-2), mask.unsqueeze(-2)
        kernel, strides = [1] + list(kernel), [1] + list(strides)
    pool = getattr(F, f'avg_pool{max(n, 2)}d')
    sums = pool(p, kernel, strides, 0, divisor_override=1)
    counts = pool(mask, kernel, strides, 0, divisor_override=1)
    y = sums / counts
    return y.squeeze(-2) if n == 1 else y


# --- Resize ------------------------------------------------------------------

def source_coords(mode, out_len, in_len, scale, roi, dtype):
    """x_original for each output index of one axis, per
    coordinate_transformation_mode (ONNX Resize, opset 11..19)."""
    x = torch.arange(out_len, dtype=dtype)
    scale = torch.tensor(scale, dtype=dtype)
    if mode == 'half_pixel':
        return (x + 0.5) / scale - 0.5
    if mode == 'half_pixel_symmetric':
        adjust = out_len / (scale * in_len)
        return in_len / 2 * (1 - adjust) + (x + 0.5) / scale - 0.5
    if mode == 'pytorch_half_pixel':
        return (x + 0.5) / scale - 0.5 if out_len > 1 else torch.zeros_like(x)
    if mode == 'align_corners':
        return x * (in_len - 1) / (out_len - 1) if out_len > 1 else torch.zeros_like(x)
    if mode == 'asymmetric':
        return x / scale
    if mode == 'tf_crop_and_resize':
        start, end = roi
        if out_len > 1:
            return start * (in_len - 1) + x * (end - start) * (in_len - 1) / (out_len - 1)
        return torch.full_like(x, 0.5 * (start + end) * (in_len - 1))
    raise NotImplementedError(f'Resize coordinate_transformation_mode {mode}')


def nearest_index(xo, mode):
    if mode == 'round_prefer_floor':
        return torch.ceil(xo - 0.5)
    if mode == 'round_prefer_ceil':
        return torch.floor(xo + 0.5)
    if mode == 'floor':
        return torch.floor(xo)
    if mode == 'ceil':
        return torch.ceil(xo)
    raise NotImplementedError(f'Resize nearest_mode {mode}')


@op('Resize')
def resize(it, x, a, node):
    if it.opset < 11:
        raise NotImplementedError('Resize before opset 11')
    t = x[0]
    roi = x[1] if len(x) > 1 and given(x[1]) else None
    scales = x[2] if len(x) > 2 and given(x[2]) else None
    sizes = x[3] if len(x) > 3 and given(x[3]) else None
    mode = a.get('mode', 'nearest')
    ctm = a.get('coordinate_transformation_mode', 'half_pixel')
    if mode not in ('nearest', 'linear') or a.get('antialias', 0):
        raise NotImplementedError(f'Resize mode {mode}' + (' antialias' if a.get('antialias') else ''))
    if a.get('keep_aspect_ratio_policy', 'stretch') != 'stretch':
        raise NotImplementedError('Resize keep_aspect_ratio_policy')
    axes = [ax % t.dim() for ax in a.get('axes', range(t.dim()))]
    dtype = t.dtype if t.is_floating_point() else it.dtype
    if sizes is not None:
        out = ints(sizes)
        scale = [o / t.shape[ax] for ax, o in zip(axes, out)]
    else:
        scale = [float(s) for s in scales.reshape(-1).tolist()]
        out = [int(math.floor(t.shape[ax] * s)) for ax, s in zip(axes, scale)]
    rois = [None] * len(axes)
    if ctm == 'tf_crop_and_resize':
        r = [float(v) for v in roi.reshape(-1).tolist()]
        rois = [(r[i], r[i + len(axes)]) for i in range(len(axes))]
    extrapolation = a.get('extrapolation_value', 0.0)
    for ax, o, s, r in zip(axes, out, scale, rois):
        n = t.shape[ax]
        if s != s or s <= 0:
            raise ValueError(f'Resize scale {s}')
        xo = source_coords(ctm, o, n, s, r, dtype)
        shape = [1] * t.dim()
        shape[ax] = o
        if mode == 'nearest':
            i = nearest_index(xo, a.get('nearest_mode', 'round_prefer_floor'))
            i = i.clamp(0, n - 1).to(torch.int64)
            if o == n and torch.equal(i, torch.arange(n)) and ctm != 'tf_crop_and_resize':
                continue
            y = t.index_select(ax, i)
        else:
            xc = xo.clamp(0, n - 1)
            i0 = torch.floor(xc).to(torch.int64).clamp(max=n - 1)
            i1 = (i0 + 1).clamp(max=n - 1)
            w1 = xc - i0.to(dtype)                 # ORT: |x - x0|, |x - x1|; 0.5 each at the edge
            w0 = i1.to(dtype) - xc
            same = i0 == i1
            w0 = torch.where(same, torch.full_like(w0, 0.5), w0)
            w1 = torch.where(same, torch.full_like(w1, 0.5), w1)
            if o == n and torch.equal(i0, torch.arange(n)) and not w1[~same].any() \
                    and ctm != 'tf_crop_and_resize':
                continue
            y = (t.index_select(ax, i0) * w0.reshape(shape).to(t.dtype) +
                 t.index_select(ax, i1) * w1.reshape(shape).to(t.dtype))
        if ctm == 'tf_crop_and_resize':
            outside = ((xo < 0) | (xo > n - 1)).reshape(shape)
            y = torch.where(outside, torch.tensor(extrapolation, dtype=y.dtype), y)
        t = y
    return t


# --- recurrence and control flow ---------------------------------------------

@op('LSTM')
def lstm(it, x, a, node):
    """ONNX LSTM (gates i, o, f, c) as torch.nn.LSTM (gates i, f, g=c, o)."""
    t, w, r = x[0], x[1], x[2]
    b = x[3] if len(x) > 3 else None
    seq_lens = x[4] if len(x) > 4 else None
    h0 = x[5] if len(x) > 5 else None
    c0 = x[6] if len(x) > 6 else None
    peep = x[7] if len(x) > 7 else None
    hidden = a['hidden_size']
    direction = a.get('direction', 'forward')
    if a.get('activations', ['Sigmoid', 'Tanh', 'Tanh'] * 2)[:3] != ['Sigmoid', 'Tanh', 'Tanh'] \
            or 'clip' in a or a.get('input_forget', 0) or (peep is not None and peep.any()):
        raise NotImplementedError('LSTM activations, clip, input_forget or peepholes')
    if a.get('layout', 0):
        t = t.transpose(0, 1)                       # [batch, seq, ...] -> [seq, batch, ...]
        h0 = h0.transpose(0, 1) if h0 is not None else None
        c0 = c0.transpose(0, 1) if c0 is not None else None
    seq, batch = t.shape[0], t.shape[1]
    if seq_lens is not None and bool((seq_lens != seq).any()):
        raise NotImplementedError('LSTM sequence_lens shorter than the sequence')
    dirs = w.shape[0]
    order = torch.cat([torch.arange(k * hidden, (k + 1) * hidden) for k in (0, 2, 3, 1)])
    cell = torch.nn.LSTM(t.shape[2], hidden, bidirectional=(dirs == 2), dtype=t.dtype)
    with torch.no_grad():
        for d in range(dirs):
            sfx = '_reverse' if d == 1 else ''
            getattr(cell, 'weight_ih_l0' + sfx).copy_(w[d][order])
            getattr(cell, 'weight_hh_l0' + sfx).copy_(r[d][order])
            bias = b[d] if b is not None else torch.zeros(8 * hidden, dtype=t.dtype)
            getattr(cell, 'bias_ih_l0' + sfx).copy_(bias[:4 * hidden][order])
            getattr(cell, 'bias_hh_l0' + sfx).copy_(bias[4 * hidden:][order])
        zeros = torch.zeros(dirs, batch, hidden, dtype=t.dtype)
        h = h0 if h0 is not None else zeros
        c = c0 if c0 is not None else zeros
        src = t.flip(0) if direction == 'reverse' else t
        y, (hn, cn) = cell(src, (h.contiguous(), c.contiguous()))
        if direction == 'reverse':
            y = y.flip(0)
    y = y.reshape(seq, batch, dirs, hidden).permute(0, 2, 1, 3)     # [seq, dirs, batch, hidden]
    if a.get('layout', 0):
        y, hn, cn = y.permute(2, 0, 1, 3), hn.transpose(0, 1), cn.transpose(0, 1)
    return y, hn, cn


@op('If')
def if_(it, x, a, node):
    branch = a['then_branch'] if bool(x[0].reshape(-1)[0]) else a['else_branch']
    return it.run_subgraph(branch, it.scope)


# --- the corpus --------------------------------------------------------------

def load_pb(path):
    return numpy_helper.to_array(onnx.load_tensor(path))


def rel_l2(got, want):
    """||got - want|| / ||want|| in float64; inf on a shape mismatch."""
    got = np.asarray(got, dtype=np.float64)
    want = np.asarray(want, dtype=np.float64)
    if got.size != want.size:
        return math.inf
    num = float(np.linalg.norm((got.reshape(want.shape) - want).ravel()))
    den = float(np.linalg.norm(want.ravel()))
    return num / den if den > 0 else (0.0 if num == 0 else math.inf)


def set_dirs(mdir):
    return sorted((d for d in os.listdir(mdir) if d.startswith('test_data_set_')),
                  key=lambda d: int(d.rsplit('_', 1)[1]))


def graph_inputs(model):
    inits = {t.name for t in model.graph.initializer}
    return [i.name for i in model.graph.input if i.name not in inits]


def outputs_of(d, n, prefix='output_'):
    """[array] of d/output_K.pb for K < n, or None if any is missing."""
    paths = [os.path.join(d, f'{prefix}{k}.pb') for k in range(n)]
    if not all(os.path.exists(p) for p in paths):
        return None
    return [load_pb(p) for p in paths]


def worst(values):
    values = [v for v in values if v is not None]
    return max(values) if values else None


def reference_model(mid, corpus, out, reuse):
    """Model mid's float32 validation and float64 reference: writes the
    reference outputs and returns (and writes) its f64-ref.json record.
    With reuse, an earlier run's record where there is one."""
    mdir = os.path.join(corpus, mid)
    record_path = os.path.join(out, mid, 'f64-ref.json')
    if reuse and os.path.exists(record_path):
        with open(record_path) as f:
            return json.load(f)
    rec = {'id': mid, 'sets': {}, 'float16': False, 'error': None}
    t0 = time.time()
    try:
        model = onnx.load(os.path.join(mdir, 'model.onnx'))
        rec['float16'] = any(t.data_type == 10 for t in model.graph.initializer)
        names = graph_inputs(model)
        out_names = [o.name for o in model.graph.output]
        sets = set_dirs(mdir)
        if not sets:
            raise FileNotFoundError('no test_data_set_N (run make-inputs.py)')
        feeds, ort = {}, {}
        for s in sets:
            feeds[s] = {name: load_pb(os.path.join(mdir, s, f'input_{k}.pb'))
                        for k, name in enumerate(names)}
            ort[s] = outputs_of(os.path.join(mdir, s), len(out_names))
            rec['sets'][s] = {'outputs': out_names}
        validate = Interpreter(model, torch.float32)
        f32 = {s: validate.run(feeds[s]) for s in sets}
        del validate
        rec['f32_seconds'] = time.time() - t0
        reference = Interpreter(model, torch.float64)
        for s in sets:
            ref = reference.run(feeds[s])
            r = rec['sets'][s]
            r['f32_vs_ort'] = [rel_l2(g, o) for g, o in zip(f32[s], ort[s])] if ort[s] else None
            r['f32_vs_f64'] = [rel_l2(g, f) for g, f in zip(f32[s], ref)]
            r['ort_vs_f64'] = [rel_l2(o, f) for o, f in zip(ort[s], ref)] if ort[s] else None
            dest = os.path.join(out, mid, s, 'reference_f64')
            os.makedirs(dest, exist_ok=True)
            for k, (name, arr) in enumerate(zip(out_names, ref)):
                with open(os.path.join(dest, f'output_{k}.pb'), 'wb') as f:
                    f.write(numpy_helper.from_array(arr, name).SerializeToString())
    except Exception as e:         # recorded and shown in the table, never skipped
        rec['error'] = f'{type(e).__name__}: {e}'.split('\n')[0][:300]
    rec['seconds'] = time.time() - t0
    os.makedirs(os.path.join(out, mid), exist_ok=True)
    with open(record_path, 'w') as f:
        json.dump(rec, f, indent=1)
        f.write('\n')
    return rec


def strata_errors(rec, mid, out, strata, pipeline):
    """({set: [Strata's rel-L2 against float64 per output]}, None), or
    (None, the reason there is none)."""
    errs = {}
    for s, r in rec['sets'].items():
        n = len(r['outputs'])
        got = outputs_of(os.path.join(strata, mid, pipeline, 'out', s), n)
        ref = outputs_of(os.path.join(out, mid, s, 'reference_f64'), n)
        if got is None:
            return None, f'no Strata outputs in {pipeline}/out/{s}'
        if ref is None:
            return None, 'no float64 reference'
        errs[s] = [rel_l2(g, f) for g, f in zip(got, ref)]
    return errs, None


# An error below float32's unit roundoff counts as that in the ratio (an
# output that saturates, e.g. at 1.0, has ORT error ~0).
ROUNDOFF32 = 2.0 ** -24


def largest(rec, key):
    """The largest rel-L2 of record rec's key over outputs and sets."""
    return worst(worst(r.get(key) or [None]) for r in rec['sets'].values())


def fmt(v):
    return '—' if v is None else ('inf' if math.isinf(v) else f'{v:.1e}')


def main():
    ap = argparse.ArgumentParser(description=__doc__.split('\n')[0])
    ap.add_argument('ids', nargs='*', metavar='ID')
    ap.add_argument('--corpus', default=os.path.join(ROOT, 'build', 'wild'),
                    help='models, inputs and ORT outputs (fetch.sh, make-inputs.py, ort-ref.mjs)')
    ap.add_argument('--out', help='where reference_f64/ and f64-ref.json go (default: --corpus)')
    ap.add_argument('--strata', help="run-wild.sh's OUT: Strata's outputs in <id>/<pipeline>/out/")
    ap.add_argument('--pipeline', default='onednn')
    ap.add_argument('--reuse', action='store_true', help="reuse an earlier run's f64-ref.json")
    ap.add_argument('--json', help='also write the table as a JSON list of per-model records '
                    '(benchmarks/models-summary.py --f64 reads it)')
    args = ap.parse_args()
    out = args.out or args.corpus
    torch.set_num_threads(1)
    torch.use_deterministic_algorithms(True)
    with open(os.path.join(HERE, 'models.json')) as f:
        meta = {m['id']: m for m in json.load(f)}
    ids = args.ids or sorted(d for d in os.listdir(args.corpus)
                             if os.path.exists(os.path.join(args.corpus, d, 'model.onnx')))
    head = ['model', 'sets', 'interp f32 vs ORT', 'interp f32 vs f64', 'ORT vs f64']
    if args.strata:
        head += [f'Strata ({args.pipeline}) vs f64', 'Strata / ORT']
    head += ['seconds', 'note']
    rows, records = [], []
    t0 = time.time()
    for mid in ids:
        rec = reference_model(mid, args.corpus, out, args.reuse)
        ort = largest(rec, 'ort_vs_f64')
        notes = []
        if meta.get(mid, {}).get('quantized'):
            notes.append('quantized')
        if rec.get('float16'):
            notes.append('float16 weights')
        if rec['error']:
            notes.append(f'not computed: {rec["error"]}')
        elif any(r.get('f32_vs_ort') is None for r in rec['sets'].values()):
            notes.append('no ORT outputs (run ort-ref.mjs)')
        row = [mid, str(len(rec['sets'])), fmt(largest(rec, 'f32_vs_ort')),
               fmt(largest(rec, 'f32_vs_f64')), fmt(ort)]
        record = dict(id=mid, sets=len(rec['sets']), f32_vs_ort=largest(rec, 'f32_vs_ort'),
                      f32_vs_f64=largest(rec, 'f32_vs_f64'), ort_vs_f64=ort, notes=notes)
        if args.strata:
            errs, why = (None, 'no float64 reference') if rec['error'] else \
                strata_errors(rec, mid, out, args.strata, args.pipeline)
            st = worst(worst(e) for e in errs.values()) if errs else None
            ratio = None if st is None or ort is None else st / max(ort, ROUNDOFF32)
            row += [fmt(st), '—' if ratio is None else f'{ratio:.2f}' + (' (> 2)' if ratio > 2 else '')]
            record.update(strata_vs_f64=st, ratio=ratio, pipeline=args.pipeline)
            if why:
                notes.append(why)
        row += [f'{rec["seconds"]:.1f}', '; '.join(notes)]
        rows.append(row)
        records.append(record)
        print(f'{mid}: ' + ', '.join(f'{h} {v}' for h, v in zip(head[1:], row[1:]) if v),
              file=sys.stderr, flush=True)
    print('| ' + ' | '.join(head) + ' |')
    print('|' + '|'.join('---' for _ in head) + '|')
    for row in rows:
        print('| ' + ' | '.join(row) + ' |')
    print(f'\n{len(rows)} models, {time.time() - t0:.0f} s' + (' (reused)' if args.reuse else ''))
    if args.json:
        with open(args.json, 'w') as f:
            json.dump(records, f, indent=1)
            f.write('\n')


if __name__ == '__main__':
    main()

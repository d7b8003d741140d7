#!/usr/bin/python3
# ===- table.py - the op benchmark's shape table --------------------------===#
#
# Every case is a one-node ONNX model (a few exporter idioms have two to
# five nodes) at a shape taken from the model zoo (models/zoo.py) or the
# wild corpus (benchmarks/wild), grouped in families: a family is an op type,
# or a variant that needs its own verdict (Conv/depthwise, Conv/1-D) or an
# exporter idiom (EmbeddingBag, GroupNorm). Pure data: no numpy or onnx
# here, so that the coverage check runs anywhere.
#
#   table.py --list-ops            op types the cases use, one a line
#   table.py --list-families       family, number of shapes
#   table.py --check OPS           OPS: `strata-translate --list-onnx-ops`;
#                                  fails naming each supported op type that
#                                  neither a case nor SKIPPED covers (and
#                                  each SKIPPED entry the importer lacks)
#
# make-models.py turns the cases into models; run-ops.sh times them.
# ===----------------------------------------------------------------------===#
import sys


class T:
    """A tensor: a graph input unless `weight` (an initializer).

    kind: normal (N(0,1)), uniform (lo, hi), int (lo..hi inclusive), bool,
    value (the given list, reshaped), unpool (MaxUnpool indices of a 2x2
    stride-2 pool)."""

    def __init__(self, shape, dtype='float32', kind='normal', lo=None,
                 hi=None, value=None, weight=False):
        self.shape, self.dtype, self.kind = tuple(shape), dtype, kind
        self.lo, self.hi, self.value, self.weight = lo, hi, value, weight


def f(*shape, lo=None, hi=None):
    """A float32 input: N(0,1), or uniform in [lo, hi)."""
    return T(shape, kind='uniform' if lo is not None else 'normal', lo=lo, hi=hi)


def w(*shape, lo=None, hi=None, dtype='float32'):
    """A float weight (initializer), N(0, 1/fan_in) scale, or uniform."""
    t = f(*shape, lo=lo, hi=hi)
    t.dtype, t.weight = dtype, True
    return t


def ints(lo, hi, *shape, dtype='int64', weight=False):
    return T(shape, dtype, 'int', lo, hi, weight=weight)


def bools(*shape):
    return T(shape, 'bool', 'bool')


def const(values, dtype='int64', shape=None):
    """An initializer with the given values (shape: 1-D, or `shape`; () for
    a scalar)."""
    values = list(values) if isinstance(values, (list, tuple)) else [values]
    return T(shape if shape is not None else (len(values),), dtype, 'value',
             value=values, weight=True)


def scalar(value, dtype='float32'):
    return const([value], dtype, ())


class Node:
    def __init__(self, op, inputs, outputs, attrs):
        self.op, self.inputs, self.outputs, self.attrs = op, inputs, outputs, attrs


def N(op, inputs, outputs, **attrs):
    return Node(op, inputs, outputs, attrs)


class Case:
    """nodes over named tensors; `tensors` maps each name that is not a
    node output to its T (graph inputs in insertion order)."""

    def __init__(self, family, label, source, nodes, tensors, opset, outputs):
        self.family, self.label, self.source = family, label, source
        self.nodes, self.tensors, self.opset = nodes, tensors, opset
        # Graph outputs: the last node's, unless given as (name, dtype,
        # shape) for ops whose output the installed onnx cannot infer (opset
        # 18 and later, Einsum, OneHot: exporters declare them static;
        # data-dependent shapes: a string is a symbolic dim).
        self.outputs = outputs or [(o, None, None) for o in nodes[-1].outputs if o]
        self.id = None

    def op_types(self):
        return {n.op for n in self.nodes}


CASES = []


def one(family, label, source, op, args, opset=17, nout=1, outputs=None, **attrs):
    """A one-node case; args: T per input (None: absent optional input)."""
    names, tensors = [], {}
    for k, t in enumerate(args):
        if t is None:
            names.append('')
            continue
        name = ('w%d' if t.weight else 'x%d') % k
        names.append(name)
        tensors[name] = t
    outs = ['y%d' % k for k in range(nout)]
    CASES.append(Case(family, label, source, [N(op, names, outs, **attrs)],
                      tensors, opset, outputs))


def graph(family, label, source, nodes, tensors, opset=17, outputs=None):
    CASES.append(Case(family, label, source, nodes, tensors, opset, outputs))


# Shapes used by many families: a CNN activation (resnet18 layer1) and a
# transformer hidden state (bert_encoder, 128 tokens).
A = (1, 64, 56, 56)
H = (1, 128, 768)
ATT = (1, 12, 128, 128)   # attention scores (bert_encoder)

# --- Convolutions -----------------------------------------------------------
one('Conv', '3x3 64->64 [1,64,56,56]', 'resnet18 layer1', 'Conv',
    [f(*A), w(64, 64, 3, 3), w(64)], pads=[1, 1, 1, 1])
one('Conv', '3x3 s2 64->128 [1,64,56,56]', 'resnet18 layer2', 'Conv',
    [f(*A), w(128, 64, 3, 3), w(128)], pads=[1, 1, 1, 1], strides=[2, 2])
one('Conv', '1x1 256->64 [1,256,56,56]', 'resnet50 bottleneck', 'Conv',
    [f(1, 256, 56, 56), w(64, 256, 1, 1), w(64)])
one('Conv', '7x7 s2 3->64 [1,3,224,224]', 'resnet stem', 'Conv',
    [f(1, 3, 224, 224), w(64, 3, 7, 7), w(64)], pads=[3, 3, 3, 3], strides=[2, 2])
one('Conv/depthwise', '3x3 [1,144,56,56]', 'mobilenet_v2', 'Conv',
    [f(1, 144, 56, 56), w(144, 1, 3, 3), w(144)], pads=[1, 1, 1, 1], group=144)
one('Conv/depthwise', '3x3 s2 [1,96,112,112]', 'mobilenet_v2', 'Conv',
    [f(1, 96, 112, 112), w(96, 1, 3, 3), w(96)], pads=[1, 1, 1, 1], strides=[2, 2], group=96)
one('Conv/depthwise', '5x5 [1,240,28,28]', 'efficientnet_b0', 'Conv',
    [f(1, 240, 28, 28), w(240, 1, 5, 5), w(240)], pads=[2, 2, 2, 2], group=240)
one('Conv/1-D', 'k3 64->64 [1,64,16000]', 'audio encoder (1 s at 16 kHz)', 'Conv',
    [f(1, 64, 16000), w(64, 64, 3), w(64)], pads=[1, 1])
one('Conv/1-D', 'STFT k256 s128 1->258 [1,1,16000]', 'silero-vad STFT', 'Conv',
    [f(1, 1, 16000), w(258, 1, 256)], strides=[128])
one('Conv/1-D', 'k3 129->128 [1,129,126]', 'silero-vad encoder', 'Conv',
    [f(1, 129, 126), w(128, 129, 3), w(128)], pads=[1, 1])
one('ConvTranspose', 'k2 s2 64->32 [1,64,80,80]', 'ppocr-det DB head', 'ConvTranspose',
    [f(1, 64, 80, 80), w(64, 32, 2, 2), w(32)], strides=[2, 2])
one('ConvTranspose', 'k4 s2 p1 64->64 [1,64,80,80]', 'U-Net upsampling', 'ConvTranspose',
    [f(1, 64, 80, 80), w(64, 64, 4, 4), w(64)], strides=[2, 2], pads=[1, 1, 1, 1])
one('ConvTranspose', 'k2 s2 128->64 [1,128,40,40]', 'U-Net decoder', 'ConvTranspose',
    [f(1, 128, 40, 40), w(128, 64, 2, 2), w(64)], strides=[2, 2])
one('ConvTranspose', 'depthwise k4 s2 p1 [1,21,64,64]', 'FCN bilinear upsampling', 'ConvTranspose',
    [f(1, 21, 64, 64), w(21, 1, 4, 4)], strides=[2, 2], pads=[1, 1, 1, 1], group=21)
for act, attrs, src in [('LeakyRelu', {'alpha': 0.1}, 'yolo-style backbone'),
                        ('HardSwish', {}, 'mobilenet_v3'),
                        ('Relu', {}, 'resnet (unfolded)')]:
    graph('Conv+activation', '3x3 64->64 [1,64,56,56] + %s' % act, src,
          [N('Conv', ['x', 'w', 'b'], ['c'], pads=[1, 1, 1, 1]),
           N(act, ['c'], ['y'], **attrs)],
          {'x': f(*A), 'w': w(64, 64, 3, 3), 'b': w(64)})
graph('Conv+activation', '1x1 [1,64,56,56] + SiLU (Sigmoid, Mul)', 'efficientnet / yolov5',
      [N('Conv', ['x', 'w', 'b'], ['c']), N('Sigmoid', ['c'], ['s']),
       N('Mul', ['c', 's'], ['y'])],
      {'x': f(*A), 'w': w(64, 64, 1, 1), 'b': w(64)})
one('ConvInteger', '3x3 u8 [1,64,56,56]', 'dynamic-quantized CNN', 'ConvInteger',
    [ints(0, 255, *A, dtype='uint8'), ints(0, 255, 64, 64, 3, 3, dtype='uint8', weight=True),
     const([128], 'uint8', ()), const([128], 'uint8', ())], pads=[1, 1, 1, 1])
one('ConvInteger', '1x1 u8 [1,256,28,28]', 'dynamic-quantized CNN', 'ConvInteger',
    [ints(0, 255, 1, 256, 28, 28, dtype='uint8'),
     ints(0, 255, 128, 256, 1, 1, dtype='uint8', weight=True),
     const([128], 'uint8', ()), const([128], 'uint8', ())])
one('DeformConv', '3x3 [1,64,56,56]', 'deformable detection head', 'DeformConv',
    [f(*A), w(64, 64, 3, 3), f(1, 18, 56, 56), w(64)], opset=19, pads=[1, 1, 1, 1],
    outputs=[('y0', 'float32', A)])

# --- Matrix products ---------------------------------------------------------
one('MatMul', '[1,128,768] x W[768,768]', 'bert_encoder projection', 'MatMul',
    [f(*H), w(768, 768)])
one('MatMul', '[12,128,64] x [12,64,128]', 'bert_encoder attention', 'MatMul',
    [f(12, 128, 64), f(12, 64, 128)])
one('MatMul', '[1,128,768] x W[768,3072]', 'bert_encoder FFN', 'MatMul',
    [f(*H), w(768, 3072)])
one('Gemm', '[1,2048] x W[1000,2048]^T', 'resnet50 classifier', 'Gemm',
    [f(1, 2048), w(1000, 2048), w(1000)], transB=1)
one('Gemm', '[1,1280] x W[1000,1280]^T', 'mobilenet_v2 classifier', 'Gemm',
    [f(1, 1280), w(1000, 1280), w(1000)], transB=1)
one('Gemm', '[64,512] x W[512,512]^T', 'face-feature embedding (batch 64)', 'Gemm',
    [f(64, 512), w(512, 512), w(512)], transB=1)
one('Einsum', 'bhqd,bhkd->bhqk [1,12,128,64]', 'vit / swin attention', 'Einsum',
    [f(1, 12, 128, 64), f(1, 12, 128, 64)], equation='bhqd,bhkd->bhqk',
    outputs=[('y0', 'float32', ATT)])
one('Einsum', 'bnd,de->bne [1,128,768]', 'bert_encoder projection', 'Einsum',
    [f(*H), w(768, 768)], equation='bnd,de->bne', outputs=[('y0', 'float32', H)])
one('MatMulInteger', 'u8 [1,128,768] x s8 W[768,768]', 'dynamic-quantized bert', 'MatMulInteger',
    [ints(0, 255, *H, dtype='uint8'), ints(-127, 127, 768, 768, dtype='int8', weight=True),
     const([128], 'uint8', ()), const([0], 'int8', ())])
one('MatMulInteger', 'u8 [1,128,768] x s8 W[768,3072]', 'dynamic-quantized bert', 'MatMulInteger',
    [ints(0, 255, *H, dtype='uint8'), ints(-127, 127, 768, 3072, dtype='int8', weight=True),
     const([128], 'uint8', ()), const([0], 'int8', ())])

# --- Recurrent (ONNX layout: W [dirs, gates*hidden, input]) ------------------
def rnn(op, gates, seq, inp, hidden, dirs=1, state=False, label='', source=''):
    args = [f(seq, 1, inp), w(dirs, gates * hidden, inp), w(dirs, gates * hidden, hidden),
            w(dirs, 2 * gates * hidden)]
    if state:   # sequence_lens absent, initial h (and c)
        args += [None, f(dirs, 1, hidden)] + ([f(dirs, 1, hidden)] if op == 'LSTM' else [])
    one(op, label, source, op, args, nout=1, hidden_size=hidden,
        direction='bidirectional' if dirs == 2 else 'forward')


for op, gates in [('LSTM', 4), ('GRU', 3), ('RNN', 1)]:
    rnn(op, gates, 100, 128, 128, label='seq 100, in 128, hidden 128', source='text classifier')
    rnn(op, gates, 100, 128, 256, label='seq 100, in 128, hidden 256', source='speech model')
    rnn(op, gates, 100, 128, 128, 2, label='bidirectional seq 100, hidden 128', source='OCR (ppocr-rec style)')
rnn('LSTM', 4, 1, 128, 128, state=True, label='seq 1, hidden 128, with state', source='silero-vad step')
rnn('GRU', 3, 1, 128, 128, state=True, label='seq 1, hidden 128, with state', source='streaming GRU step')

# --- Normalisation -----------------------------------------------------------
for shape, src in [(A, 'unfolded BN (resnet)'), ((1, 32, 112, 112), 'mobilenet_v2 stem')]:
    c = shape[1]
    one('BatchNormalization', str(list(shape)), src, 'BatchNormalization',
        [f(*shape), w(c), w(c), w(c), w(c, lo=0.5, hi=2.0)])
for shape, src in [((1, 64, 128, 128), 'style transfer'), ((1, 32, 256, 256), 'style transfer'),
                   ((1, 128, 64, 64), 'style transfer')]:
    c = shape[1]
    one('InstanceNormalization', str(list(shape)), src, 'InstanceNormalization',
        [f(*shape), w(c), w(c)])
for shape, src in [(H, 'bert_encoder'), ((1, 197, 768), 'vit_b_16'), ((1, 3136, 96), 'swin_t')]:
    one('LayerNormalization', str(list(shape)), src, 'LayerNormalization',
        [f(*shape), w(shape[-1]), w(shape[-1])], axis=-1)
for shape, groups, src in [((1, 320, 64, 64), 32, 'diffusion U-Net'),
                           ((1, 128, 56, 56), 32, 'detection head (GN)'),
                           ((1, 64, 112, 112), 16, 'segmentation (GN)')]:
    c = shape[1]
    graph('GroupNorm', 'G%d %s' % (groups, list(shape)), src + ', as exported (Reshape, InstanceNorm)',
          [N('Reshape', ['x', 'g'], ['r']), N('InstanceNormalization', ['r', 'one', 'zero'], ['n']),
           N('Reshape', ['n', 's'], ['m']), N('Mul', ['m', 'gamma'], ['p']),
           N('Add', ['p', 'beta'], ['y'])],
          {'x': f(*shape), 'g': const([1, groups, -1]), 's': const(list(shape)),
           'one': const([1.0] * groups, 'float32'), 'zero': const([0.0] * groups, 'float32'),
           'gamma': w(c, 1, 1), 'beta': w(c, 1, 1)})
one('LRN', 'size 5 [1,64,55,55]', 'alexnet', 'LRN', [f(1, 64, 55, 55)], size=5)
one('LRN', 'size 5 [1,192,56,56]', 'googlenet', 'LRN', [f(1, 192, 56, 56)], size=5)
one('MeanVarianceNormalization', str(list(A)), 'feature normalisation', 'MeanVarianceNormalization', [f(*A)])
one('MeanVarianceNormalization', '[1,40,500] axes 2', 'audio features', 'MeanVarianceNormalization',
    [f(1, 40, 500)], axes=[2])

# --- Softmax family ----------------------------------------------------------
one('Softmax', 'last axis [1,12,128,128]', 'bert_encoder attention', 'Softmax', [f(*ATT)], axis=-1)
one('Softmax', 'last axis [1,40,6625]', 'ppocr-rec CTC', 'Softmax', [f(1, 40, 6625)], axis=-1)
one('Softmax', 'axis 1 [1,21,128,128]', 'segmentation classes', 'Softmax', [f(1, 21, 128, 128)], axis=1)
one('Softmax', 'axis 2 [1,4,16,8400]', 'yolo DFL head', 'Softmax', [f(1, 4, 16, 8400)], axis=2)
one('LogSoftmax', 'last axis [1,200,1000]', 'CTC speech model', 'LogSoftmax', [f(1, 200, 1000)], axis=-1)
one('LogSoftmax', 'axis 1 [1,21,128,128]', 'segmentation loss head', 'LogSoftmax', [f(1, 21, 128, 128)], axis=1)
one('Hardmax', 'last axis [1,40,6625]', 'ppocr-rec greedy decode', 'Hardmax', [f(1, 40, 6625)], axis=-1)
one('Hardmax', 'last axis [1,1000]', 'classifier', 'Hardmax', [f(1, 1000)], axis=-1)

# --- Reductions --------------------------------------------------------------
REDUCE = {
    'ReduceMean': [((1, 240, 28, 28), [2, 3], 'efficientnet SE'), (H, [-1], 'layer norm (decomposed)'),
                   (A, [1], 'CBAM channel mean')],
    'ReduceSum': [(H, [-1], 'bert_encoder'), (A, [2, 3], 'spatial sum'), (A, [1], 'channel sum')],
    'ReduceMax': [(A, [1], 'CBAM channel max'), (ATT, [-1], 'softmax (decomposed)')],
    'ReduceMin': [(A, [1], 'channel min'), (ATT, [-1], 'row min')],
    'ReduceProd': [(H, [-1], 'row product'), (A, [2, 3], 'spatial product')],
    'ReduceSumSquare': [(H, [-1], 'L2 norm'), (A, [1], 'channel L2 norm')],
    'ReduceL1': [(H, [-1], 'L1 norm'), (A, [1], 'channel L1 norm')],
    'ReduceL2': [(H, [-1], 'L2 norm (F.normalize)'), (A, [1], 'channel L2 norm')],
    'ReduceLogSum': [(H, [-1], 'log-sum'), (A, [1], 'channel log-sum')],
    'ReduceLogSumExp': [(H, [-1], 'logsumexp'), ((1, 21, 128, 128), [1], 'segmentation classes')],
}
for op, shapes in REDUCE.items():
    for shape, axes, src in shapes:
        x = f(*shape, lo=0.1, hi=2.0) if op == 'ReduceLogSum' else f(*shape)
        label = '%s axes %s' % (list(shape), axes)
        if op == 'ReduceSum':   # axes an input since opset 13
            one(op, label, src, op, [x, const(axes)], keepdims=1)
        else:
            one(op, label, src, op, [x], axes=axes, keepdims=1)
for batch, op in [(1, 'ReduceSum'), (128, 'ReduceSum'), (128, 'ReduceMean')]:
    graph('EmbeddingBag', 'table [50000,64], bags [%d,20], %s' % (batch, op),
          'recommendation model (DLRM-style)',
          [N('Gather', ['table', 'idx'], ['e'], axis=0)] +
          ([N('ReduceSum', ['e', 'axes'], ['y'], keepdims=0)] if op == 'ReduceSum'
           else [N('ReduceMean', ['e'], ['y'], axes=[1], keepdims=0)]),
          {'idx': ints(0, 49999, batch, 20), 'table': w(50000, 64)}
          | ({'axes': const([1])} if op == 'ReduceSum' else {}))
for op in ['ArgMax', 'ArgMin']:
    one(op, 'axis 1 [1,21,128,128]', 'segmentation labels', op, [f(1, 21, 128, 128)], axis=1, keepdims=0)
    one(op, 'last axis [1,40,6625]', 'ppocr-rec greedy decode', op, [f(1, 40, 6625)], axis=-1, keepdims=0)
one('TopK', 'k 5 [1,1000]', 'classifier top-5', 'TopK', [f(1, 1000), const([5])], nout=2)
one('TopK', 'k 100 [1,8400]', 'yolo detections', 'TopK', [f(1, 8400), const([100])], nout=2)
one('CumSum', 'axis 1 [1,128,768]', 'cumulative features', 'CumSum', [f(*H), scalar(1, 'int64')])
one('CumSum', 'axis 1 [1,16000]', 'audio (1 s)', 'CumSum', [f(1, 16000), scalar(1, 'int64')])

# --- Pooling -----------------------------------------------------------------
one('MaxPool', '3x3 s2 [1,64,112,112]', 'resnet stem', 'MaxPool', [f(1, 64, 112, 112)],
    kernel_shape=[3, 3], strides=[2, 2], pads=[1, 1, 1, 1])
one('MaxPool', '2x2 s2 [1,64,224,224]', 'vgg11_bn', 'MaxPool', [f(1, 64, 224, 224)],
    kernel_shape=[2, 2], strides=[2, 2])
one('MaxPool', '5x5 s1 [1,256,20,20]', 'yolo SPPF', 'MaxPool', [f(1, 256, 20, 20)],
    kernel_shape=[5, 5], pads=[2, 2, 2, 2])
one('AveragePool', '3x3 s1 [1,192,28,28]', 'inception_v3', 'AveragePool', [f(1, 192, 28, 28)],
    kernel_shape=[3, 3], pads=[1, 1, 1, 1], count_include_pad=0)
one('AveragePool', '2x2 s2 [1,256,56,56]', 'densenet121 transition', 'AveragePool',
    [f(1, 256, 56, 56)], kernel_shape=[2, 2], strides=[2, 2])
for shape, src in [((1, 2048, 7, 7), 'resnet50'), ((1, 1280, 7, 7), 'mobilenet_v2'),
                   ((1, 240, 28, 28), 'efficientnet SE')]:
    one('GlobalAveragePool', str(list(shape)), src, 'GlobalAveragePool', [f(*shape)])
for shape, src in [((1, 512, 7, 7), 'classifier head'), (A, 'CBAM')]:
    one('GlobalMaxPool', str(list(shape)), src, 'GlobalMaxPool', [f(*shape)])
one('LpPool', 'p2 2x2 s2 [1,64,56,56]', 'L2 pooling', 'LpPool', [f(*A)],
    kernel_shape=[2, 2], strides=[2, 2], p=2)
one('LpPool', 'p2 3x3 s1 [1,256,14,14]', 'L2 pooling', 'LpPool', [f(1, 256, 14, 14)],
    kernel_shape=[3, 3], pads=[1, 1, 1, 1], p=2)
one('MaxUnpool', '2x2 s2 [1,64,56,56] -> 112', 'SegNet decoder', 'MaxUnpool',
    [f(*A), T(A, 'int64', 'unpool')], kernel_shape=[2, 2], strides=[2, 2])
one('MaxUnpool', '2x2 s2 [1,128,28,28] -> 56', 'SegNet decoder', 'MaxUnpool',
    [f(1, 128, 28, 28), T((1, 128, 28, 28), 'int64', 'unpool')], kernel_shape=[2, 2], strides=[2, 2])

# --- Elementwise -------------------------------------------------------------
UNARY = {   # op: input range (None: N(0,1))
    'Relu': None, 'Abs': None, 'Neg': None, 'Sign': None, 'Ceil': None, 'Floor': None,
    'Round': None, 'Exp': None, 'Erf': None, 'Sigmoid': None, 'Tanh': None, 'Sin': None,
    'Cos': None, 'Tan': None, 'Atan': None, 'Sinh': None, 'Cosh': None, 'Asinh': None,
    'Log': (0.1, 2.0), 'Sqrt': (0.1, 2.0), 'Reciprocal': (0.1, 2.0),
    'Asin': (-0.99, 0.99), 'Acos': (-0.99, 0.99), 'Atanh': (-0.99, 0.99), 'Acosh': (1.01, 3.0),
    'Softplus': None, 'Softsign': None, 'Elu': None, 'Selu': None, 'Celu': None,
    'HardSigmoid': None, 'HardSwish': None, 'LeakyRelu': None, 'ThresholdedRelu': None,
    'Shrink': None, 'IsNaN': None, 'IsInf': None,
}
ACT_ATTRS = {'LeakyRelu': {'alpha': 0.1}, 'HardSigmoid': {'alpha': 1 / 6, 'beta': 0.5},
             'Shrink': {'lambd': 0.5}, 'ThresholdedRelu': {'alpha': 0.5}}
for op, rng in UNARY.items():
    lo, hi = rng or (None, None)
    for shape, src in [(A, 'CNN activation'), (H, 'transformer hidden state')]:
        one(op, str(list(shape)), src, op, [f(*shape, lo=lo, hi=hi)], **ACT_ATTRS.get(op, {}))
one('LeakyRelu', '[1,32,160,160]', 'yolo backbone at 640', 'LeakyRelu', [f(1, 32, 160, 160)], alpha=0.1)
one('HardSwish', '[1,16,112,112]', 'mobilenet_v3 stem', 'HardSwish', [f(1, 16, 112, 112)])
one('Not', '[1,12,128,128]', 'attention mask', 'Not', [bools(*ATT)])
one('Not', str(list(A)), 'mask', 'Not', [bools(*A)])
for shape in [A, H]:
    one('BitwiseNot', str(list(shape)) + ' int32', 'integer features', 'BitwiseNot',
        [ints(-1000, 1000, *shape, dtype='int32')], opset=18, outputs=[('y0', 'int32', shape)])
one('Clip', 'relu6 [1,96,112,112]', 'mobilenet_v2', 'Clip', [f(1, 96, 112, 112), scalar(0.0), scalar(6.0)])
one('Clip', 'relu6 ' + str(list(A)), 'mobilenet_v2', 'Clip', [f(*A), scalar(0.0), scalar(6.0)])
one('PRelu', 'per channel [1,64,112,112]', 'face-feature (arcface)', 'PRelu', [f(1, 64, 112, 112), w(64, 1, 1)])
one('PRelu', 'per channel [1,128,28,28]', 'face-feature (arcface)', 'PRelu', [f(1, 128, 28, 28), w(128, 1, 1)])

BINARY = {   # op: [(a, b, source)]
    'Add': [(f(*A), f(*A), 'resnet residual'), (f(*H), w(768), 'bert bias'),
            (f(*ATT), f(1, 1, 1, 128), 'attention mask')],
    'Sub': [(f(*H), f(1, 128, 1), 'layer norm (decomposed)'), (f(*A), w(64, 1, 1), 'input normalisation')],
    'Mul': [(f(1, 240, 28, 28), f(1, 240, 1, 1), 'efficientnet SE'), (f(1, 128, 3072), f(1, 128, 3072), 'GELU (decomposed)'),
            (f(*H), scalar(0.5), 'scale')],
    'Div': [(f(*H), f(1, 128, 1, lo=0.5, hi=2.0), 'layer norm (decomposed)'), (f(*ATT), scalar(8.0), 'attention scale')],
    'Pow': [(f(*H), scalar(2.0), 'layer norm (decomposed)'), (f(*A, lo=0.1, hi=2.0), scalar(0.5), 'power')],
    'Max': [(f(*A), scalar(0.0), 'relu as Max'), (f(*H), f(*H), 'elementwise max')],
    'Min': [(f(*A), scalar(6.0), 'relu6 as Min'), (f(*H), f(*H), 'elementwise min')],
    'Equal': [(ints(0, 3, 1, 128), scalar(0, 'int64'), 'padding mask'), (f(*A), f(*A), 'float equality')],
    'Less': [(f(*ATT), scalar(0.0), 'threshold'), (f(*A), f(*A), 'compare')],
    'LessOrEqual': [(f(*ATT), scalar(0.0), 'threshold'), (f(*A), f(*A), 'compare')],
    'Greater': [(f(*ATT), scalar(0.0), 'threshold'), (f(*A), f(*A), 'compare')],
    'GreaterOrEqual': [(f(*ATT), scalar(0.0), 'threshold'), (f(*A), f(*A), 'compare')],
    'And': [(bools(*ATT), bools(1, 1, 128, 128), 'attention masks'), (bools(*A), bools(*A), 'masks')],
    'Or': [(bools(*ATT), bools(1, 1, 128, 128), 'attention masks'), (bools(*A), bools(*A), 'masks')],
    'Xor': [(bools(*ATT), bools(1, 1, 128, 128), 'attention masks'), (bools(*A), bools(*A), 'masks')],
    'Mod': [(ints(-1000, 1000, *H), scalar(7, 'int64'), 'integer modulo'), (ints(0, 1000, *A, dtype='int32'), scalar(7, 'int32'), 'integer modulo')],
    'BitShift': [(ints(0, 1000, *A, dtype='uint32'), scalar(2, 'uint32'), 'shift'), (ints(0, 1000, *H, dtype='uint32'), scalar(3, 'uint32'), 'shift')],
}
for op in ['BitwiseAnd', 'BitwiseOr', 'BitwiseXor']:
    BINARY[op] = [(ints(-1000, 1000, *A, dtype='int32'), ints(-1000, 1000, *A, dtype='int32'), 'integer features'),
                  (ints(-1000, 1000, *H, dtype='int32'), ints(-1000, 1000, *H, dtype='int32'), 'integer features')]
for op, cases in BINARY.items():
    for a, b, src in cases:
        attrs = {'direction': 'LEFT'} if op == 'BitShift' else {}
        # Opset 18 ops: the installed onnx infers no shapes for them.
        extra = {'opset': 18, 'outputs': [('y0', a.dtype, a.shape)]} if op.startswith('Bitwise') else {}
        one(op, '%s, %s' % (list(a.shape), list(b.shape) or 'scalar'), src, op, [a, b], **extra, **attrs)
one('Mod', 'fmod ' + str(list(A)), 'float modulo', 'Mod', [f(*A), scalar(0.7)], fmod=1)
for op in ['Sum', 'Mean']:
    one(op, '3 x ' + str(list(A)), 'variadic', op, [f(*A), f(*A), f(*A)])
    one(op, '2 x ' + str(list(H)), 'variadic', op, [f(*H), f(*H)])
one('Where', 'mask [1,1,128,128] over [1,12,128,128]', 'gpt_decoder causal mask', 'Where',
    [bools(1, 1, 128, 128), f(*ATT), scalar(-1e9)])
one('Where', str(list(A)), 'select', 'Where', [bools(*A), f(*A), f(*A)])
one('Cast', 'f32->f16 ' + str(list(H)), 'half-precision boundary', 'Cast', [f(*H)], to=10)
one('Cast', 'bool->f32 [1,1,128,128]', 'attention mask', 'Cast', [bools(1, 1, 128, 128)], to=1)
one('Cast', 'i64->f32 ' + str(list(A)), 'integer input', 'Cast', [ints(-100, 100, *A)], to=1)
one('CastLike', 'f32->f16 ' + str(list(H)), 'half-precision boundary', 'CastLike', [f(*H), const([0.0], 'float16', ())])
one('CastLike', 'i64->f32 ' + str(list(A)), 'integer input', 'CastLike', [ints(-100, 100, *A), scalar(0.0)])

# --- Quantisation ------------------------------------------------------------
for shape, src in [(A, 'static-quantized CNN'), (H, 'static-quantized bert')]:
    one('QuantizeLinear', str(list(shape)), src, 'QuantizeLinear',
        [f(*shape), scalar(0.02), const([128], 'uint8', ())])
    one('DequantizeLinear', str(list(shape)), src, 'DequantizeLinear',
        [ints(0, 255, *shape, dtype='uint8'), scalar(0.02), const([128], 'uint8', ())])
    one('DynamicQuantizeLinear', str(list(shape)), src.replace('static', 'dynamic'),
        'DynamicQuantizeLinear', [f(*shape)], nout=3)
one('QLinearConv', '3x3 u8/s8 [1,64,56,56]', 'static-quantized resnet', 'QLinearConv',
    [ints(0, 255, *A, dtype='uint8'), scalar(0.02), const([128], 'uint8', ()),
     ints(-127, 127, 64, 64, 3, 3, dtype='int8', weight=True), scalar(0.005), const([0], 'int8', ()),
     scalar(0.05), const([128], 'uint8', ()), ints(-1000, 1000, 64, dtype='int32', weight=True)],
    pads=[1, 1, 1, 1])
one('QLinearConv', '1x1 u8/s8 [1,256,28,28]', 'static-quantized resnet', 'QLinearConv',
    [ints(0, 255, 1, 256, 28, 28, dtype='uint8'), scalar(0.02), const([128], 'uint8', ()),
     ints(-127, 127, 128, 256, 1, 1, dtype='int8', weight=True), scalar(0.005), const([0], 'int8', ()),
     scalar(0.05), const([128], 'uint8', ()), ints(-1000, 1000, 128, dtype='int32', weight=True)])
for n in [768, 3072]:
    one('QLinearMatMul', 'u8/s8 [1,128,768] x W[768,%d]' % n, 'static-quantized bert', 'QLinearMatMul',
        [ints(0, 255, *H, dtype='uint8'), scalar(0.02), const([128], 'uint8', ()),
         ints(-127, 127, 768, n, dtype='int8', weight=True), scalar(0.005), const([0], 'int8', ()),
         scalar(0.05), const([128], 'uint8', ())])

# --- Data movement -----------------------------------------------------------
one('Concat', '2 x [1,64,56,56] axis 1', 'densenet / shufflenet', 'Concat', [f(*A), f(*A)], axis=1)
one('Concat', '[1,1,768] + [1,196,768] axis 1', 'vit_b_16 class token', 'Concat', [f(1, 1, 768), f(1, 196, 768)], axis=1)
one('Concat', '4 x [1,128,20,20] axis 1', 'yolo SPPF', 'Concat', [f(1, 128, 20, 20)] * 4, axis=1)
one('Split', '[1,116,28,28] in 2, axis 1', 'shufflenet_v2', 'Split', [f(1, 116, 28, 28), const([58, 58])], nout=2, axis=1)
one('Split', '[1,128,2304] in 3, last axis', 'gpt_decoder QKV', 'Split', [f(1, 128, 2304), const([768] * 3)], nout=3, axis=-1)
one('Transpose', '[1,128,12,64] perm 0213', 'bert_encoder heads', 'Transpose', [f(1, 128, 12, 64)], perm=[0, 2, 1, 3])
one('Transpose', '[1,2,58,28,28] perm 02134', 'shufflenet_v2 channel shuffle', 'Transpose',
    [f(1, 2, 58, 28, 28)], perm=[0, 2, 1, 3, 4])
one('Transpose', '[1,64,56,56] NCHW->NHWC', 'layout change', 'Transpose', [f(*A)], perm=[0, 2, 3, 1])
one('Slice', '[1,128,2304] last axis 768:1536', 'gpt_decoder QKV', 'Slice',
    [f(1, 128, 2304), const([768]), const([1536]), const([-1])])
one('Slice', '[1,64,56,56] crop 1:55', 'U-Net skip crop', 'Slice',
    [f(*A), const([1, 1]), const([55, 55]), const([2, 3])])
one('Slice', '[1,3,640,640] step 2', 'yolov5 focus', 'Slice',
    [f(1, 3, 640, 640), const([0, 0]), const([640, 640]), const([2, 3]), const([2, 2])])
one('Gather', 'embedding [10000,256], ids [1,128]', 'text encoder embedding', 'Gather',
    [w(10000, 256), ints(0, 9999, 1, 128)], axis=0)
one('Gather', '[1,197,768] token 0, axis 1', 'vit_b_16 class token', 'Gather',
    [f(1, 197, 768), scalar(0, 'int64')], axis=1)
one('Gather', '[1,8400,85] 100 rows, axis 1', 'detection post-processing', 'Gather',
    [f(1, 8400, 85), ints(0, 8399, 100)], axis=1)
one('GatherElements', '[1,8400,4] indices [1,100,4] axis 1', 'detection post-processing', 'GatherElements',
    [f(1, 8400, 4), ints(0, 8399, 1, 100, 4)], axis=1)
one('GatherElements', '[1,12,128,128] indices axis 3', 'relative-position bias', 'GatherElements',
    [f(*ATT), ints(0, 127, *ATT)], axis=3)
one('GatherND', '[8400,85] indices [100,1]', 'detection post-processing', 'GatherND',
    [f(8400, 85), ints(0, 8399, 100, 1)])
one('GatherND', '[1,128,768] indices [1,16,1] batch 1', 'masked-token gather', 'GatherND',
    [f(*H), ints(0, 127, 1, 16, 1)], batch_dims=1)
one('ScatterElements', '[1,8400] 100 updates axis 1', 'detection post-processing', 'ScatterElements',
    [f(1, 8400), ints(0, 8399, 1, 100), f(1, 100)], axis=1)
one('ScatterElements', '[1,128,768] 16 rows axis 1', 'token update', 'ScatterElements',
    [f(*H), ints(0, 127, 1, 16, 768), f(1, 16, 768)], axis=1)
one('ScatterND', '[256,768] 16 rows', 'KV-cache update', 'ScatterND',
    [f(256, 768), ints(0, 255, 16, 1), f(16, 768)])
one('ScatterND', '[1,12,256,64] one step', 'KV-cache update', 'ScatterND',
    [f(1, 12, 256, 64), const([0, 0, 200] + [0, 1, 200] + [0, 2, 200] + [0, 3, 200], 'int64', (4, 3)),
     f(4, 64)])
one('Scatter', '[1,8400] 100 updates axis 1', 'detection post-processing (opset 10)', 'Scatter',
    [f(1, 8400), ints(0, 8399, 1, 100), f(1, 100)], opset=10, axis=1)
one('Scatter', '[1,1000] 5 updates', 'classifier (opset 10)', 'Scatter',
    [f(1, 1000), ints(0, 999, 1, 5), f(1, 5)], opset=10, axis=1)
one('Expand', '[1,1,1,128] -> [1,12,128,128]', 'attention mask', 'Expand', [f(1, 1, 1, 128), const(list(ATT))])
one('Expand', '[1,64,1,1] -> [1,64,56,56]', 'SE broadcast', 'Expand', [f(1, 64, 1, 1), const(list(A))])
one('Tile', '[1,64,1,1] x [1,1,56,56]', 'SE broadcast', 'Tile', [f(1, 64, 1, 1), const([1, 1, 56, 56])])
one('Tile', '[1,1,768] x [1,128,1]', 'token broadcast', 'Tile', [f(1, 1, 768), const([1, 128, 1])])
for mode, shape, pads, src in [
        ('constant', A, 1, 'resnet (explicit pad)'), ('reflect', (1, 3, 256, 256), 4, 'style transfer input'),
        ('reflect', (1, 128, 64, 64), 1, 'style transfer residual'), ('edge', A, 1, 'replication pad')]:
    p = [0, 0, pads, pads] * 2
    one('Pad', '%s %d %s' % (mode, pads, list(shape)), src, 'Pad', [f(*shape), const(p)], mode=mode)
one('DepthToSpace', 'CRD b3 [1,9,224,224]', 'ESPCN super-resolution', 'DepthToSpace',
    [f(1, 9, 224, 224)], blocksize=3, mode='CRD')
one('DepthToSpace', 'DCR b2 [1,256,56,56]', 'pixel shuffle', 'DepthToSpace', [f(1, 256, 56, 56)], blocksize=2)
one('SpaceToDepth', 'b2 [1,3,640,640]', 'yolov5 focus', 'SpaceToDepth', [f(1, 3, 640, 640)], blocksize=2)
one('SpaceToDepth', 'b2 ' + str(list(A)), 'space to depth', 'SpaceToDepth', [f(*A)], blocksize=2)
one('ReverseSequence', '[100,1,128] time-major', 'bidirectional RNN (manual)', 'ReverseSequence',
    [f(100, 1, 128), const([100])], time_axis=0, batch_axis=1)
one('ReverseSequence', '[4,200,256] batch-major', 'bidirectional RNN (manual)', 'ReverseSequence',
    [f(4, 200, 256), const([200, 150, 100, 50])], time_axis=1, batch_axis=0)
one('Trilu', 'lower [1,1,128,128]', 'gpt_decoder causal mask', 'Trilu', [f(1, 1, 128, 128)], upper=0)
one('Trilu', 'upper [1,12,128,128]', 'attention mask', 'Trilu', [f(*ATT)], upper=1)
one('OneHot', 'ids [1,128] depth 1000', 'one-hot tokens', 'OneHot',
    [ints(0, 999, 1, 128), scalar(1000, 'int64'), const([0.0, 1.0], 'float32')], axis=-1,
    outputs=[('y0', 'float32', (1, 128, 1000))])
one('OneHot', 'labels [1,56,56] depth 21', 'segmentation targets', 'OneHot',
    [ints(0, 20, 1, 56, 56), scalar(21, 'int64'), const([0.0, 1.0], 'float32')], axis=1,
    outputs=[('y0', 'float32', (1, 21, 56, 56))])

# --- Resampling and vision ---------------------------------------------------
one('Resize', 'nearest x2 [1,256,40,40]', 'yolo / FPN upsample', 'Resize',
    [f(1, 256, 40, 40), None, const([1.0, 1.0, 2.0, 2.0], 'float32')],
    mode='nearest', coordinate_transformation_mode='asymmetric', nearest_mode='floor')
one('Resize', 'linear [1,21,28,28] -> 224', 'deeplabv3 / lraspp output', 'Resize',
    [f(1, 21, 28, 28), None, None, const([1, 21, 224, 224])],
    mode='linear', coordinate_transformation_mode='half_pixel')
one('Resize', 'linear x2 [1,64,80,80]', 'ppocr-det neck', 'Resize',
    [f(1, 64, 80, 80), None, const([1.0, 1.0, 2.0, 2.0], 'float32')],
    mode='linear', coordinate_transformation_mode='pytorch_half_pixel')
one('Resize', 'cubic x2 [1,3,128,128]', 'super-resolution', 'Resize',
    [f(1, 3, 128, 128), None, const([1.0, 1.0, 2.0, 2.0], 'float32')], mode='cubic')
one('Upsample', 'nearest x2 [1,256,20,20]', 'yolov3 (opset 9)', 'Upsample',
    [f(1, 256, 20, 20), const([1.0, 1.0, 2.0, 2.0], 'float32')], opset=9, mode='nearest')
one('Upsample', 'linear x2 [1,64,80,80]', 'opset 9 export', 'Upsample',
    [f(1, 64, 80, 80), const([1.0, 1.0, 2.0, 2.0], 'float32')], opset=9, mode='linear')
one('GridSample', 'bilinear [1,64,56,56]', 'spatial transformer', 'GridSample',
    [f(*A), f(1, 56, 56, 2, lo=-1.0, hi=1.0)], opset=16)
one('GridSample', 'bilinear [1,3,224,224]', 'image warp', 'GridSample',
    [f(1, 3, 224, 224), f(1, 224, 224, 2, lo=-1.0, hi=1.0)], opset=16)
one('RoiAlign', '[1,256,50,50] 100 rois 7x7', 'two-stage detector', 'RoiAlign',
    [f(1, 256, 50, 50), f(100, 4, lo=0.0, hi=40.0), ints(0, 0, 100)], opset=16,
    output_height=7, output_width=7, sampling_ratio=2, spatial_scale=1.0,
    outputs=[('y0', 'float32', (100, 256, 7, 7))])
one('NonMaxSuppression', '1000 boxes, 80 classes', 'detection post-processing', 'NonMaxSuppression',
    [f(1, 1000, 4, lo=0.0, hi=1.0), f(1, 80, 1000, lo=0.0, hi=1.0), const([100]),
     scalar(0.5), scalar(0.25)], outputs=[('y0', 'int64', ('selected', 3))])
one('NonZero', '[1,128,128] bool', 'mask positions', 'NonZero', [bools(1, 128, 128)],
    outputs=[('y0', 'int64', (3, 'nonzero'))])
one('Compress', '[8400,85] by a [8400] mask', 'score filtering', 'Compress',
    [f(8400, 85), bools(8400)], axis=0, outputs=[('y0', 'float32', ('kept', 85))])
one('Unique', '[4096] int64', 'token de-duplication', 'Unique', [ints(0, 999, 4096)], nout=1, sorted=1,
    outputs=[('y0', 'int64', ('unique',))])
one('Det', '[64,3,3]', 'pose geometry', 'Det', [f(64, 3, 3)])
one('Det', '[256,4,4]', 'pose geometry', 'Det', [f(256, 4, 4)])

# --- Signal ------------------------------------------------------------------
one('DFT', 'onesided [100,400,1] axis 1', 'spectrogram frames', 'DFT',
    [f(100, 400, 1)], axis=1, onesided=1)
one('DFT', '[1,512,1] axis 1', 'one frame', 'DFT', [f(1, 512, 1)], axis=1)
# Output declared: onnx 1.12's STFT inference miscounts the frames (99).
one('STFT', '1 s at 16 kHz, frame 400 step 160', 'oww-melspectrogram', 'STFT',
    [f(1, 16000, 1), scalar(160, 'int64'), w(400, lo=0.0, hi=1.0), scalar(400, 'int64')], onesided=1,
    outputs=[('y0', 'float32', (1, 98, 201, 2))])
one('STFT', '[1,4096,1] frame 256 step 128', 'silero-vad', 'STFT',
    [f(1, 4096, 1), scalar(128, 'int64'), w(256, lo=0.0, hi=1.0), scalar(256, 'int64')], onesided=1)

# Op types of the importer's table that are not timed, each with the reason.
SKIPPED = {
    'Constant': 'no computation: folded into the program',
    'ConstantOfShape': 'its shape input is a constant under static shapes: folded',
    'Range': 'scalar inputs only: folded to a constant under static shapes',
    'EyeLike': 'depends on its input\'s shape only: folded to a constant',
    'Shape': 'metadata only: folded under static shapes',
    'Size': 'metadata only: folded under static shapes',
    'HannWindow': 'scalar size input: folded to a constant',
    'HammingWindow': 'scalar size input: folded to a constant',
    'BlackmanWindow': 'scalar size input: folded to a constant',
    'MelWeightMatrix': 'scalar inputs only: folded to a constant',
    'Identity': 'no computation (an alias or one copy)',
    'Dropout': 'the identity at inference',
    'Flatten': 'changes the shape only (Reshape is timed inside GroupNorm)',
    'Squeeze': 'changes the shape only (Reshape is timed inside GroupNorm)',
    'Unsqueeze': 'changes the shape only (Reshape is timed inside GroupNorm)',
    'If': 'control flow: its cost is its branch\'s ops, timed in their families',
    'Loop': 'control flow: its cost is its body\'s ops, timed in their families',
    'Scan': 'control flow: its cost is its body\'s ops, timed in their families',
    'com.microsoft::MatMulNBits': 'packed block-quantized weights the case '
                                  'builder does not make; its kernel is timed '
                                  'by benchmarks/decoder/decode-speed.py --weights',
}


def number_cases():
    counts = {}
    for case in CASES:
        k = counts[case.family] = counts.get(case.family, 0) + 1
        slug = ''.join(ch if ch.isalnum() else '_' for ch in case.family.lower())
        case.id = '%s_%d' % (slug, k)


number_cases()


def covered_ops():
    ops = set()
    for case in CASES:
        ops |= case.op_types()
    return ops


def check(ops_file):
    """Every op type of `strata-translate --list-onnx-ops` is covered."""
    supported = set()
    for line in open(ops_file):
        line = line.strip()
        if not line:
            continue
        domain, _, rest = line.partition('::')
        op = rest.split()[0]
        supported.add(op if domain == 'ai.onnx' else '%s::%s' % (domain, op))
    covered = covered_ops()
    errors = ['%s: supported by the importer but neither in the shape table nor in SKIPPED' % op
              for op in sorted(supported - covered - set(SKIPPED))]
    errors += ['%s: in SKIPPED but not supported by the importer' % op
               for op in sorted(set(SKIPPED) - supported)]
    errors += ['%s: in SKIPPED and in the shape table' % op
               for op in sorted(set(SKIPPED) & covered)]
    errors += ['%s: in the shape table but not supported by the importer' % op
               for op in sorted(covered - supported)]
    for e in errors:
        print('table.py: ' + e, file=sys.stderr)
    if not supported:
        print('table.py: %s lists no op types' % ops_file, file=sys.stderr)
        return 1
    print('%d supported op types: %d timed in %d cases, %d skipped' %
          (len(supported), len(supported & covered), len(CASES), len(set(SKIPPED) & supported)))
    return 1 if errors else 0


def main(argv):
    if argv[:1] == ['--list-ops']:
        print('\n'.join(sorted(covered_ops())))
    elif argv[:1] == ['--list-families']:
        counts = {}
        for case in CASES:
            counts[case.family] = counts.get(case.family, 0) + 1
        for family, n in counts.items():
            print('%s\t%d' % (family, n))
    elif len(argv) == 2 and argv[0] == '--check':
        return check(argv[1])
    else:
        print(__doc__ if __doc__ else 'usage: table.py --list-ops | --list-families | --check OPS',
              file=sys.stderr)
        return 2
    return 0


if __name__ == '__main__':
    sys.exit(main(sys.argv[1:]))

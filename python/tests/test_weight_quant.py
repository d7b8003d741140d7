"""Weight-only quantization (strata-compile --quantize-weights int4|int8):
each matmul's constant weight stored as 4- or 8-bit integers with a scale
and zero point per column and per group of K. The expected values come
from a numpy quantizer written here from the rounding rule the docs give
(round to nearest on the group's range widened to include 0), applied to
the float weights, and a float64 product by the dequantized weights; the
GPT's logits from PyTorch running the dequantized weights."""
import os

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import strata
from conftest import GPT_METHODS, compile_model, rel_l2


def dequantized(w, bits, group):
    """The weight [K, N] that --quantize-weights stores, in float64."""
    levels = 2 ** bits - 1
    out = np.empty(w.shape, np.float64)
    for g0 in range(0, w.shape[0], group):
        block = w[g0:g0 + group].astype(np.float64)
        lo = np.minimum(block.min(0), 0.0)
        hi = np.maximum(block.max(0), 0.0)
        scale = ((hi - lo) / levels).astype(np.float32).astype(np.float64)
        scale[~(scale > 0)] = 1.0
        zero = np.clip(np.rint(-lo / scale), 0, levels)
        q = np.clip(np.rint(block / scale) + zero, 0, levels)
        out[g0:g0 + group] = (q - zero) * scale
    return out


def linear_model(path, k, n, seed=0):
    """y = x W + b over x[batch, rows, K], the weight skewed per column so
    that the zero points differ."""
    rng = np.random.default_rng(seed)
    w = (rng.standard_normal((k, n)) + rng.uniform(-1, 1, n)).astype(np.float32)
    b = rng.standard_normal(n).astype(np.float32)
    graph = helper.make_graph(
        [helper.make_node("MatMul", ["x", "w"], ["xw"], name="fc"),
         helper.make_node("Add", ["xw", "b"], ["y"], name="bias")],
        "linear",
        [helper.make_tensor_value_info("x", TensorProto.FLOAT,
                                       ["batch", 3, k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT,
                                       ["batch", 3, n])],
        [numpy_helper.from_array(w, "w"), numpy_helper.from_array(b, "b")])
    model = helper.make_model(graph,
                              opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return w, b


def exported_gpt(folder):
    """models/decoder.py's GPT (2 layers, width 64, seed 0), exported both
    ways into `folder`."""
    import sys
    import torch
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                    "models"))
    import decoder
    torch.manual_seed(0)
    model = decoder.GPT(layers=2, width=64, heads=4, context=64).eval()
    decoder.export(model, str(folder))
    return model


def backend_flags(backend):
    return [] if backend == "portable" else ["--backend", backend]


@pytest.mark.parametrize("backend", ["portable", "onednn", "xnnpack"])
@pytest.mark.parametrize("bits,group", [(4, 32), (4, 64), (4, 128), (8, 32),
                                        (8, 128)])
def test_linear_equals_the_dequantized_float64_product(tmp_path, backend,
                                                       bits, group):
    # K = 150: groups of 32 leave a last group of 22 and the last 32-bit
    # word of 4-bit values holds 6; N = 37: two tiles of 32, the last
    # padded.
    w, b = linear_model(tmp_path / "linear.onnx", 150, 37)
    out = compile_model(tmp_path / "linear.onnx", tmp_path / "q.strata",
                        "--quantize-weights", f"int{bits}",
                        "--weight-group-size", str(group),
                        "--dim", "batch=1..4", *backend_flags(backend))
    program = strata.load(out)
    x = np.random.default_rng(1).standard_normal((2, 3, 150)).astype(np.float32)
    (y,) = program.run(x)
    want = x.astype(np.float64) @ dequantized(w, bits, group) + b
    assert rel_l2(y, want) < 1e-6
    # The weights really are quantized: the float product is further away,
    # by about the rounding of `bits` bits.
    error = rel_l2(y, x.astype(np.float64) @ w + b)
    assert (1e-3 if bits == 4 else 1e-5) < error < (0.15 if bits == 4 else 0.01)


def test_program_size_and_per_node_widths(tmp_path):
    w, b = linear_model(tmp_path / "linear.onnx", 512, 512)
    sizes = {}
    for name, flags in [("f32", []),
                        ("int4", ["--quantize-weights", "int4"]),
                        ("int8", ["--quantize-weights", "int8"]),
                        ("kept", ["--quantize-weights", "int4",
                                  "--weight-bits", "fc=0"]),
                        ("fc8", ["--quantize-weights", "int4",
                                 "--weight-bits", "fc=8"])]:
        out = compile_model(tmp_path / "linear.onnx",
                            tmp_path / f"{name}.strata", "--dim", "batch=1..1",
                            *flags)
        sizes[name] = os.path.getsize(out)
    # 4 bits per weight plus a 4-byte scale and a 1-byte zero point per 32:
    # 0.156 of the f32 bytes; 8 bits: 0.29.
    assert sizes["int4"] <= 0.2 * sizes["f32"]
    assert sizes["int8"] <= 0.32 * sizes["f32"]
    assert sizes["kept"] >= sizes["f32"]
    assert sizes["fc8"] == sizes["int8"]


def test_bad_options_are_refused(tmp_path):
    import subprocess
    from conftest import tool
    linear_model(tmp_path / "linear.onnx", 8, 4)
    for flags, message in [
            (["--quantize-weights", "int3"], "must be int4 or int8"),
            (["--quantize-weights", "int4", "--weight-group-size", "0"],
             "--weight-group-size must be a multiple of 8"),
            (["--quantize-weights", "int4", "--weight-bits", "fc=5"],
             "NODE=BITS with BITS 4, 8 or 0"),
            (["--weight-bits", "fc=4"], "need --quantize-weights")]:
        result = subprocess.run(
            [tool("strata-compile"), str(tmp_path / "linear.onnx"), "-o",
             str(tmp_path / "bad.strata")] + flags, capture_output=True,
            text=True)
        assert result.returncode != 0 and message in result.stderr, flags
        assert not (tmp_path / "bad.strata").exists()


# The project's GPT-style decoder with a KV cache, its step export compiled
# with int4 weights: prefill and decode logits against PyTorch running the
# dequantized weights.



def int8_activations(x, group):
    """x [..., K] as --weight-activations int8 computes with it, float64:
    per row and group of K, a = max|x| / 127 (f32) and p = rint(x / a)."""
    x = x.astype(np.float32)
    out = np.empty(x.shape, np.float64)
    for g0 in range(0, x.shape[-1], group):
        block = x[..., g0:g0 + group]
        a = (np.abs(block).max(-1, keepdims=True) / np.float32(127)).astype(
            np.float32)
        safe = np.where(a > 0, a, np.float32(1))
        p = np.clip(np.rint(block / safe), -127, 127)
        out[..., g0:g0 + group] = np.where(a > 0, p, 0) * a.astype(np.float64)
    return out


@pytest.mark.parametrize("backend", ["portable", "onednn"])
@pytest.mark.parametrize("bits,group", [(4, 32), (4, 64), (8, 32), (8, 128)])
def test_int8_activations_equal_the_numpy_reference(tmp_path, backend, bits,
                                                    group):
    # 8da4w: the activations quantized per row and group, exact integer
    # sums; the same product in float64 from the dequantized activations
    # and weights. 12 rows (a prefill) and 3 (a few).
    w, b = linear_model(tmp_path / "linear.onnx", 150, 37)
    out = compile_model(tmp_path / "linear.onnx", tmp_path / "q.strata",
                        "--quantize-weights", f"int{bits}",
                        "--weight-group-size", str(group),
                        "--weight-activations", "int8",
                        "--dim", "batch=1..4", *backend_flags(backend))
    f32 = compile_model(tmp_path / "linear.onnx", tmp_path / "f.strata",
                        "--quantize-weights", f"int{bits}",
                        "--weight-group-size", str(group),
                        "--dim", "batch=1..4", *backend_flags(backend))
    program, weights_only = strata.load(out), strata.load(f32)
    rng = np.random.default_rng(1)
    for batch in (4, 1):
        x = rng.standard_normal((batch, 3, 150)).astype(np.float32)
        (y,) = program.run(x)
        want = int8_activations(x, group) @ dequantized(w, bits, group) + b
        assert rel_l2(y, want) < 1e-6
        # Against the f32 activations: the int8 rounding, about 1e-2 to 1e-3.
        (y32,) = weights_only.run(x)
        assert 1e-4 < rel_l2(y, y32) < 2e-2
    # A NaN makes its row NaN, the others stay finite.
    x[0, 1, 40] = np.nan
    (y,) = program.run(x)
    assert np.isnan(y[0, 1]).all() and np.isfinite(y[0, [0, 2]]).all()


def test_gpt_int8_activation_steps_equal_the_whole_sequence(tmp_path):
    # Each row's activations are quantized on their own, so one token a
    # call gives the whole-sequence program's logits; both stay within the
    # int8 rounding of PyTorch's float logits.
    torch = pytest.importorskip("torch")
    model = exported_gpt(tmp_path)
    flags = ["--quantize-weights", "int4", "--weight-activations", "int8"]
    steps = strata.load(compile_model(tmp_path / "with_past.onnx",
                                      tmp_path / "s.strata", *GPT_METHODS,
                                      *flags))
    whole = strata.load(compile_model(tmp_path / "full.onnx",
                                      tmp_path / "w.strata",
                                      "--input-shape", "input_ids=1x20",
                                      *flags))
    ids = np.random.default_rng(3).integers(0, 256, (1, 20))
    prefill, decode = steps.method("prefill"), steps.method("decode")
    logits = prefill(ids[:, :12], np.ones((1, 12), np.int64),
                     np.arange(12)[None])
    for t in range(12, 20):
        logits += decode(ids[:, t:t + 1], np.ones((1, t + 1), np.int64),
                         np.array([[t]]))
    (want,) = whole.run(ids)
    assert rel_l2(np.concatenate(logits, axis=1), want) < 1e-5
    with torch.no_grad():
        float_logits = model(torch.from_numpy(ids))[0].numpy()
    assert 1e-4 < rel_l2(want, float_logits) < 0.1


def test_weight_activations_flag_is_checked(tmp_path):
    linear_model(tmp_path / "linear.onnx", 16, 8)
    import subprocess
    from conftest import tool
    for flags, message in [
            (["--weight-activations", "int8"],
             "--weight-group-size, --weight-bits and --weight-activations "
             "need --quantize-weights"),
            (["--quantize-weights", "int4", "--weight-activations", "int4"],
             "--weight-activations must be f32 or int8, got 'int4'"),
            (["--quantize-weights", "int4", "--weight-activations", "int8",
              "--weight-group-size", "65536"],
             "--weight-group-size must be at most 32768 with "
             "--weight-activations int8")]:
        result = subprocess.run(
            [tool("strata-compile"), str(tmp_path / "linear.onnx"), "-o",
             str(tmp_path / "bad.strata"), "--dim", "batch=1"] + flags,
            capture_output=True, text=True)
        assert result.returncode != 0 and message in result.stderr, (
            result.stderr)
        assert not (tmp_path / "bad.strata").exists()


@pytest.mark.parametrize("backend", ["portable", "onednn"])
def test_gpt_int4_steps_equal_pytorch_on_the_dequantized_weights(
        tmp_path, backend):
    torch = pytest.importorskip("torch")
    model = exported_gpt(tmp_path)
    out = compile_model(tmp_path / "with_past.onnx", tmp_path / "q.strata",
                        *GPT_METHODS, "--quantize-weights", "int4",
                        *backend_flags(backend))
    # Every Linear's weight, as the exported MatMul reads it ([in, out]).
    with torch.no_grad():
        for module in model.modules():
            if isinstance(module, torch.nn.Linear):
                wt = module.weight.detach().numpy().T
                module.weight.copy_(torch.from_numpy(
                    dequantized(wt, 4, 32).T.astype(np.float32)))
    ids = torch.randint(0, 256, (1, 20))
    with torch.no_grad():
        want = model(ids)[0].numpy()
    program = strata.load(out)
    prefill, decode = program.method("prefill"), program.method("decode")
    prompt = 12
    ids = ids.numpy()
    logits = prefill(ids[:, :prompt], np.ones((1, prompt), np.int64),
                     np.arange(prompt)[None])
    for t in range(prompt, ids.shape[1]):
        logits += decode(ids[:, t:t + 1], np.ones((1, t + 1), np.int64),
                         np.array([[t]]))
    assert rel_l2(np.concatenate(logits, axis=1), want) < 1e-5


# ONNX Runtime's com.microsoft MatMulNBits, packed here as its operator
# documentation lays the weight out: B[n, block, byte], the values of a
# block low bits first; zero points packed the same way per column, or
# absent (2^(bits-1)).

def matmul_nbits_model(path, k, n, bits, block, zero_points, bias, seed=0,
                       accuracy_level=0):
    rng = np.random.default_rng(seed)
    blocks = (k + block - 1) // block
    levels = 2 ** bits
    q = rng.integers(0, levels, (n, blocks * block)).astype(np.uint8)
    scales = rng.uniform(0.01, 0.1, (n, blocks)).astype(np.float32)
    zp = (rng.integers(0, levels, (n, blocks)).astype(np.uint8)
          if zero_points else np.full((n, blocks), levels // 2, np.uint8))
    per_byte = 8 // bits
    packed = np.zeros((n, blocks * block // per_byte), np.uint8)
    for i in range(per_byte):
        packed |= (q[:, i::per_byte] << (bits * i)).astype(np.uint8)
    weights = [numpy_helper.from_array(packed.reshape(n, blocks, -1), "B"),
               numpy_helper.from_array(scales.reshape(-1), "scales")]
    if zero_points:
        zp_padded = np.zeros((n, -(-blocks // per_byte) * per_byte), np.uint8)
        zp_padded[:, :blocks] = zp
        zp_packed = np.zeros((n, zp_padded.shape[1] // per_byte), np.uint8)
        for i in range(per_byte):
            zp_packed |= (zp_padded[:, i::per_byte] << (bits * i)).astype(
                np.uint8)
        weights.append(numpy_helper.from_array(zp_packed.reshape(-1), "zp"))
    b = rng.standard_normal(n).astype(np.float32)
    if bias:
        weights.append(numpy_helper.from_array(b, "bias"))
    # A, B, scales, zero_points, g_idx, bias; absent trailing ones dropped.
    inputs = ["a", "B", "scales", "zp" if zero_points else "", "",
              "bias" if bias else ""]
    while not inputs[-1]:
        inputs.pop()
    node = helper.make_node("MatMulNBits", inputs, ["y"], domain="com.microsoft",
                            K=k, N=n, bits=bits, block_size=block,
                            accuracy_level=accuracy_level)
    graph = helper.make_graph(
        [node], "nbits",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, [2, 3, k])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [2, 3, n])],
        weights)
    model = helper.make_model(graph, opset_imports=[
        helper.make_opsetid("", 17), helper.make_opsetid("com.microsoft", 1)])
    onnx.save(model, str(path))
    w = ((q[:, :k].astype(np.float64) - np.repeat(zp, block, 1)[:, :k])
         * np.repeat(scales, block, 1)[:, :k]).T
    return w, (b if bias else np.zeros(n))


@pytest.mark.parametrize("backend", ["portable", "onednn"])
@pytest.mark.parametrize("bits,block,zero_points,bias", [
    (4, 32, True, False), (4, 16, False, True), (4, 128, True, True),
    (8, 32, True, True), (8, 64, False, False)])
def test_matmul_nbits_equals_its_dequantized_weights(tmp_path, backend, bits,
                                                     block, zero_points, bias):
    # K = 100 leaves a last block of 4 (of 16) or 36 (of 64) rows.
    w, b = matmul_nbits_model(tmp_path / "nbits.onnx", 100, 45, bits, block,
                              zero_points, bias)
    out = compile_model(tmp_path / "nbits.onnx", tmp_path / "q.strata",
                        *backend_flags(backend))
    x = np.random.default_rng(2).standard_normal((2, 3, 100)).astype(np.float32)
    (y,) = strata.load(out).run(x)
    assert rel_l2(y, x.astype(np.float64) @ w + b) < 1e-6
    # The weights stay at their width: no f32 copy of them in the program.
    assert os.path.getsize(out) < 100 * 45 * 4


def test_matmul_nbits_refusals_name_the_node(tmp_path):
    import subprocess
    from conftest import tool
    matmul_nbits_model(tmp_path / "nbits.onnx", 64, 8, 4, 32, True, False)
    model = onnx.load(str(tmp_path / "nbits.onnx"))
    model.graph.node[0].name = "proj"
    for attribute in model.graph.node[0].attribute:
        if attribute.name == "bits":
            attribute.i = 3
    onnx.save(model, str(tmp_path / "bits3.onnx"))
    result = subprocess.run(
        [tool("strata-compile"), str(tmp_path / "bits3.onnx"), "-o",
         str(tmp_path / "bad.strata")], capture_output=True, text=True)
    assert result.returncode != 0
    assert "proj" in result.stderr and "bits = 3" in result.stderr


@pytest.mark.parametrize("bits,block,zero_points,bias", [
    (4, 32, True, True), (4, 16, False, False), (8, 64, True, True)])
def test_matmul_nbits_agrees_with_onnx_runtime(tmp_path, bits, block,
                                               zero_points, bias):
    # ONNX Runtime's own MatMulNBits (accuracy level 0: f32 compute) on the
    # same file: the packing read as its kernel reads it.
    import shutil
    import subprocess
    from conftest import BUILD, ROOT, tool
    ort_dir = os.path.join(BUILD, "peer", "npm")
    if not shutil.which("node") or not os.path.isdir(
            os.path.join(ort_dir, "node_modules", "onnxruntime-node")):
        pytest.skip("ONNX Runtime (scripts/install-ort.sh) is not installed")
    matmul_nbits_model(tmp_path / "nbits.onnx", 100, 45, bits, block,
                       zero_points, bias)
    subprocess.run(["node", os.path.join(ROOT, "test", "utils", "ort-run.mjs"),
                    "--ort-dir", ort_dir, "--model", str(tmp_path / "nbits.onnx"),
                    "--make-reference", str(tmp_path / "ref")],
                   check=True, capture_output=True)
    out = compile_model(tmp_path / "nbits.onnx", tmp_path / "q.strata")
    result = subprocess.run(
        [tool("strata-run"), out, "--inputs", str(tmp_path / "ref"),
         "--expect", str(tmp_path / "ref"), "--rel-l2", "1e-6"],
        capture_output=True, text=True)
    assert result.returncode == 0 and "output 0: PASS" in result.stdout, (
        result.stdout + result.stderr)


@pytest.mark.parametrize("bits,block", [(4, 32), (8, 64)])
def test_matmul_nbits_accuracy_level_4_quantizes_the_activations(
        tmp_path, bits, block):
    # Level 4 is ONNX Runtime's int8 compute: Strata quantizes the
    # activations per row and block (the numpy reference), and agrees with
    # ONNX Runtime's own level-4 kernel to the last float rounding (rel-L2
    # about 1e-7: the same integers), 1e4 times closer than to f32.
    import shutil
    import subprocess
    from conftest import BUILD, ROOT, tool
    w, b = matmul_nbits_model(tmp_path / "nbits.onnx", 100, 45, bits, block,
                              True, True, accuracy_level=4)
    result = subprocess.run(
        [tool("strata-compile"), str(tmp_path / "nbits.onnx"), "-o",
         str(tmp_path / "q.strata")], capture_output=True, text=True)
    assert result.returncode == 0, result.stderr
    assert "1 MatMulNBits node(s) at accuracy_level 4" in result.stderr
    program = strata.load(str(tmp_path / "q.strata"))
    x = np.random.default_rng(2).standard_normal((2, 3, 100)).astype(np.float32)
    (y,) = program.run(x)
    assert rel_l2(y, int8_activations(x, block) @ w + b) < 1e-6
    assert 1e-4 < rel_l2(y, x.astype(np.float64) @ w + b) < 2e-2
    ort_dir = os.path.join(BUILD, "peer", "npm")
    if not shutil.which("node") or not os.path.isdir(
            os.path.join(ort_dir, "node_modules", "onnxruntime-node")):
        pytest.skip("ONNX Runtime (scripts/install-ort.sh) is not installed")
    subprocess.run(["node", os.path.join(ROOT, "test", "utils", "ort-run.mjs"),
                    "--ort-dir", ort_dir, "--model", str(tmp_path / "nbits.onnx"),
                    "--make-reference", str(tmp_path / "ref")],
                   check=True, capture_output=True)
    result = subprocess.run(
        [tool("strata-run"), str(tmp_path / "q.strata"), "--inputs",
         str(tmp_path / "ref"), "--expect", str(tmp_path / "ref"),
         "--rel-l2", "1e-5"], capture_output=True, text=True)
    assert result.returncode == 0 and "output 0: PASS" in result.stdout, (
        result.stdout + result.stderr)


def test_verify_compares_with_the_float_weights(tmp_path):
    # --verify's reference keeps the weights f32: int4's rounding shows (a
    # few percent on this layer), so a tight limit fails and a loose passes.
    import subprocess
    from conftest import tool
    linear_model(tmp_path / "linear.onnx", 150, 37)
    for limit, ok in [("1e-4", False), ("0.2", True)]:
        result = subprocess.run(
            [tool("strata-compile"), str(tmp_path / "linear.onnx"), "-o",
             str(tmp_path / "v.strata"), "--dim", "batch=1..2",
             "--quantize-weights", "int4", "--verify", "--verify-rel-l2",
             limit], capture_output=True, text=True)
        assert (result.returncode == 0) == ok, result.stdout + result.stderr
        assert (tmp_path / "v.strata").exists() == ok

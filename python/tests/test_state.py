"""Programs that carry state between calls (strata-compile --state) and have
several methods (--method): a one-layer causal attention with a KV cache,
compiled with a prefill and a decode method sharing weights and cache, run
prompt then token by token from Python, against numpy float64 attending
over the whole sequence at once."""
import os
import subprocess

import numpy as np
import onnx
import pytest
from onnx import TensorProto, helper, numpy_helper

import strata
from conftest import GPT_METHODS, compile_model, rel_l2, tool

D = 8


def attention_model(path):
    """y = softmax(q k^T / sqrt(D) + bias) v, q, k, v = x Wq, x Wk, x Wv,
    with k and v appended to past_key_values.0.key/value (present.0.*)."""
    rng = np.random.default_rng(0)
    w = {n: (rng.standard_normal((D, D)) / np.sqrt(D)).astype(np.float32)
         for n in ("Wq", "Wk", "Wv")}
    node = helper.make_node
    nodes = [
        node("MatMul", ["x", "Wq"], ["q"]), node("MatMul", ["x", "Wk"], ["k"]),
        node("MatMul", ["x", "Wv"], ["v"]),
        node("Concat", ["past_key_values.0.key", "k"], ["present.0.key"], axis=1),
        node("Concat", ["past_key_values.0.value", "v"], ["present.0.value"], axis=1),
        node("Transpose", ["present.0.key"], ["kt"], perm=[0, 2, 1]),
        node("MatMul", ["q", "kt"], ["s0"]), node("Mul", ["s0", "scale"], ["s"]),
        node("Add", ["s", "attention_bias"], ["sm"]),
        node("Softmax", ["sm"], ["p"], axis=-1),
        node("MatMul", ["p", "present.0.value"], ["y"])]
    f = TensorProto.FLOAT
    graph = helper.make_graph(
        nodes, "attention",
        [helper.make_tensor_value_info("x", f, [1, "seq", D]),
         helper.make_tensor_value_info("past_key_values.0.key", f, [1, "past_len", D]),
         helper.make_tensor_value_info("past_key_values.0.value", f, [1, "past_len", D]),
         helper.make_tensor_value_info("attention_bias", f, [1, "seq", "total"])],
        [helper.make_tensor_value_info("y", f, [1, "seq", D]),
         helper.make_tensor_value_info("present.0.key", f, [1, "total", D]),
         helper.make_tensor_value_info("present.0.value", f, [1, "total", D])],
        [numpy_helper.from_array(w[n], n) for n in w]
        + [numpy_helper.from_array(np.array(1 / np.sqrt(D), np.float32), "scale")])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    onnx.checker.check_model(model)
    onnx.save(model, str(path))
    return w


def causal_bias(seq, past):
    """The additive mask of `seq` queries at positions past.. over past+seq
    keys: 0 where a query may attend, -1e9 after it."""
    total = past + seq
    rows = np.arange(past, total)[:, None]
    return np.where(np.arange(total)[None, :] <= rows, 0, -1e9).astype(
        np.float32)[None]


def reference(w, x):
    """Causal attention over the whole sequence x [1, T, D] in float64."""
    x = x.astype(np.float64)
    q, k, v = (x @ w[n].astype(np.float64) for n in ("Wq", "Wk", "Wv"))
    s = q @ k.transpose(0, 2, 1) / np.sqrt(D) + causal_bias(x.shape[1], 0)
    p = np.exp(s - s.max(-1, keepdims=True))
    p /= p.sum(-1, keepdims=True)
    return p @ v, k, v


@pytest.fixture(scope="module", params=["portable", "onednn", "xnnpack"])
def decoder(request, tmp_path_factory):
    folder = tmp_path_factory.mktemp("state")
    w = attention_model(folder / "attention.onnx")
    out = folder / f"attention-{request.param}.strata"
    backend = [] if request.param == "portable" else [
        "--backend", request.param, "--partition-cost=false"]
    compile_model(folder / "attention.onnx", out,
                  "--state", "past-present", "--dim", "past_len=0..16",
                  "--method", "prefill", "--dim", "seq=1..8",
                  "--dim", "total=1..24", "--method", "decode",
                  "--input-shape", "x=1x1x8",
                  "--input-shape", "attention_bias=1x1xtotal:1..17", *backend)
    return w, str(out)


def test_prefill_then_decode_equals_the_whole_sequence(decoder):
    w, path = decoder
    program = strata.load(path)
    assert program.methods == ["prefill", "decode"]
    assert program.state_names == ["past_key_values.0.key",
                                   "past_key_values.0.value"]
    prefill, decode = program.method("prefill"), program.method("decode")
    assert prefill.input_names == ["x", "attention_bias"]
    assert decode.state_names == program.state_names
    x = np.random.default_rng(1).standard_normal((1, 8, D)).astype(np.float32)
    want, k, v = reference(w, x)
    prompt = 5
    assert prefill.output_names == ["y"]
    (y,) = prefill(x[:, :prompt], causal_bias(prompt, 0))
    outputs = [y]
    for t in range(prompt, 8):
        (y,) = decode(x=x[:, t:t + 1], attention_bias=causal_bias(1, t))
        assert program.get_state("past_key_values.0.key").shape == (1, t + 1, D)
        outputs.append(y)
    got = np.concatenate(outputs, axis=1)
    assert rel_l2(got, want) < 1e-5
    assert rel_l2(program.get_state("past_key_values.0.key"), k) < 1e-6
    assert rel_l2(program.get_state("past_key_values.0.value"), v) < 1e-6
    # A new sequence starts from an empty cache.
    program.reset_state()
    assert program.get_state("past_key_values.0.key").shape == (1, 0, D)
    (y,) = decode(x[:, :1], causal_bias(1, 0))
    assert rel_l2(y, want[:, :1]) < 1e-5


def test_state_is_set_and_checked_by_name(decoder):
    w, path = decoder
    program = strata.load(path)
    x = np.random.default_rng(2).standard_normal((1, 3, D)).astype(np.float32)
    _, k, v = reference(w, x)
    # A cache filled by hand continues as one the program filled.
    program.set_state("past_key_values.0.key", k[:, :2].astype(np.float32))
    program.set_state("past_key_values.0.value", v[:, :2].astype(np.float32))
    (y,) = program.method("decode")(x[:, 2:3], causal_bias(1, 2))
    assert rel_l2(y, reference(w, x)[0][:, 2:3]) < 1e-5
    with pytest.raises(strata.Error, match="no state 'past' .*'past_key_values.0.key'"):
        program.get_state("past")
    with pytest.raises(strata.Error, match="holds at most f32\\[1, 24, 8\\]"):
        program.set_state("past_key_values.0.key", np.zeros((1, 25, D), np.float32))
    with pytest.raises(strata.Error, match="takes 2 inputs \\(its state feeds the others\\), got 3"):
        program.method("decode")(x[:, :1], causal_bias(1, 0), x[:, :1])


def test_a_full_cache_is_refused_and_kept(decoder):
    _, path = decoder
    program = strata.load(path)
    decode = program.method("decode")
    token = np.ones((1, 1, D), np.float32)
    for t in range(17):
        decode(token, causal_bias(1, t))
    # The caller's bias fits (17 keys); the cache of 17 rows does not (16).
    with pytest.raises(strata.Error, match="state 'past_key_values.0.key' cannot feed input 1"):
        decode(token, causal_bias(1, 16))
    assert program.get_state("past_key_values.0.key").shape == (1, 17, D)


# The project's GPT-style decoder (models/decoder.py), exported as people
# export decoders: a whole-sequence graph and a step graph with
# past_key_values.* / present.*, attention_mask and position_ids, the
# causal mask computed in the graph (conftest's GPT_METHODS compile it).

_GPT = {}


def gpt_greedy(prompt, count):
    """PyTorch's greedy continuation of `prompt`, the whole sequence run
    again for every token."""
    import torch
    ids = torch.tensor(prompt)
    with torch.no_grad():
        for _ in range(count):
            logits = _GPT["model"](ids)[0]
            ids = torch.cat([ids, logits[:, -1:].argmax(-1)], dim=1)
    return ids[0, prompt.shape[1]:].tolist()


@pytest.fixture(scope="module")
def gpt(tmp_path_factory):
    torch = pytest.importorskip("torch")
    import sys
    sys.path.insert(0, os.path.join(os.path.dirname(__file__), "..", "..",
                                    "models"))
    import decoder
    torch.manual_seed(0)
    model = decoder.GPT(layers=2, width=64, heads=4, context=64).eval()
    _GPT["model"] = model
    folder = tmp_path_factory.mktemp("gpt")
    decoder.export(model, str(folder))
    ids = torch.randint(0, 256, (1, 24))
    with torch.no_grad():
        logits = model(ids)[0].numpy()
    return folder, ids.numpy(), logits


def backend_flags(backend):
    return [] if backend == "portable" else ["--backend", backend]


def gpt_steps(folder, backend, *flags):
    """The step export compiled with prefill and decode methods."""
    suffix = "-" + "-".join(f.strip("-").replace("=", "-") for f in flags) \
        if flags else ""
    return compile_model(folder / "with_past.onnx",
                         folder / f"steps-{backend}{suffix}.strata",
                         *GPT_METHODS, *backend_flags(backend), *flags)


@pytest.mark.parametrize("backend", ["portable", "onednn", "xnnpack"])
def test_gpt_prefill_and_decode_steps_equal_the_full_sequence(gpt, backend):
    folder, ids, want = gpt
    out = gpt_steps(folder, backend)
    program = strata.load(str(out))
    assert len(program.state_names) == 4
    prefill, decode = program.method("prefill"), program.method("decode")
    prompt = 16
    assert decode.output_names == ["logits"]
    logits = prefill(ids[:, :prompt], np.ones((1, prompt), np.int64),
                     np.arange(prompt)[None])
    for t in range(prompt, ids.shape[1]):
        logits += decode(ids[:, t:t + 1], np.ones((1, t + 1), np.int64),
                         np.array([[t]]))
    stepped = np.concatenate(logits, axis=1)
    assert rel_l2(stepped, want) < 1e-5
    # The whole-sequence export gives the same logits.
    full = folder / f"full-{backend}.strata"
    compile_model(folder / "full.onnx", full, "--dim", "sequence=1..64",
                  *backend_flags(backend))
    (whole,) = strata.load(str(full)).run(ids)
    assert rel_l2(stepped, whole) < 1e-5
    # After a reset, greedy generation from the prompt picks PyTorch's
    # tokens (PyTorch recomputing the whole sequence at every step).
    program.reset_state()
    (step,) = prefill(ids[:, :prompt], np.ones((1, prompt), np.int64),
                      np.arange(prompt)[None])
    assert program.get_state("past_key_values.1.value").shape == (1, 4, 16, 16)
    generated = []
    for t in range(prompt, prompt + 16):
        token = int(step[0, -1].argmax())
        generated.append(token)
        (step,) = decode(np.array([[token]]), np.ones((1, t + 1), np.int64),
                         np.array([[t]]))
    assert generated == gpt_greedy(ids[:, :prompt], 16)


def test_gpt_attention_over_the_cache_is_not_delegated(gpt):
    """Attention over the cache changes shape at every decode step and a
    delegate builds its graph per shape, so with --state the decode step's
    attention stays on the portable kernels and its delegates are static
    (built once); the prompt's attention, whose extents also follow the
    prompt's length, does work enough to pay for a build and is delegated,
    and so is the decode step's compiled without --state (the cache a
    plain input). The cost model is off so that every op oneDNN takes is
    delegated at this small width."""
    folder, _, _ = gpt
    stateful = compile_model(folder / "with_past.onnx",
                             folder / "steps-all-onednn.strata", *GPT_METHODS,
                             "--backend", "onednn", "--partition-cost=false")
    dump = subprocess.run([tool("strata-dump"), str(stateful)], check=True,
                          capture_output=True, text=True).stdout
    for method in ("prefill", "decode"):
        text = dump.split(f"method @{method}")[1].split("method @")[0]
        delegates = [line for line in text.splitlines()
                     if ": delegate @" in line]
        assert [line for line in delegates
                if '"/gpt/blocks.0/qkv/MatMul"' in line]
        attention = [line for line in delegates
                     if '"/gpt/blocks.0/MatMul"' in line]
        if method == "prefill":
            assert attention
            continue
        assert not attention
        assert [line for line in text.splitlines() if "kernel matmul" in line
                and '"/gpt/blocks.0/MatMul"' in line
                and "rhs_permutation" in line]
        assert not [line for line in delegates if "extents [" in line]
    plain = compile_model(folder / "with_past.onnx",
                          folder / "plain-onednn.strata",
                          "--dim", "past_sequence=0..63",
                          "--dim", "total_sequence=1..64",
                          "--input-shape", "input_ids=1x1",
                          "--input-shape", "position_ids=1x1",
                          "--backend", "onednn", "--partition-cost=false")
    dump = subprocess.run([tool("strata-dump"), str(plain)], check=True,
                          capture_output=True, text=True).stdout
    assert [line for line in dump.splitlines() if ": delegate @" in line
            and '"/gpt/blocks.0/MatMul"' in line and "extents [" in line]


@pytest.mark.parametrize("backend", ["portable", "onednn"])
def test_gpt_cache_is_appended_in_place_and_read_in_the_models_layout(
        gpt, backend):
    """The KV cache is stored with its growing axis first, so both methods
    append each call's rows to it in place; get_state and set_state still
    read and write the model's [1, heads, length, head_dim], checked
    against PyTorch's presents and against PyTorch decoding from a cache
    set by hand. --state-in-place=false keeps the model's layout, which
    the concat cannot extend in place."""
    import torch
    folder, ids, _ = gpt
    assert strata.load(str(gpt_steps(
        folder, backend, "--state-in-place=false"))).method(
        "decode").states_appended_in_place == []
    path = gpt_steps(folder, backend)
    program = strata.load(str(path))
    prefill, decode = program.method("prefill"), program.method("decode")
    assert prefill.states_appended_in_place == program.state_names
    assert decode.states_appended_in_place == program.state_names
    out = subprocess.run([tool("strata-dump"), str(path)],
                         check=True, capture_output=True, text=True).stdout
    assert ("'past_key_values.0.key' capacity f32[127x1x4x16] initial "
            "[0, 1, 4, 16] stored in the order of the model's dims "
            "[2, 0, 1, 3]") in out
    prompt = 10
    prefill(ids[:, :prompt], np.ones((1, prompt), np.int64),
            np.arange(prompt)[None])
    with torch.no_grad():
        _, presents = _GPT["model"](torch.tensor(ids[:, :prompt]))
    for layer, (key, value) in enumerate(presents):
        for name, want in (("key", key), ("value", value)):
            got = program.get_state(f"past_key_values.{layer}.{name}")
            assert got.shape == (1, 4, prompt, 16)
            assert rel_l2(got, want.numpy()) < 1e-5
    # A cache set by hand (model layout) is what the next step attends to.
    rng = np.random.default_rng(1)
    past = [(rng.standard_normal((1, 4, 7, 16)) * 0.5).astype(np.float32)
            for _ in range(4)]
    for i, name in enumerate(program.state_names):
        program.set_state(name, past[i])
        assert np.array_equal(program.get_state(name), past[i])
    (logits,) = decode(ids[:, 7:8], np.ones((1, 8), np.int64), np.array([[7]]))
    with torch.no_grad():
        want, _ = _GPT["model"](
            torch.tensor(ids[:, 7:8]), torch.ones(1, 8, dtype=torch.int64),
            torch.tensor([[7]]),
            [(torch.tensor(past[2 * i]), torch.tensor(past[2 * i + 1]))
             for i in range(2)])
    assert rel_l2(logits, want.numpy()) < 1e-5
    assert program.get_state("past_key_values.1.value").shape == (1, 4, 8, 16)
    assert np.array_equal(program.get_state("past_key_values.1.value")[:, :, :7],
                          past[3])
    # A cache over the capacity is refused in the model's terms.
    with pytest.raises(strata.Error, match=r"holds at most f32\[1, 4, 127, 16\]"):
        program.set_state("past_key_values.0.key",
                          np.zeros((1, 4, 128, 16), np.float32))


@pytest.mark.parametrize("backend", ["portable", "onednn"])
def test_gpt_generates_pytorchs_greedy_tokens(gpt, backend):
    folder, ids, _ = gpt
    out = gpt_steps(folder, backend)
    prompt = ids[0, :12].tolist()
    want = gpt_greedy(ids[:, :12], 24)
    program = strata.load(str(out))
    result = program.generate(prompt, max_new_tokens=24)
    assert result["tokens"] == want
    assert result["prefill_tokens_per_s"] > 0 and result["decode_tokens_per_s"] > 0
    # A second sequence starts from a reset cache: the same tokens.
    assert program.generate(prompt, max_new_tokens=24)["tokens"] == want
    # top_k 1 is greedy; a seed gives the same sample every time.
    assert program.generate(prompt, 24, temperature=0.7, top_k=1)["tokens"] == want
    sampled = program.generate(prompt, 24, temperature=1.0, top_p=0.9, seed=5)
    assert program.generate(prompt, 24, temperature=1.0, top_p=0.9,
                            seed=5)["tokens"] == sampled["tokens"]
    assert all(0 <= t < 256 for t in sampled["tokens"])
    # The command line runs the same loop.
    run = subprocess.run(
        [tool("strata-run"), str(out), "--generate", "24", "--prompt",
         ",".join(map(str, prompt))], check=True, capture_output=True,
        text=True).stdout
    assert f"generated: {','.join(map(str, want))}" in run
    assert "decode: 23 tokens in" in run
    stop = program.generate(prompt, 24, stop_token=want[3])["tokens"]
    assert stop == want[:want.index(want[3]) + 1]

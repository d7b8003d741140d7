"""strata.load and running programs on numpy arrays."""
import os
import shutil
import subprocess

import numpy as np
import pytest
from onnx import TensorProto, helper

import strata
from conftest import compile_model, rel_l2, tool


def test_load_lists_methods(mlp_program):
    program = strata.load(mlp_program)
    assert program.methods == ["main"]
    assert program.default_method == "main"
    assert program.path == mlp_program


def test_run_matches_numpy_float64(mlp, mlp_program):
    program = strata.load(mlp_program)
    x = np.random.default_rng(1).standard_normal((2, 8)).astype(np.float32)
    (y,) = program.run(x)
    assert y.dtype == np.float32 and y.shape == (2, 4)
    assert rel_l2(y, mlp.reference(x)) < 1e-6


def test_method_object(mlp, mlp_program):
    method = strata.load(mlp_program).method("main")
    assert method.name == "main"
    assert method.input_count == 1 and method.output_count == 1
    assert method.input_types == ["f32[2, 8]"]
    assert not method.is_dynamic
    x = np.ones((2, 8), np.float32)
    (y,) = method(x)
    assert rel_l2(y, mlp.reference(x)) < 1e-6


def test_outputs_are_copies(mlp_program):
    program = strata.load(mlp_program)
    (first,) = program.run(np.zeros((2, 8), np.float32))
    kept = first.copy()
    program.run(np.ones((2, 8), np.float32))
    assert np.array_equal(first, kept)


def test_same_method_object_each_time(mlp_program):
    program = strata.load(mlp_program)
    assert program.method("main") is program.method("main")


def test_non_contiguous_input(mlp, mlp_program):
    program = strata.load(mlp_program)
    x = np.random.default_rng(2).standard_normal((8, 2)).astype(np.float32).T
    assert not x.flags["C_CONTIGUOUS"]
    (y,) = program.run(x)
    assert rel_l2(y, mlp.reference(x)) < 1e-6


def test_lists_convert(mlp, mlp_program):
    program = strata.load(mlp_program)
    x = [[0.5] * 8, [-0.25] * 8]
    (y,) = program.run(np.asarray(x, np.float32))
    assert rel_l2(y, mlp.reference(np.asarray(x))) < 1e-6


def test_wrong_dtype_is_the_runtime_error(mlp_program):
    program = strata.load(mlp_program)
    with pytest.raises(strata.Error, match=r"must be f32\[2, 8\], got f64\[2, 8\]"):
        program.run(np.zeros((2, 8), np.float64))


def test_wrong_shape_has_the_tools_message(mlp_program, tmp_path):
    x = np.zeros((3, 8), np.float32)
    np.save(tmp_path / "x.npy", x)
    tool_run = subprocess.run([tool("strata-run"), mlp_program, "--input",
                               str(tmp_path / "x.npy")],
                              capture_output=True, text=True)
    assert tool_run.returncode != 0
    with pytest.raises(strata.Error) as raised:
        strata.load(mlp_program).run(x)
    message = str(raised.value)
    assert "must be f32[2, 8], got f32[3, 8]" in message
    # strata-run names the input's file where Python names its position.
    assert message.split(": ", 1)[1] in tool_run.stderr


def test_wrong_input_count(mlp_program):
    program = strata.load(mlp_program)
    with pytest.raises(strata.Error, match="takes 1 inputs, got 2"):
        program.run(np.zeros((2, 8), np.float32), np.zeros((2, 8), np.float32))


def test_unknown_method(mlp_program):
    with pytest.raises(strata.Error, match=r"no method 'decode' \(methods: main\)"):
        strata.load(mlp_program).method("decode")


def test_missing_file(tmp_path):
    with pytest.raises(strata.Error, match="nothing.strata"):
        strata.load(tmp_path / "nothing.strata")


@pytest.mark.parametrize("cut", [0, 7, 64, 200])
def test_damaged_program_is_an_error(mlp_program, tmp_path, cut):
    data = open(mlp_program, "rb").read()
    damaged = tmp_path / "damaged.strata"
    damaged.write_bytes(data[:cut] if cut else bytes(len(data)))
    with pytest.raises(strata.Error):
        strata.load(damaged)


def test_flipped_bytes_never_crash(mlp_program, tmp_path):
    data = bytearray(open(mlp_program, "rb").read())
    rng = np.random.default_rng(3)
    for trial in range(20):
        damaged = bytearray(data)
        for at in rng.integers(0, len(data), 8):
            damaged[at] ^= 0xFF
        path = tmp_path / ("flipped-%d.strata" % trial)
        path.write_bytes(bytes(damaged))
        try:
            strata.load(path).run(np.zeros((2, 8), np.float32))
        except strata.Error:
            pass


def test_dynamic_batch(mlp, mlp_dynamic):
    program = strata.load(mlp_dynamic)
    method = program.method("main")
    assert method.is_dynamic
    assert method.input_types == ["f32[batch: 1..4, 8]"]
    rng = np.random.default_rng(4)
    for batch in [1, 4, 3]:
        x = rng.standard_normal((batch, 8)).astype(np.float32)
        (y,) = program.run(x)
        assert y.shape == (batch, 4)
        assert rel_l2(y, mlp.reference(x)) < 1e-6


def test_batch_outside_bounds(mlp_dynamic):
    with pytest.raises(strata.Error, match=r"dim 0 \('batch'\) is 5, outside its bounds 1..4"):
        strata.load(mlp_dynamic).run(np.zeros((5, 8), np.float32))


@pytest.mark.parametrize("backend", ["onednn", "xnnpack"])
def test_delegated_program(mlp, mlp_onnx, tmp_path, backend):
    program_path = compile_model(mlp_onnx, tmp_path / (backend + ".strata"),
                                 "--backend", backend, "--input-shape", "x=2x8")
    program = strata.load(program_path, threads=1)
    x = np.random.default_rng(5).standard_normal((2, 8)).astype(np.float32)
    (y,) = program.run(x)
    assert rel_l2(y, mlp.reference(x)) < 1e-5


def test_profile_names_nodes(mlp, mlp_program):
    method = strata.load(mlp_program).method("main")
    x = np.random.default_rng(9).standard_normal((2, 8)).astype(np.float32)
    rows = method.profile(x)
    assert [row["index"] for row in rows] == list(range(len(rows)))
    nodes = {node for row in rows for node in row["nodes"]}
    assert {"fc1", "relu", "fc2"} <= nodes
    assert all(row["nanoseconds"] >= 0 and row["label"] for row in rows)
    # Profiling does not change what the method computes.
    (y,) = method(x)
    assert rel_l2(y, mlp.reference(x)) < 1e-6


def test_profile_shows_delegate_steps(mlp_onnx, tmp_path):
    program = strata.load(compile_model(mlp_onnx, tmp_path / "onednn.strata",
                                        "--backend", "onednn",
                                        "--require-delegated",
                                        "--input-shape", "x=2x8"))
    rows = program.method("main").profile(np.ones((2, 8), np.float32))
    assert any(row["label"].startswith("delegate") for row in rows)
    steps = [step for row in rows for step in row["steps"]]
    assert steps and all(step["implementation"] for step in steps)


def test_calls_from_threads_take_turns(mlp, mlp_dynamic):
    # Threads calling one method at different batches: without the method's
    # lock they would set each other's inputs and shapes mid-call.
    import threading

    method = strata.load(mlp_dynamic).method("main")
    rng = np.random.default_rng(11)
    inputs = [rng.standard_normal((1 + k % 4, 8)).astype(np.float32)
              for k in range(8)]
    errors = []

    def work(x):
        for _ in range(300):
            (y,) = method(x)
            if y.shape != (len(x), 4) or rel_l2(y, mlp.reference(x)) > 1e-6:
                errors.append(x)
                return

    threads = [threading.Thread(target=work, args=(x,)) for x in inputs]
    for thread in threads:
        thread.start()
    for thread in threads:
        thread.join()
    assert not errors


@pytest.mark.parametrize("backend", [None, "onednn", "xnnpack"])
def test_inputs_in_the_program_layout_are_not_copied(cnn, cnn_onnx, backend):
    program = strata.compile(cnn_onnx, backend=backend,
                             input_shapes={"x": "2x4x6x6"}, threads=1)
    method = program.method(program.default_method)
    rng = np.random.default_rng(40)
    x = rng.standard_normal((2, 4, 6, 6)).astype(np.float32)
    before = x.copy()
    (y,) = method(x)
    assert method.last_input_addresses == [x.ctypes.data]
    assert rel_l2(y, cnn.reference(x)) < 1e-5
    assert np.array_equal(x, before)
    # Another array next: read where it is, never the last one's memory.
    x2 = rng.standard_normal((2, 4, 6, 6)).astype(np.float32)
    (y2,) = method(x2)
    assert method.last_input_addresses == [x2.ctypes.data]
    assert rel_l2(y2, cnn.reference(x2)) < 1e-5
    # Not in the program's layout (Fortran order, float64): converted into a
    # copy, with the same result.
    for other in (np.asfortranarray(x), x.astype(np.float64)):
        if other.dtype != np.float32:
            with pytest.raises(strata.Error, match="f32"):
                method(other)
            continue
        (y3,) = method(other)
        assert method.last_input_addresses != [other.ctypes.data]
        assert np.array_equal(y3, y)


def test_inputs_by_name(mlp, mlp_program):
    program = strata.load(mlp_program)
    method = program.method(program.default_method)
    assert method.input_names == ["x"] and method.output_names == ["y"]
    x = np.random.default_rng(41).standard_normal((2, 8)).astype(np.float32)
    (by_name,) = program.run(x=x)
    (by_position,) = program.run(x)
    assert np.array_equal(by_name, by_position)
    assert rel_l2(by_name, mlp.reference(x)) < 1e-6
    with pytest.raises(strata.Error, match=r"has no input 'z' \(its inputs: 'x'\)"):
        program.run(z=x)
    with pytest.raises(strata.Error, match="input 'x' is given twice"):
        method(x, x=x)


def test_missing_named_input(tmp_path):
    model = helper.make_model(helper.make_graph(
        [helper.make_node("Sub", ["a", "b"], ["d"], name="sub")], "sub",
        [helper.make_tensor_value_info(n, TensorProto.FLOAT, [3])
         for n in ("a", "b")],
        [helper.make_tensor_value_info("d", TensorProto.FLOAT, [3])]),
        opset_imports=[helper.make_opsetid("", 17)])
    program = strata.compile(model)
    a = np.array([5, 6, 7], np.float32)
    b = np.array([1, 2, 3], np.float32)
    (d,) = program.run(b=b, a=a)
    assert np.array_equal(d, a - b)
    with pytest.raises(strata.Error, match="input 'b' is missing"):
        program.run(a=a)


def test_other_byte_order_is_converted(mlp, mlp_program):
    program = strata.load(mlp_program)
    x = np.random.default_rng(42).standard_normal((2, 8)).astype(np.float32)
    (want,) = program.run(x)
    (got,) = program.run(x.astype(">f4"))
    assert np.array_equal(got, want)

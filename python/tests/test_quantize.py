"""strata.compile(quantize=True) with calibration data from Python."""
import os
import subprocess

import numpy as np
import pytest

import strata
from conftest import ROOT, tool

DIGITS = os.path.join(ROOT, "models", "digits_cnn")
CALIBRATION = np.load(os.path.join(DIGITS, "calib_images.npy"))
IMAGES = np.load(os.path.join(DIGITS, "test_images.npy"))
LABELS = np.load(os.path.join(DIGITS, "test_labels.npy"))


def predictions(program, images):
    method = program.method(program.default_method)
    return np.array([int(np.argmax(method(image[None])[0])) for image in images])


@pytest.fixture(scope="module")
def cli_int8(tmp_path_factory):
    out = tmp_path_factory.mktemp("int8") / "digits.strata"
    subprocess.run([tool("strata-compile"), os.path.join(DIGITS, "model.onnx"),
                    "-o", str(out), "--backend", "onednn", "--quantize",
                    "--calibration-data",
                    os.path.join(DIGITS, "calib_images.npy")],
                   check=True, capture_output=True)
    return strata.load(out)


def test_numpy_calibration_is_strata_compiles(cli_int8):
    program = strata.compile(os.path.join(DIGITS, "model.onnx"),
                             backend="onednn", quantize=True,
                             calibration=CALIBRATION)
    assert "dB" in program.notes  # the quantization summary
    for image in IMAGES[:32]:
        (got,) = program.run(image[None])
        (want,) = cli_int8.run(image[None])
        assert np.array_equal(got, want)


def test_iterable_and_dataloader_calibrate_alike(cli_int8):
    torch = pytest.importorskip("torch")
    data = torch.utils.data.TensorDataset(torch.from_numpy(CALIBRATION),
                                          torch.zeros(len(CALIBRATION)))
    loader = torch.utils.data.DataLoader(data, batch_size=16)
    model = os.path.join(DIGITS, "model.onnx")
    from_loader = strata.compile(model, backend="onednn", quantize=True,
                                 calibration=loader)
    from_list = strata.compile(model, backend="onednn", quantize=True,
                               calibration=list(CALIBRATION))
    for image in IMAGES[:16]:
        (want,) = cli_int8.run(image[None])
        assert np.array_equal(from_loader.run(image[None])[0], want)
        assert np.array_equal(from_list.run(image[None])[0], want)


def test_int8_accuracy_against_the_labels():
    model = os.path.join(DIGITS, "model.onnx")
    fp32 = (predictions(strata.compile(model, backend="onednn"), IMAGES)
            == LABELS).mean()
    int8 = (predictions(strata.compile(model, backend="onednn", quantize=True,
                                       calibration=CALIBRATION), IMAGES)
            == LABELS).mean()
    assert fp32 > 0.9
    assert int8 >= fp32 - 0.02, (fp32, int8)


def test_multi_input_samples_as_pb_folders(tmp_path):
    from onnx import TensorProto, helper

    graph = helper.make_graph(
        [helper.make_node("Add", ["a", "b"], ["s"], name="sum"),
         helper.make_node("Relu", ["s"], ["y"], name="relu")], "g",
        [helper.make_tensor_value_info("a", TensorProto.FLOAT, [1, 4]),
         helper.make_tensor_value_info("b", TensorProto.FLOAT, [1, 4])],
        [helper.make_tensor_value_info("y", TensorProto.FLOAT, [1, 4])])
    model = helper.make_model(graph, opset_imports=[helper.make_opsetid("", 17)])
    rng = np.random.default_rng(10)
    samples = [(rng.standard_normal((1, 4)).astype(np.float32),
                rng.standard_normal((1, 4)).astype(np.float32))
               for _ in range(8)]
    program = strata.compile(model, backend="onednn", quantize=True,
                             calibration=samples)
    a, b = samples[0]
    (y,) = program.run(a, b)
    want = np.maximum(a + b, 0)
    assert np.abs(y - want).max() < 0.05 * np.abs(want).max() + 1e-6


def test_missing_calibration_file():
    with pytest.raises(strata.Error, match="nothing.npy"):
        strata.compile(os.path.join(DIGITS, "model.onnx"), backend="onednn",
                       quantize=True, calibration="/nonexistent/nothing.npy")


def test_mixed_precision_target():
    model = os.path.join(DIGITS, "model.onnx")
    fp32 = strata.compile(model, backend="onednn")
    all_int8 = strata.compile(model, backend="onednn", quantize=True,
                              calibration=CALIBRATION)
    mixed = strata.compile(model, backend="onednn", quantize=True,
                           calibration=CALIBRATION, target_sqnr=45)
    report = mixed.report["quantization"]["mixed_precision"]
    assert report["target_sqnr_db"] == 45
    assert report["kept_float"]

    def sqnr(program):
        want = np.concatenate([fp32.run(x[None])[0] for x in CALIBRATION])
        got = np.concatenate([program.run(x[None])[0] for x in CALIBRATION])
        return 20 * np.log10(np.linalg.norm(want) / np.linalg.norm(got - want))

    # Measured here, on the calibration images the target was chosen on.
    assert sqnr(all_int8) < 45 <= sqnr(mixed) + 0.5

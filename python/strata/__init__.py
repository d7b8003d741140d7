"""Strata from Python (docs/python.md).

    import numpy as np, strata
    program = strata.compile("model.onnx", backend="onednn",
                             input_shapes={"x": "batch:1..8x3x224x224"})
    (y,) = program.run(np.zeros((2, 3, 224, 224), np.float32))
    program = strata.load("model.strata")

    strata.set_backend("tensorrt")
    plan = strata.get_transformation_plan("model.onnx")
    plan.matches["/relu/Relu"]["ConvBNReLU"].apply = False
    result = strata.apply_transformation_plan(plan)
    result.report["applied_count"]

Everything here is the C++ API's (python/bindings): this package converts
Python arguments to it and nothing more.
"""
import json
import os
import tempfile

from ._strata import (Error, Method, Program, compile_file, discover_backends,
                      get_backend, render_html_report, reset_backends,
                      set_backend, write_file)
from .plans import PlannedMatch, TransformationPlan, TransformResult

__all__ = ["Error", "Method", "PlannedMatch", "Program", "TransformResult",
           "TransformationPlan", "apply_transformation_plan", "compile",
           "discover_backends", "export_onnx", "get_backend",
           "get_transformation_plan", "load", "partition", "reset_backends",
           "set_backend", "transform"]


def load(path, threads=0):
    """Memory-maps and verifies the .strata program at `path`; its delegates
    run on `threads` threads (0: their default)."""
    return Program.load(str(path), threads)


def _shape_flags(shapes):
    """{"x": "batch:1..8x3x224x224" or (1, 3, 224, 224)} -> NAME=DIMS."""
    flags = []
    for name, dims in (shapes or {}).items():
        if not isinstance(dims, str):
            dims = "x".join(str(d) for d in dims)
        flags.append("%s=%s" % (name, dims))
    return flags


def _value_flags(values):
    """{"sr": 16000 or [1, 2]} -> NAME=V[,V...]."""
    flags = []
    for name, value in (values or {}).items():
        if isinstance(value, (list, tuple)):
            value = ",".join(str(v) for v in value)
        flags.append("%s=%s" % (name, value))
    return flags


def _export_torch(module, example_inputs, dynamic_axes, path):
    """A torch.nn.Module to an ONNX file, with torch.onnx.export: inputs
    named input_0, input_1, ..., outputs output_0, ..."""
    import torch

    if example_inputs is None:
        raise Error("a torch.nn.Module needs example_inputs to be exported")
    if not isinstance(example_inputs, tuple):
        example_inputs = (example_inputs,)
    names = ["input_%d" % i for i in range(len(example_inputs))]
    module.eval()
    with torch.no_grad():
        outputs = module(*example_inputs)
    count = len(outputs) if isinstance(outputs, (tuple, list)) else 1
    torch.onnx.export(module, example_inputs, path, input_names=names,
                      output_names=["output_%d" % i for i in range(count)],
                      dynamic_axes=dynamic_axes, opset_version=17)


def _calibration_data(calibration, folder):
    """Calibration samples as the pipeline reads them (its calibration-data
    option): a path or a random spec ("random-normal") as it is; a numpy
    array, one sample per leading index, as a .npy; a torch DataLoader, its
    batches (the first element of (inputs, labels) pairs) concatenated
    along the batch axis, as a .npy; any other iterable of samples, each an
    array (one input) or a tuple of arrays (several inputs), as a .npy of
    the stacked samples or a folder of sample folders of input_N.pb."""
    import numpy as np

    def array(value):
        return value.detach().cpu().numpy() if hasattr(value, "detach") \
            else np.asarray(value)

    if isinstance(calibration, (str, os.PathLike)):
        return os.fspath(calibration)
    path = os.path.join(folder, "calibration.npy")
    if isinstance(calibration, np.ndarray) or hasattr(calibration, "detach"):
        np.save(path, array(calibration))
        return path
    if hasattr(calibration, "dataset") and hasattr(calibration, "batch_size"):
        batches = [array(b[0] if isinstance(b, (tuple, list)) else b)
                   for b in calibration]
        np.save(path, np.concatenate(batches))
        return path
    samples = list(calibration)
    if samples and isinstance(samples[0], (tuple, list)):
        from onnx import numpy_helper

        root = os.path.join(folder, "calibration")
        for k, sample in enumerate(samples):
            os.makedirs(os.path.join(root, "sample_%d" % k))
            for i, value in enumerate(sample):
                with open(os.path.join(root, "sample_%d" % k,
                                       "input_%d.pb" % i), "wb") as stream:
                    stream.write(numpy_helper.from_array(array(value))
                                 .SerializeToString())
        return root
    np.save(path, np.stack([array(sample) for sample in samples]))
    return path


def _model_path(model, example_inputs, dynamic_axes, folder):
    """The ONNX file of `model` (a path as it is; bytes, a ModelProto or a
    torch.nn.Module written into `folder`)."""
    if isinstance(model, (str, os.PathLike)):
        return os.fspath(model)
    path = os.path.join(folder, "model.onnx")
    if hasattr(model, "state_dict") and callable(model):
        _export_torch(model, example_inputs, dynamic_axes, path)
        return path
    data = model if isinstance(model, (bytes, bytearray)) else (
        model.SerializeToString())
    with open(path, "wb") as stream:
        stream.write(data)
    return path


# What stops before calibration: it reads no calibration data.
_BEFORE_CALIBRATION = ("plan", "mlir-hl-transformed")


def _run(model, emit="program", *, backend=None, input_shapes=None,
         dims=None, max_extents=None, input_values=None, options=None,
         example_inputs=None, dynamic_axes=None, quantize=False,
         calibration=None, target_sqnr=None, patterns=None, plan=None,
         verify=None):
    """strata::compileModel on `model` with the arguments spelled as its
    CompileRequest takes them; returns (artifact bytes, report dict, notes,
    the model as given or as exported from torch, the verification dict or
    None)."""
    pipeline = dict(options or {})
    if backend:
        pipeline["backend"] = backend
    if quantize:
        pipeline["quantize"] = True
    if target_sqnr is not None:
        pipeline["quantize-target-sqnr"] = target_sqnr
    if isinstance(patterns, str):
        patterns = [patterns]
    if patterns:
        pipeline["patterns"] = ",".join(patterns)
    words = []
    for key, value in pipeline.items():
        if isinstance(value, bool):
            value = "true" if value else "false"
        words.append("%s=%s" % (key, value))
    with tempfile.TemporaryDirectory() as folder:
        # An option given as an array (calibration-labels) is saved as a
        # .npy beside the calibration samples.
        for i, word in enumerate(words):
            key = word.split("=", 1)[0]
            value = pipeline.get(key)
            if not (hasattr(value, "detach") or hasattr(value, "__array__")):
                continue
            import numpy as np
            if hasattr(value, "detach"):
                value = value.detach().cpu().numpy()
            value = np.asarray(value)
            if value.ndim == 0:  # a number, as numpy or torch give one
                words[i] = "%s=%s" % (key, value.item())
                continue
            if key == "calibration-labels" and value.dtype.kind in "iu":
                value = value.astype(np.int64)
            path = os.path.join(folder, key + ".npy")
            np.save(path, value)
            words[i] = "%s=%s" % (key, path)
        if calibration is not None and emit not in _BEFORE_CALIBRATION:
            words.append("calibration-data=" +
                         _calibration_data(calibration, folder))
        path = _model_path(model, example_inputs, dynamic_axes, folder)
        if path.startswith(folder):
            with open(path, "rb") as stream:
                model = stream.read()
        # verify: True, a tolerance, or {"rel_l2", "data", "seed"}.
        checking = verify is not None and verify is not False
        check = ({} if verify is True or not checking
                 else {"rel_l2": verify} if isinstance(verify, (int, float))
                 else dict(verify))
        artifact, report, notes, verified = compile_file(
            path, " ".join(words), _shape_flags(input_shapes),
            ["%s=%s" % (k, v) for k, v in (dims or {}).items()],
            ["%s=%s" % (k, v) for k, v in (max_extents or {}).items()],
            _value_flags(input_values), emit,
            json.dumps(plan.to_json()) if plan is not None else "",
            checking, check.get("rel_l2", 1e-5),
            os.fspath(check.get("data", "")), check.get("seed", 0))
    return (artifact, json.loads(report), notes, model,
            json.loads(verified) if verified else None)


def compile(model, backend=None, input_shapes=None, dims=None,
            max_extents=None, input_values=None, options=None, threads=0,
            example_inputs=None, dynamic_axes=None, quantize=False,
            calibration=None, target_sqnr=None, patterns=None, plan=None,
            verify=False, report=None):
    """Compiles an ONNX model (a path, ONNX bytes or an onnx.ModelProto), or
    a torch.nn.Module exported with `example_inputs` (and `dynamic_axes`,
    as torch.onnx.export takes them; its inputs are named input_0, ...), as
    strata-compile does and returns the loaded Program, with the compile
    report as `program.report` (a dict) and strata-compile's notes as
    `program.notes`.

    backend: "onednn", "xnnpack", "onednn,xnnpack", "tensorrt", ... (without
    one, the backend set_backend selected, else the portable kernels).
    input_shapes, dims, max_extents and input_values take what
    strata-compile's --input-shape, --dim, --max-extent and --input-value
    take, keyed by name. options: further pipeline options by name, as
    `strata-opt --strata-compile` spells them ({"calibration-method":
    "entropy"}); one that takes a file may be given an array, saved as a
    .npy ({"calibration-labels": labels}). quantize: int8 at the backend's QDQ points, calibrated on
    `calibration` (a path, a numpy array, a torch DataLoader or an iterable
    of samples). target_sqnr: automatic mixed precision, keeping the fewest
    tensors in float for the outputs' SQNR (dB) against float to reach it
    (--quantize-target-sqnr; the report's quantization.mixed_precision says
    what was kept). patterns: only these of the backend's patterns, by name.
    plan: a TransformationPlan whose switched-off matches are not applied
    (its backend is the default).
    verify: True, a tolerance (rel-L2), or {"rel_l2": 1e-5, "data":
    test_data_set folder, "seed": 0}: the program is run against the untransformed reference as
    strata-compile --verify runs it; a failure raises strata.Error with the
    comparison lines, else `program.verification` holds them. report: a
    path where the report is written as strata-compile --report (JSON) or,
    for a .html path, --report-html writes it.
    """
    if plan is not None and backend is None:
        backend = plan.arguments.get("backend")
    program_bytes, info, notes, model, verified = _run(
        model, "program", backend=backend, input_shapes=input_shapes,
        dims=dims, max_extents=max_extents, input_values=input_values,
        options=options, example_inputs=example_inputs,
        dynamic_axes=dynamic_axes, quantize=quantize, calibration=calibration,
        target_sqnr=target_sqnr, patterns=patterns, plan=plan, verify=verify)
    if report is not None:
        text = json.dumps(info, indent=2) + "\n"
        if os.fspath(report).endswith(".html"):
            text = render_html_report(text)
        write_file(os.fspath(report), text.encode())
    name = os.fspath(model) if isinstance(model, (str, os.PathLike)) \
        else "<memory>"
    program = Program.from_bytes(program_bytes, name, threads)
    program.report = info
    program.notes = notes
    program.verification = verified
    return program


def get_transformation_plan(model, backend=None, quantize=False,
                            patterns=None, **arguments):
    """Every match of the backend's patterns on `model` (compile's model
    forms and arguments but threads, plan, verify and report), planned as
    strata-compile plans them and applying none: a TransformationPlan whose
    matches can be switched off before apply_transformation_plan or
    compile(plan=...). It keeps the arguments to apply the plan with (an
    iterator of calibration samples as a list)."""
    for name in ("plan", "verify"):
        if name in arguments:
            raise Error("get_transformation_plan makes a plan: it takes no "
                        "'%s'" % name)
    arguments.update(backend=backend, quantize=quantize, patterns=patterns)
    calibration = arguments.get("calibration")
    if calibration is not None and iter(calibration) is calibration:
        arguments["calibration"] = list(calibration)
    plan_json, _, _, model, _ = _run(model, "plan", **arguments)
    arguments.pop("example_inputs", None)
    arguments.pop("dynamic_axes", None)
    return TransformationPlan(json.loads(plan_json), model, arguments)


def apply_transformation_plan(plan):
    """Applies the plan's switched-on matches to its model: a
    TransformResult with the transform report (`result.report`) and the
    transformed hl module before quantization (`result.mlir`)."""
    mlir, report, _, _, _ = _run(plan.model, "mlir-hl-transformed", plan=plan,
                              **plan.arguments)
    return TransformResult(report.get("transform", {}), mlir.decode(), plan)


def transform(model, patterns=None, backend=None, **arguments):
    """get_transformation_plan + apply_transformation_plan in one call, with
    only `patterns` (names; default: all the backend's)."""
    return apply_transformation_plan(get_transformation_plan(
        model, backend=backend, patterns=patterns, **arguments))


def partition(model, backend=None, **arguments):
    """Where each op of `model` would run, before any delegate compiles:
    the compile report's "delegation" part ({"backend", "partitions",
    "ops": [{op, node, nodes, backend, partition, class, work}],
    "decisions": [{partition, first_node, ops, decision, and where the
    cost model priced the group: estimate_delegate_us, estimate_portable_us,
    boundary_bytes}]}), from compile's arguments but threads, plan, verify
    and report."""
    _, report, _, _, _ = _run(model, "mlir-partitioned", backend=backend,
                           **arguments)
    return report.get("delegation")


def export_onnx(model, path=None, backend=None, **arguments):
    """The transformed (with quantize=True, calibrated) model as ONNX with
    explicit QuantizeLinear / DequantizeLinear (strata-compile --emit
    onnx-qdq), for the backend given, else the one set_backend selected,
    else tensorrt (the export is its product): returns its bytes, and writes
    them to `path` (through a temporary file and a rename) when given."""
    if backend is None and get_backend() is None:
        backend = "tensorrt"
    data, _, _, _, _ = _run(model, "onnx-qdq", backend=backend, **arguments)
    if path is not None:
        write_file(os.fspath(path), data)
    return data

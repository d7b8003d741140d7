# -*- Python -*- lit configuration of the Strata suite.
import os

import lit.formats
from lit.llvm import llvm_config

config.name = "STRATA"
config.test_format = lit.formats.ShTest(not llvm_config.use_lit_shell)
config.suffixes = [".mlir", ".test"]
config.excludes = ["Inputs", "CMakeLists.txt", "lit.cfg.py", "lit.site.cfg.py",
                   "utils"]
config.test_source_root = os.path.dirname(__file__)
config.test_exec_root = os.path.join(config.strata_obj_root, "test")

# -enable-var-scope: captured names die at each CHECK-LABEL, so a test cannot
# pass by matching a value from the previous function.
config.environment["FILECHECK_OPTS"] = "-enable-var-scope"
# Python helpers shared by the tests (npy.py: .npy and TensorProto files).
config.environment["PYTHONPATH"] = os.path.join(config.test_source_root, "utils")

llvm_config.use_default_substitutions()
llvm_config.with_environment("PATH", config.llvm_tools_dir, append_path=True)
llvm_config.with_environment("PATH", config.strata_tools_dir, append_path=True)

config.substitutions.append(("%python", config.python_executable))
config.substitutions.append(("%strata_src", config.strata_src_root))
# The bundled models (models/: small variants of the benchmark networks,
# with PyTorch reference outputs) that end-to-end tests compile and run.
config.substitutions.append(("%models", os.path.join(config.strata_src_root, "models")))
config.substitutions.append(("%strata_build", config.strata_obj_root))
config.substitutions.append(("%onnx_node", "/usr/share/libonnx-testdata/data/node"))
if os.path.isdir("/usr/share/libonnx-testdata/data/node"):
    config.available_features.add("onnx-testdata")

# oneDNN computes in nChw16c with AVX-512 and in nChw8c with AVX2 only;
# the delegate's own Winograd kernels need AVX2 with FMA at least.
try:
    with open("/proc/cpuinfo") as cpuinfo:
        flags = cpuinfo.read()
        if " avx512f" in flags:
            config.available_features.add("avx512f")
        if " avx2" in flags and " fma" in flags:
            config.available_features.add("avx2")
        # oneDNN's int8 convolutions and matmuls are exact with VNNI only;
        # the delegate leaves them to the portable kernels elsewhere.
        if " avx512_vnni" in flags or " avx_vnni" in flags:
            config.available_features.add("int8-vnni")
except OSError:
    pass

# Headless Chromium (Debian chromium, from scripts/install-deps.sh) renders
# the HTML report in its test.
import shutil
chromium = shutil.which("chromium") or shutil.which("chromium-headless-shell")
if chromium:
    config.available_features.add("chromium")
    config.substitutions.append(("%chromium", chromium))

# Debian's /usr/bin/python3 with numpy (python3-numpy): reference values of
# runtime tests.
if os.path.isdir("/usr/lib/python3/dist-packages/numpy"):
    config.available_features.add("python3-numpy")
# ... and onnx (python3-onnx): the op
# benchmark's model generator (benchmarks/ops/make-models.py).
if all(os.path.isdir("/usr/lib/python3/dist-packages/" + m) for m in ("onnx", "numpy")):
    config.available_features.add("python3-onnx")
# ... with PyTorch (python3-torch): the float64 interpreter of
# benchmarks/wild/f64-ref.py.
if os.path.isdir("/usr/lib/python3/dist-packages/torch"):
    config.available_features.add("python3-torch")
# ... and torchvision (python3-torchvision): the detection models and the
# value-dependent ops' references (torchvision.ops.nms).
if os.path.isdir("/usr/lib/python3/dist-packages/torchvision"):
    config.available_features.add("python3-torchvision")

# A photo from a Debian package (python-matplotlib-data): the detection
# models' input.
if os.path.isfile("/usr/share/matplotlib/mpl-data/sample_data/grace_hopper.jpg"):
    config.available_features.add("sample-photo")

# ONNX Runtime (npm onnxruntime-node), installed by scripts/test.sh through
# scripts/install-ort.sh; the tests running exported ONNX files in it need it.
ort_dir = os.path.join(config.strata_obj_root, "peer", "npm")
if os.environ.get("STRATA_ORT_DIR"):
    ort_dir = os.environ["STRATA_ORT_DIR"]
config.substitutions.append(("%ort_dir", ort_dir))
if os.path.isdir(os.path.join(ort_dir, "node_modules", "onnxruntime-node")):
    config.available_features.add("onnxruntime")
if "STRATA_ORT_DIR" in os.environ:
    config.environment["STRATA_ORT_DIR"] = os.environ["STRATA_ORT_DIR"]

tools = ["strata-opt", "strata-translate", "strata-run", "strata-run-xnnpack",
         "strata-dump",
         "strata-compile", "strata-eval", "strata-onnx-conformance",
         "FileCheck", "not", "count"]
llvm_config.add_tool_substitutions(tools, [config.strata_tools_dir,
                                           config.llvm_tools_dir])

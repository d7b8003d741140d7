#!/usr/bin/env bash
#===- make-benchmark-models.sh - full-size models for the benchmarks -----===//
#
# Usage: scripts/make-benchmark-models.sh [--zoo|--arch] [--out DIR] [MODEL...]
# Writes the full-size networks (resnet18_bn, mobilenet_v2, mobilenet_v2_bn,
# squeezenet1_1 at 224x224; transformer_encoder and its opset-17 twin at
# d 256, 4 layers, sequence 64) with PyTorch reference outputs into DIR
# (default: $BUILD_DIR/models, BUILD_DIR defaulting to build/), through
# models/generate.py --size full, and copies the two trained digits models
# beside them. Installs Debian's python3-torch, python3-torchvision,
# python3-onnx and python3-numpy when missing. Seeded: the same files every
# time. Models already present are kept (delete OUT_DIR to regenerate).
# --zoo: the model zoo instead (models/zoo.py: every torchvision
# classification family, BERT- and GPT-style transformers; 5 GB), into
# $BUILD_DIR/zoo by default. --arch: the architecture set instead
# (models/arch.py: segmentation, detection heads, recurrent, audio,
# recommendation, super-resolution, style transfer and transformers outside
# the zoo, with float64 references; about 0.4 GB), into $BUILD_DIR/arch by
# default. MODEL names pick some of the set.
#
#===----------------------------------------------------------------------===//
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
zoo=no
set_name=
out=
names=()
while [ $# -gt 0 ]; do
  case $1 in
    --zoo) zoo=yes; set_name=zoo; shift ;;
    --arch) zoo=yes; set_name=arch; shift ;;
    --out) out=$2; shift 2 ;;
    -*) echo "make-benchmark-models: unknown option $1" >&2; exit 2 ;;
    *) names+=("$1"); shift ;;
  esac
done
if [ $zoo = yes ]; then out=${out:-$build/$set_name}; else out=${out:-$build/models}; fi
# Absolute: the generators run from models/ (a relative BUILD_DIR or --out
# would otherwise land under models/).
mkdir -p "$out"
out=$(cd "$out" && pwd)

packages=(python3-torch python3-torchvision python3-onnx python3-numpy)
missing=()
for pkg in "${packages[@]}"; do
  dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed" ||
    missing+=("$pkg")
done
if [ ${#missing[@]} -gt 0 ]; then
  echo "make-benchmark-models: installing ${missing[*]}"
  SUDO=""
  [ "$(id -u)" -eq 0 ] || SUDO=sudo
  export DEBIAN_FRONTEND=noninteractive
  $SUDO apt-get update -qq
  $SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"
fi

mkdir -p "$out"
# Which generator, and which models by default.
if [ $zoo = yes ]; then
  generator=("$set_name.py")
  [ ${#names[@]} -gt 0 ] ||
    mapfile -t names < <(cd "$root/models" && /usr/bin/python3 "$set_name.py" --list)
else
  generator=(generate.py --size full)
  [ ${#names[@]} -gt 0 ] ||
    names=(resnet18_bn mobilenet_v2 mobilenet_v2_bn squeezenet1_1
           transformer_encoder transformer_encoder_opset17)
fi
todo=()
for model in "${names[@]}"; do
  [ -f "$out/$model/test_data_set_0/output_0.pb" ] || todo+=("$model")
done
if [ ${#todo[@]} -gt 0 ]; then
  # Debian's interpreter: the torch packages are installed for it.
  (cd "$root/models" && /usr/bin/python3 "${generator[@]}" --out "$out" "${todo[@]}")
fi
if [ $zoo = no ]; then
  for model in digits_cnn digits_mlp; do
    rm -rf "${out:?}/$model"
    cp -r "$root/models/$model" "$out/$model"
  done
fi
echo "make-benchmark-models: ${#names[@]} models generated or kept in $out"

#!/usr/bin/env bash
#===- make-benchmark-models.sh - full-size models for the benchmarks -----===//
#
# Usage: scripts/make-benchmark-models.sh [OUT_DIR]
# Writes the full-size networks (resnet18_bn, mobilenet_v2, mobilenet_v2_bn,
# squeezenet1_1 at 224x224; transformer_encoder and its opset-17 twin at
# d 256, 4 layers, sequence 64) with PyTorch reference outputs into OUT_DIR
# (default: $BUILD_DIR/models, BUILD_DIR defaulting to build/), through
# models/generate.py --size full, and copies the two trained digits models
# beside them. Installs Debian's python3-torch, python3-torchvision,
# python3-onnx and python3-numpy when missing. Seeded: the same files every
# time. Models already present are kept (delete OUT_DIR to regenerate).
#
#===----------------------------------------------------------------------===//
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
out=${1:-$build/models}

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
todo=()
for model in resnet18_bn mobilenet_v2 mobilenet_v2_bn squeezenet1_1 \
             transformer_encoder transformer_encoder_opset17; do
  [ -f "$out/$model/test_data_set_0/output_0.pb" ] || todo+=("$model")
done
if [ ${#todo[@]} -gt 0 ]; then
  # Debian's interpreter: the torch packages are installed for it.
  /usr/bin/python3 "$root/models/generate.py" --size full --out "$out" "${todo[@]}"
fi
for model in digits_cnn digits_mlp; do
  rm -rf "${out:?}/$model"
  cp -r "$root/models/$model" "$out/$model"
done
echo "make-benchmark-models: $(ls "$out" | wc -l) models in $out"

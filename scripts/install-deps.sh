#!/usr/bin/env bash
#===- install-deps.sh - install Strata's Debian build dependencies -------===//
#
# Idempotent: installs only the Debian bookworm packages that are missing.
# Nothing is downloaded from anywhere but the Debian archive.
#
#===----------------------------------------------------------------------===//
set -euo pipefail

PACKAGES=(
  cmake ninja-build g++ python3 file binutils
  llvm-19-dev llvm-19-tools libmlir-19-dev mlir-19-tools
  libonnx-dev libprotobuf-dev protobuf-compiler
  libflatbuffers-dev flatbuffers-compiler
  libxnnpack-dev libpthreadpool-dev libdnnl-dev
  libgtest-dev libgmock-dev libbenchmark-dev
  ccache lld
  clang-14 libclang-rt-14-dev
  libonnx-testdata
  chromium
  pybind11-dev python3-dev python3-numpy python3-onnx python3-pytest
)

missing=()
for pkg in "${PACKAGES[@]}"; do
  if ! dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null | grep -q "install ok installed"; then
    missing+=("$pkg")
  fi
done

if [ ${#missing[@]} -eq 0 ]; then
  echo "install-deps: all ${#PACKAGES[@]} packages present"
  exit 0
fi

echo "install-deps: installing ${missing[*]}"
SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive
$SUDO apt-get update -qq
$SUDO apt-get install -y -qq --no-install-recommends "${missing[@]}"

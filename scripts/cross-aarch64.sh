#!/usr/bin/env bash
#===- cross-aarch64.sh - the runtime on aarch64, checked under qemu ------===//
#
# Usage: scripts/cross-aarch64.sh [--install-only]
#
# 1. Installs what the cross build needs from the Debian archive: the arm64
#    architecture, crossbuild-essential-arm64, qemu-user-static and the
#    arm64 FlatBuffers and cpuinfo packages; XNNPACK and pthreadpool, whose
#    -dev packages are not multiarch (their arm64 builds would replace the
#    host's), are fetched with `apt-get download` and unpacked into
#    $BUILD_AARCH64/sysroot.
# 2. Cross-builds the runtime (strata-run without oneDNN, strata-run-xnnpack,
#    strata-dump) into $BUILD_AARCH64 with cmake/aarch64-linux-gnu.cmake and
#    prints the stripped size of strata-run-xnnpack.
# 3. Compiles every bundled model that has a test_data_set_0 on this host
#    (x86, $BUILD/bin/strata-compile) four ways (portable and XNNPACK, fp32
#    and int8) and runs each program under qemu-aarch64-static: fp32 against
#    the model's own reference output (PyTorch), int8 against the same
#    program's output on this host. strata-dump must print the same under
#    qemu as here (the program loads the same, byte for byte), a oneDNN
#    program must be refused with a message naming the backend, the ONNX
#    node tests' programs (portable and XNNPACK) must pass on aarch64 as
#    they pass through strata-run here, and the portable kernels' hot
#    loops must be NEON code (scripts/check-neon.sh).
# Exits non-zero when anything differs or fails.
#
#===----------------------------------------------------------------------===//
set -euo pipefail
shopt -s nullglob
root=$(cd "$(dirname "$0")/.." && pwd)
build=${BUILD_DIR:-$root/build}
cross=${BUILD_AARCH64:-$root/build-aarch64}
sysroot=$cross/sysroot

SUDO=""
if [ "$(id -u)" -ne 0 ]; then SUDO="sudo"; fi
export DEBIAN_FRONTEND=noninteractive

install() {
  local need=()
  if ! dpkg --print-foreign-architectures | grep -qx arm64; then
    $SUDO dpkg --add-architecture arm64
    $SUDO apt-get update -qq
  fi
  for pkg in crossbuild-essential-arm64 qemu-user-static \
             libflatbuffers-dev:arm64 libcpuinfo-dev:arm64; do
    dpkg-query -W -f='${Status}' "$pkg" 2>/dev/null |
      grep -q "install ok installed" || need+=("$pkg")
  done
  if [ ${#need[@]} -gt 0 ]; then
    echo "cross-aarch64: installing ${need[*]}"
    $SUDO apt-get update -qq
    $SUDO apt-get install -y -qq --no-install-recommends "${need[@]}"
  fi
  if [ ! -f "$sysroot/.unpacked" ]; then
    rm -rf "$sysroot" "$cross/debs"
    mkdir -p "$sysroot" "$cross/debs"
    $SUDO apt-get update -qq
    (cd "$cross/debs" && apt-get download -qq libxnnpack-dev:arm64 \
      libxnnpack0:arm64 libpthreadpool-dev:arm64 libpthreadpool0:arm64 \
      2>"$cross/debs/download.log") ||
      { cat "$cross/debs/download.log"; exit 1; }
    for deb in "$cross"/debs/*.deb; do dpkg-deb -x "$deb" "$sysroot"; done
    touch "$sysroot/.unpacked"
  fi
}

install
[ "${1:-}" = "--install-only" ] && exit 0

start=$(date +%s)
# The same compiler cache as scripts/build.sh, across fresh clones.
export CCACHE_BASEDIR=$root
export CCACHE_DIR=${CCACHE_DIR:-$HOME/.cache/strata-ccache}
export CCACHE_MAXSIZE=${CCACHE_MAXSIZE:-2G}
echo "== cross-building the aarch64 runtime into $cross"
if [ ! -f "$cross/build.ninja" ]; then
  cmake -G Ninja -S "$root" -B "$cross" \
    -DCMAKE_TOOLCHAIN_FILE="$root/cmake/aarch64-linux-gnu.cmake" \
    -DSTRATA_AARCH64_EXTRA_ROOT="$sysroot" -DCMAKE_BUILD_TYPE=Release \
    -DSTRATA_BUILD_COMPILER=OFF -DSTRATA_BUILD_TESTS=OFF \
    -DSTRATA_BUILD_BENCHMARKS=OFF -DSTRATA_BUILD_PYTHON=OFF \
    -DSTRATA_WITH_ONEDNN=OFF -DSTRATA_USE_LLD=OFF -DSTRATA_WERROR=ON >/dev/null
fi
cmake --build "$cross" --target strata-run strata-run-xnnpack strata-dump
aarch64-linux-gnu-strip -o "$cross/strata-run-xnnpack.stripped" \
  "$cross/bin/strata-run-xnnpack"
echo "cross-aarch64: built in $(( $(date +%s) - start )) s; stripped" \
  "strata-run-xnnpack $(stat -c %s "$cross/strata-run-xnnpack.stripped")" \
  "bytes, beside libXNNPACK.so.0 $(stat -L -c %s \
  "$sysroot/usr/lib/aarch64-linux-gnu/libXNNPACK.so.0") bytes"

# An aarch64 program under qemu, its shared libraries from the cross libc,
# the host's multiarch arm64 ones and the unpacked XNNPACK (set for the
# emulated program only: the host's own tools run beside it).
arm() {
  QEMU_LD_PREFIX=/usr/aarch64-linux-gnu \
    LD_LIBRARY_PATH=$sysroot/usr/lib/aarch64-linux-gnu:/usr/lib/aarch64-linux-gnu \
    qemu-aarch64-static "$@"
}

out=$cross/programs
rm -rf "$out"
mkdir -p "$out"
status=0
checked=0
fail() { echo "cross-aarch64: FAIL: $*"; status=1; }

for dir in "$root"/models/*/; do
  name=$(basename "$dir")
  data=$dir/test_data_set_0
  [ -f "$dir/model.onnx" ] && [ -d "$data" ] || continue
  for backend in portable xnnpack; do
    for precision in fp32 int8; do
      program=$out/$name-$backend-$precision.strata
      flags=(--no-progress)
      [ "$backend" = xnnpack ] && flags+=(--backend xnnpack)
      if [ "$precision" = int8 ]; then
        # Portable int8: the tensorrt backend's QDQ placement, run by the
        # portable kernels. Calibrated on the model's own images where it
        # has them, else on seeded random ones.
        [ "$backend" = portable ] && flags+=(--backend tensorrt)
        calibration=random-normal
        [ -f "$dir/calib_images.npy" ] && calibration=$dir/calib_images.npy
        flags+=(--quantize --calibration-data "$calibration")
      fi
      if ! "$build/bin/strata-compile" "$dir/model.onnx" -o "$program" \
          "${flags[@]}" >"$program.log" 2>&1; then
        fail "$name $backend $precision: compile"; tail -3 "$program.log"
        continue
      fi
      runner=strata-run
      [ "$backend" = xnnpack ] && runner=strata-run-xnnpack
      if [ "$precision" = fp32 ]; then
        # The model's own reference (PyTorch), strata-run's tolerances.
        arm "$cross/bin/$runner" "$program" --inputs "$data" --expect "$data" \
          >"$program.run" 2>&1 || { fail "$name $backend fp32"; tail -3 "$program.run"; }
      else
        # The same int8 program on this host: the same integer arithmetic,
        # float rescales that may round differently (fused multiply-adds).
        host=$out/$name-$backend-int8.host
        "$build/bin/$runner" "$program" --inputs "$data" --output-dir "$host" \
          >/dev/null 2>&1 || { fail "$name $backend int8 on the host"; continue; }
        arm "$cross/bin/$runner" "$program" --inputs "$data" --expect "$host" \
          --min-sqnr 40 >"$program.run" 2>&1 ||
          { fail "$name $backend int8"; tail -3 "$program.run"; }
      fi
      checked=$((checked + 1))
    done
  done
  # The same program, loaded here and there: the same dump.
  program=$out/$name-xnnpack-fp32.strata
  if [ -f "$program" ] && ! cmp -s <("$build/bin/strata-dump" "$program" 2>&1) \
      <(arm "$cross/bin/strata-dump" "$program" 2>&1); then
    fail "$name: strata-dump differs between x86 and aarch64"
  fi
done

# A program whose delegate this runtime lacks: refused at load, by name.
onednn=$out/digits_cnn-onednn.strata
if ! "$build/bin/strata-compile" "$root/models/digits_cnn/model.onnx" \
    -o "$onednn" --backend onednn --no-progress >"$onednn.log" 2>&1; then
  fail "digits_cnn: the oneDNN program did not compile"; tail -3 "$onednn.log"
elif arm "$cross/bin/strata-run" "$onednn" \
    --inputs "$root/models/digits_cnn/test_data_set_0" >"$onednn.run" 2>&1; then
  fail "a oneDNN program ran on the aarch64 runtime"
elif ! grep -q "needs backend 'onednn', which is not registered" "$onednn.run"; then
  fail "the oneDNN program's refusal does not name the backend"; cat "$onednn.run"
fi

# The ONNX node tests: each program that passes in the conformance run
# here (portable, and through XNNPACK) is run again by strata-run on both
# machines against the test's expected outputs, at the conformance run's
# tolerances; aarch64 must pass every one this host's strata-run passes
# (strata-run lacks the harness's bfloat16 and unread-input adaptations:
# those few fail on both).
node=/usr/share/libonnx-testdata/data/node
hostRun() { "$build/bin/strata-run" "$@"; }
armRun() { arm "$cross/bin/strata-run" "$@"; }
nodeCheck() { # hostRun|armRun PROGRAM -> exit status
  local runner=$1 program=$2 name data
  name=$(basename "$program" .strata)
  for data in "$node/$name"/test_data_set_*; do
    "$runner" "$program" --inputs "$data" --expect "$data" --atol 1e-7 \
      --rtol 1e-3 --rel-l2 1 >/dev/null 2>&1 || return 1
  done
}
for backend in portable xnnpack; do
  programs=$out/node-$backend
  mkdir -p "$programs"
  flags=()
  [ "$backend" = xnnpack ] && flags=(--backend xnnpack)
  "$build/bin/strata-onnx-conformance" "$node" "${flags[@]}" \
    --out-of-scope "$root/test/Import/out-of-scope.txt" \
    --programs-dir "$programs" >"$programs.log" 2>&1 || true
  total=0 hostPass=0 armPass=0
  for program in "$programs"/*.strata; do
    total=$((total + 1))
    nodeCheck hostRun "$program" || continue
    hostPass=$((hostPass + 1))
    if nodeCheck armRun "$program"; then
      armPass=$((armPass + 1))
    else
      fail "node test $(basename "$program" .strata) ($backend) on aarch64"
    fi
  done
  echo "cross-aarch64: node tests ($backend): $armPass of $total programs" \
    "match their references on aarch64 ($hostPass through strata-run here)"
  [ "$total" -ge 700 ] || fail "only $total node-test programs ($backend)"
done

"$root/scripts/check-neon.sh" "$cross" "$build" || status=1

echo "cross-aarch64: $checked programs checked under qemu-aarch64 in" \
  "$(( $(date +%s) - start )) s"
exit $status

#!/usr/bin/env bash
#===- check-neon.sh - are the portable kernels' hot loops vector code? ---===//
#
# Usage: scripts/check-neon.sh [AARCH64_BUILD] [X86_BUILD]
#
# Disassembles strata-run of both builds and counts, in each hot loop of
# the portable kernels, the vector arithmetic GCC emitted: 128-bit NEON
# (v registers, .4s/.2d/.8h/.16b lanes) on aarch64, AVX2 or AVX-512 (ymm,
# zmm) on x86-64 (the x86-64-v3 and v4 clones together where the kernel has
# clones). Prints one line per kernel and exits non-zero when a kernel has
# no NEON arithmetic on aarch64: a loop that did not vectorise there.
#
#===----------------------------------------------------------------------===//
set -euo pipefail
root=$(cd "$(dirname "$0")/.." && pwd)
arm=${1:-$root/build-aarch64}/bin/strata-run
x86=${2:-$root/build}/bin/strata-run

# Kernel (a substring of the demangled function names), what runs in it.
kernels=(
  "kernels::gemm(long|f32 GEMM (matmul, convolutions)"
  "kernels::tiledGemm(|register-tiled f32 GEMM"
  "weightQuantizedMatmul4(|int4 weights, f32 activations"
  "weightQuantizedMatmul8(|int8 weights, f32 activations"
  "weightQuantizedMatmulInt8(|int8 weights, int8 activations"
  "kernels::gemmInt16(|int8 matmul and convolution"
  "laneSum(|f32 sums (reduce_sum, mean, layer norm)"
  "row<(strata::runtime::kernels::(anonymous namespace)::BinaryOp)0>|f32 add"
  "softmaxOverAxis<false>|softmax"
)

arm_asm=$(mktemp)
x86_asm=$(mktemp)
trap 'rm -f "$arm_asm" "$x86_asm"' EXIT
aarch64-linux-gnu-objdump -d -C --no-show-raw-insn "$arm" >"$arm_asm"
objdump -d -C --no-show-raw-insn "$x86" >"$x86_asm"

# Vector arithmetic instructions in the functions whose names hold $2.
count() {
  awk -v want="$2" -v isa="$3" '
    /^[0-9a-f]+ </ { inside = index($0, want) > 0; next }
    inside && isa == "neon" &&
      /\tv[0-9]+\.(4s|2d|8h|16b)/ &&
      /(fml[as]|fmul|fadd|fsub|fmax|fmin|fdiv|scvtf|fcvt|mla|mul|add|sub|dot|sxtl|smlal|smull|umlal)/ { n++ }
    inside && isa == "x86" && /%[yz]mm/ &&
      /(vfmadd|vfmsub|vfnmadd|vmul|vadd|vsub|vmax|vmin|vdiv|vcvt|vpmadd|vpdp|vpadd|vpmull|vpmov)/ { n++ }
    END { print n + 0 }' "$1"
}

status=0
printf '%-60s %8s %8s\n' "kernel" "NEON" "AVX2/512"
for entry in "${kernels[@]}"; do
  pattern=${entry%%|*}
  what=${entry#*|}
  neon=$(count "$arm_asm" "$pattern" neon)
  avx=$(count "$x86_asm" "$pattern" x86)
  printf '%-60s %8d %8d\n' "$what" "$neon" "$avx"
  if [ "$neon" -eq 0 ]; then
    echo "check-neon: FAIL: $what ($pattern) has no NEON arithmetic on aarch64"
    status=1
  fi
done
exit $status

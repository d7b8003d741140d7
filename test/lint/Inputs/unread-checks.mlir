// RUN: strata-opt %s -o /dev/null

// CHECK: func @f
func.func @f() {
  return
}

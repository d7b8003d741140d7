// RUN: strata-opt %s | FileCheck %s

// CHECK-LABEL: func @f
// CHECK-NEXT func.return
func.func @f() {
  return
}

//===- strata-compile.cpp - ONNX model to .strata program -----------------===//
#include "strata/Compiler/CompileMain.h"

int main(int argc, char **argv) { return strata::strataCompileMain(argc, argv); }

//===- BadBackendPlugin.cpp - a shared library without the entry point ----===//
extern "C" int strataNotTheEntryPoint() { return 42; }

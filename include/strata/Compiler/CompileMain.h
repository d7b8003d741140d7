//===- CompileMain.h - strata-compile's command line ------------*- C++ -*-===//
#ifndef STRATA_COMPILER_COMPILEMAIN_H
#define STRATA_COMPILER_COMPILEMAIN_H

namespace strata {

/// Parses strata-compile's command line, compiles, verifies and reports.
/// Returns the process exit code.
int strataCompileMain(int argc, char **argv);

} // namespace strata

#endif // STRATA_COMPILER_COMPILEMAIN_H

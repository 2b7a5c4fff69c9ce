// Verilator runtime hooks (vl_hooks.cpp, compiled into trn_verilated): a failing SystemVerilog
// assertion (or any $error) is recorded instead of stopping the process, so the harness can end the
// test with a failure that names it, like a lockstep mismatch (VerilatedBench::eval).
#pragma once

#include <string>

namespace trn::tb::vl_hooks {

/// The first failure since the last take(): Verilator's message ("[t] %Error: file:line: Assertion
/// failed in TOP.x.label: ..."), and the source position of the failing statement.
struct Failure {
  std::string message;
  std::string file;
  int line = 0;
};

/// True once a failure is pending; take() returns it and clears it.
bool pending();
Failure take();

}  // namespace trn::tb::vl_hooks

/// The printf the Verilator runtime prints through (VL_PRINTF, see CMakeLists.txt).
void trn_vl_printf(const char* fmt, ...) __attribute__((format(printf, 1, 2)));
/// The runtime's $stop/$error hook (VL_USER_STOP_MAYBE: the runtime declares it no more).
void vl_stop_maybe(const char* filename, int linenum, const char* hier, bool maybe);

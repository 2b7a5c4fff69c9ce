// Verilator runtime hooks: see vl_hooks.hpp. Built with the Verilator runtime (trn_verilated),
// which is compiled with VL_USER_STOP_MAYBE (this vl_stop_maybe replaces the runtime's, which ends
// the process on the first $error) and VL_PRINTF=trn_vl_printf (every message the runtime prints
// passes here, so an assertion's text is kept for the failure report).
#include "harness/vl_hooks.hpp"

#include <verilated.h>

#include <cstdarg>
#include <cstdio>
#include <cstring>

namespace {
trn::tb::vl_hooks::Failure g_failure;
bool g_pending = false;
std::string g_last_error;  // the last %Error line printed (an assertion's message precedes its stop)
}  // namespace

void trn_vl_printf(const char* fmt, ...) {
  char buf[4096];
  va_list ap;
  va_start(ap, fmt);
  std::vsnprintf(buf, sizeof buf, fmt, ap);
  va_end(ap);
  std::fputs(buf, stdout);
  if (std::strstr(buf, "%Error")) g_last_error = buf;
}

void vl_stop_maybe(const char* filename, int linenum, const char* /*hier*/, bool /*maybe*/) {
  Verilated::threadContextp()->errorCountInc();
  if (g_pending) return;  // the first failure is the one reported
  g_pending = true;
  g_failure.message = g_last_error;
  while (!g_failure.message.empty() && (g_failure.message.back() == '\n' || g_failure.message.back() == '\r'))
    g_failure.message.pop_back();
  g_failure.file = filename ? filename : "";
  g_failure.line = linenum;
}

namespace trn::tb::vl_hooks {

bool pending() { return g_pending; }

Failure take() {
  Failure f = g_failure;
  g_pending = false;
  g_failure = {};
  g_last_error.clear();
  return f;
}

}  // namespace trn::tb::vl_hooks

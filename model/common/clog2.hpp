// clog2 with SystemVerilog's $clog2 semantics: the bits needed to count 0 .. n-1 ($clog2(1) = 0).
#pragma once

namespace trn {

constexpr unsigned clog2(unsigned long long n) {
  unsigned r = 0;
  while ((1ull << r) < n) ++r;
  return r;
}

}  // namespace trn

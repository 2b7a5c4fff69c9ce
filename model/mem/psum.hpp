// trn::mem::Psum — the PSUM storage of rtl/mem/psum.sv: banks x partitions x depth FP32 words
// (SPEC 5.2). Read combinationally, written at the clock edge, cleared by reset.
#pragma once

#include <cstdint>
#include <vector>

namespace trn::mem {

class Psum {
 public:
  Psum(unsigned banks, unsigned parts, unsigned depth)
      : banks_(banks), parts_(parts), depth_(depth), mem_(static_cast<std::size_t>(banks) * parts * depth, 0) {}
  unsigned banks() const { return banks_; }
  unsigned parts() const { return parts_; }
  unsigned depth() const { return depth_; }
  std::uint32_t read(unsigned bank, unsigned part, unsigned off) const { return mem_[at(bank, part, off)]; }
  void write(unsigned bank, unsigned part, unsigned off, std::uint32_t v) { mem_[at(bank, part, off)] = v; }
  void clear() { std::fill(mem_.begin(), mem_.end(), 0); }

 private:
  std::size_t at(unsigned bank, unsigned part, unsigned off) const {
    return (static_cast<std::size_t>(bank) * parts_ + part) * depth_ + off;
  }
  unsigned banks_, parts_, depth_;
  std::vector<std::uint32_t> mem_;
};

}  // namespace trn::mem

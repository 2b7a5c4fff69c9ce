// trn::tb::ModelWaves — signals the harness adds to a run's FST beside the DUT's: the model's
// outputs as the lockstep expected them (TOP.model.<port>), the DUT's outputs as the lockstep
// sampled them at the same edge (TOP.sampled.<port>), and TOP.mismatch, which rises at the edge of
// the first difference. A lockstep declares its signals when it is built; the FST is opened at the
// run's first dump, so everything declared before time moves is in the file. Values change at the
// rising edge that ends the cycle they describe (the lockstep compares there): model.<port> and
// sampled.<port> line up with each other, one cycle after the DUT's live port shows the same value.
#pragma once

#include <algorithm>
#include <cstdint>
#include <string>
#include <vector>

#include "common/bits.hpp"

namespace trn::tb {

class ModelWaves {
 public:
  struct Sig {
    std::string scope;  ///< "" for a signal directly under TOP
    std::string name;
    unsigned width;
    Bits value;
  };
  static ModelWaves& get();

  /// Is this run writing waves? (Set by the bench's main before any test.)
  bool enabled() const { return enabled_; }
  void enable(bool on) { enabled_ = on; }
  /// Declare scope.name of `width` bits (again: the same handle). After the FST is open a new
  /// signal cannot be added: -1, and writes to it are dropped.
  int declare(const std::string& scope, const std::string& name, unsigned width);
  void set(int id, const Bits& v) {
    if (id >= 0) sigs_[static_cast<std::size_t>(id)].value = v;
  }
  void set(int id, std::uint64_t v) {
    if (id < 0) return;
    Sig& s = sigs_[static_cast<std::size_t>(id)];
    s.value.set_slice(0, std::min(64u, s.width), v);
  }
  const std::vector<Sig>& all() const { return sigs_; }
  /// The FST is open: the set of signals is fixed.
  void freeze() { frozen_ = true; }
  /// Forget every signal (a new run in the same process, as in the harness's unit tests).
  void reset() {
    sigs_.clear();
    frozen_ = false;
  }

 private:
  std::vector<Sig> sigs_;
  bool enabled_ = false;
  bool frozen_ = false;
};

}  // namespace trn::tb

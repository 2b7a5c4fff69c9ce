// trn::common::StreamFifo — cycle-exact model of rtl/common/stream_fifo.sv.
//
// Same state as the RTL (mem_q, rptr_q, wptr_q, count_q) and the same split: eval() gives this
// cycle's outputs from the state and this cycle's inputs, tick() is the clock edge. Reset is
// asynchronous and active low as in the RTL: while rst_ni is low the outputs are those of the
// reset state, and an edge with rst_ni low leaves the reset state.
#pragma once

#include <cstdint>
#include <vector>

#include "common/bits.hpp"
#include "common/ports.hpp"
#include "sv/ports/stream_fifo.hpp"

namespace trn::common {

class StreamFifo {
 public:
  struct Params {
    unsigned width = 16;  ///< payload bits
    unsigned depth = 4;   ///< entries
  };
  struct In {
    bool rst_ni = false;
    bool push_valid_i = false;
    Bits push_data_i;
    bool pop_ready_i = false;
  };
  struct Out {
    bool push_ready_o = false;
    bool pop_valid_o = false;
    Bits pop_data_o;
    std::uint64_t usage_o = 0;
  };

  explicit StreamFifo(Params p);

  const Params& params() const { return p_; }
  In make_in() const { return In{false, false, Bits(p_.width), false}; }
  Out make_out() const { return Out{false, false, Bits(p_.width), 0}; }

  /// Outputs of this cycle (all registered: the inputs only matter through rst_ni).
  void eval(const In& in, Out& out) const;
  /// The rising clock edge with this cycle's inputs.
  void tick(const In& in);

  unsigned usage() const { return count_q_; }

  /// The ports of rtl/common/stream_fifo.sv, generated from its header; the module's parameters from this model's.
  sv::ports::stream_fifo::Params sv_params() const { return {.Width = p_.width, .Depth = p_.depth}; }
  TRN_MODULE_PORTS(stream_fifo)
  unsigned usage_width() const;

 private:
  void reset();
  Params p_;
  std::vector<Bits> mem_q_;
  unsigned rptr_q_ = 0, wptr_q_ = 0, count_q_ = 0;
};

}  // namespace trn::common

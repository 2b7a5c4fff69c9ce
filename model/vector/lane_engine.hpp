// trn::vector::LaneEngine — cycle-exact model of rtl/vector/lane_engine.sv, the vector engine
// (Engine::vector) and the scalar (activation) engine (Engine::scalar) of SPEC 5.3: Lanes FP32
// lanes, one per partition, streaming tensors through two read ports and one write port.
//
// Timing contract (docs/vector.md):
//   - cmd_ready_o is high while idle; an accepted instruction is checked at once. An illegal one
//     raises cpl_o.err (code, tag) in the next cycle and nothing else happens; set_seed raises cpl_o.done.
//   - Prologue: a tensor_scalar or activate with per-partition operands reads them on port 1, one
//     read each (s0 then s1), and starts the stream when both have arrived.
//   - Stream: port p issues one read per cycle along its access pattern while (reads in flight +
//     FIFO entries) < FifoDepth; responses enter a FIFO (no fall-through). A step consumes the
//     FIFO heads (both for tensor_tensor) and, when it produces an element, needs the output
//     register free (empty, or written in this cycle). Every produced element goes through the
//     output register to the write port (wr_valid_o until wr_ready_i).
//   - Reduce produces at the last element of each dim-0 row; transpose loads G columns into its
//     buffer, then writes G columns (G = min(32, Lanes)).
//   - Done: the cycle after the last write has been accepted (done_o for one cycle, with the tag);
//     the next instruction is accepted in the same cycle as done_o.
#pragma once

#include <array>
#include <cstdint>
#include <deque>
#include <vector>

#include "common/bits.hpp"
#include "common/ports.hpp"
#include "sv/le_pkg.hpp"
#include "sv/ports/lane_engine.hpp"
#include "sv/sbuf_pkg.hpp"
#include "vector/instr.hpp"

namespace trn::vector {

class LaneEngine {
 public:
  struct Params {
    Engine engine = Engine::vector;
    unsigned lanes = 4;
    std::uint32_t sbuf_bytes = 1024;  ///< SBUF bytes per partition
    std::uint32_t psum_bytes = 512;   ///< PSUM bytes per partition (banks x bank bytes)
    unsigned fifo_depth = 8;          ///< read FIFO entries per port (credits for reads in flight)
  };
  using instr_t = sv::le_pkg::instr_t;    ///< the command port's type (rtl/vector/le_pkg.sv)
  using e_req_t = sv::sbuf_pkg::e_req_t;  ///< the memory ports' requests (rtl/mem/sbuf_pkg.sv)
  using le_cpl_t = sv::le_pkg::le_cpl_t;  ///< the completion port (rtl/vector/le_pkg.sv)
  struct In {
    bool rst_ni = false;
    bool cmd_valid_i = false;
    instr_t cmd_i;  ///< rtl/vector/le_pkg.sv
    bool rd0_req_ready_i = false, rd0_rsp_valid_i = false;
    Bits rd0_rsp_data_i;
    bool rd1_req_ready_i = false, rd1_rsp_valid_i = false;
    Bits rd1_rsp_data_i;
    bool wr_ready_i = false;

    bool operator==(const In&) const = default;  ///< (the core model's wiring settles on it)
  };
  struct Out {
    bool cmd_ready_o = false;
    bool rd0_req_valid_o = false;
    e_req_t rd0_req_o;
    bool rd1_req_valid_o = false;
    e_req_t rd1_req_o;
    bool wr_valid_o = false;
    e_req_t wr_o;
    Bits wr_mask_o;
    Bits wr_data_o;
    le_cpl_t cpl_o;  ///< done and refused instructions, with their tags (rtl/vector/le_pkg.sv)
    Bits acc_o;
    bool busy_o = false;
  };

  explicit LaneEngine(Params p);
  const Params& params() const { return p_; }
  Shape shape() const { return shape_of(p_); }
  /// The shape of an engine with these parameters (for references built without an engine).
  static Shape shape_of(const Params& p) { return Shape{p.engine, p.lanes, p.sbuf_bytes, p.psum_bytes}; }
  In make_in() const;
  Out make_out() const;
  void eval(const In& in, Out& out) const;
  void tick(const In& in);

  /// An instruction from / to its typed port (cmd_i).
  static Instr decode(const instr_t& c);
  static instr_t encode(const Instr& ins);

  /// The ports of rtl/vector/lane_engine.sv, generated from its header; the module's parameters from this model's.
  sv::ports::lane_engine::Params sv_params() const {
    return {.Lanes = p_.lanes,
            .SbufBytes = p_.sbuf_bytes,
            .Engine = static_cast<long long>(p_.engine),
            .FifoDepth = p_.fifo_depth};
  }
  TRN_MODULE_PORTS(lane_engine)

 private:
  enum class St : std::uint8_t { idle, prologue, run };
  using Idx = std::array<std::uint32_t, kDims>;

  void reset();
  bool req_valid(unsigned port) const;
  e_req_t req(unsigned port) const;
  bool active(unsigned lane) const { return lane >= ins_.ps && lane < ins_.ps + ins_.pc; }
  /// Advance a 4-D index over `size` (dim 0 fastest); true when it wraps to all zeros.
  static bool advance(Idx& idx, const Idx& size);
  /// The request for element idx of a pattern of type dtype from byte address base.
  static e_req_t elem_req(bool space, bool we, std::uint32_t base, unsigned dtype, const Idx& idx, const Idx& stride);
  static std::uint32_t offset(const Idx& idx, const Idx& stride);
  /// One consumption step of the stream (the output stage included); out_free: the output register
  /// can take a result this cycle.
  void step(bool out_free);

  Params p_;
  St st_ = St::idle;
  Instr ins_;
  bool int_dom_ = false;
  // read ports
  std::array<Idx, 2> idx_{};
  std::array<bool, 2> iss_done_{};
  std::array<unsigned, 2> outst_{};
  std::array<std::deque<Bits>, 2> fifo_;
  unsigned pro_iss_ = 0, pro_rcv_ = 0;
  std::vector<std::uint32_t> s0_, s1_;
  // stream
  Idx cidx_{}, oidx_{};
  bool c_done_ = false;
  bool tph_ = false;  ///< transpose: writing the buffer out
  unsigned tcnt_ = 0;
  std::vector<std::uint32_t> red_;
  std::vector<std::vector<std::uint32_t>> tbuf_;  ///< [column][lane]
  // output register and status
  bool wv_ = false;
  e_req_t wreq_;
  Bits wmask_, wdata_;
  bool sc_ = false;  ///< quantize_mx: the scale write follows the codes' write
  e_req_t sc_req_;
  Bits sc_mask_, sc_data_;
  std::vector<std::uint32_t> acc_, rng_;
  bool done_ = false, err_ = false;
  std::uint64_t done_tag_ = 0, err_tag_ = 0, err_code_ = 0;
};

}  // namespace trn::vector

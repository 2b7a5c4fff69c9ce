// trn::system::ChipTorus — cycle-exact model of rtl/system/chip_torus.sv: N = kx x ky x kz
// trn::chip::Chip instances (g_chip[c]) on a torus, chip c = (z * ky + y) * kx + x with id c, link
// port k of each (+x, -x, +y, -y, +z, -z) wired to the opposite port of the neighbour that way.
// Each directed link l = c * LP + k passes a wire {crc, seq, {vc, flit}} that flip_i corrupts at
// bit flip_bit_i; acknowledgements and credits travel back beside it. Everything else is the chips'
// own ports, element c of each array.
// Evaluation: every chip, then each one's link inputs from its neighbours' outputs (every link
// output of a chip is a register), again until no chip's inputs change.
// Wires (the model's, for systems larger than the RTL's tops): the links of each torus dimension may
// take `latency` cycles and carry `rate` flits a cycle (a slower link class serialises its flits,
// which queue on the wire within the receiver's credits); acknowledgements and credits travel back
// with the same latency. The RTL top's wires are latency 0 and rate 1, the default.
#pragma once

#include <array>
#include <cstdint>
#include <functional>
#include <memory>
#include <optional>
#include <vector>

#include "chip/chip.hpp"
#include "common/bits.hpp"
#include "common/ports.hpp"
#include "common/workers.hpp"
#include "link/router.hpp"
#include "link/wire.hpp"
#include "sv/ports/chip_torus.hpp"
#include "system/chip_ports.hpp"

namespace trn::system {

class ChipTorus {
 public:
  struct Params {
    chip::Chip::Params chip;  ///< every chip's (chips = kx * ky * kz, its torus the system's)
    struct Wire {
      unsigned latency = 0;  ///< cycles (0: the RTL's wire, nothing between the ports)
      double rate = 1.0;     ///< flits a cycle, in (0, 1]
      bool delayed() const { return latency > 0 || rate < 1.0; }
    };
    std::array<Wire, 3> wire{};  ///< per dimension (x, y, z): link ports 2d and 2d + 1
    unsigned threads = 1;        ///< model speed only: threads evaluating the chips (common::Workers)
    /// A torus of kx x ky x kz chips of configuration a, each with `cores` NeuronCores.
    static Params of(const cfg::Arch& a, unsigned cores, unsigned kx, unsigned ky, unsigned kz = 1);
    unsigned chips() const { return chip.kx * chip.ky * chip.kz; }
  };
  using In = ChipPorts::In;  ///< bad_dst_o: chip c's router's drops at element c
  using Out = ChipPorts::Out;

  explicit ChipTorus(Params p);
  const Params& params() const { return p_; }
  In make_in() const;
  Out make_out() const;
  void eval(const In& in, Out& out) const;
  void tick(const In& in);

  /// The ports of rtl/system/chip_torus.sv, generated from its header.
  sv::ports::chip_torus::Params sv_params() const;
  TRN_MODULE_PORTS(chip_torus)

  unsigned chips() const { return n_; }
  const chip::Chip& chip(unsigned c) const { return chips_.at(c); }
  /// chip::Chip::write_imem on chip c (the system's outputs are evaluated again).
  void write_imem(unsigned c, unsigned u, unsigned s, std::uint32_t addr, const Bits& word) {
    chips_.at(c).write_imem(u, s, addr, word);
    evaluated_ = false;
  }
  const chip::Chip::In& chip_in(unsigned c) const { return ci_.at(c); }
  const chip::Chip::Out& chip_out(unsigned c) const { return co_.at(c); }
  /// The chip across chip c's link port k, and the port there that faces back.
  unsigned neighbour(unsigned c, unsigned k) const;
  static unsigned back(unsigned k) { return link::torus_back(k + 1) - 1; }
  /// Bits of a link's wire {crc, seq, vc, flit} and of a flip_bit_i index.
  unsigned wire_bits() const { return 16 + chips_[0].sb() + chips_[0].lw(); }
  unsigned fb() const { return fb_; }
  unsigned link_ports() const { return p_.chip.link_ports(); }
  unsigned links() const { return n_ * link_ports(); }

  /// Windows (model speed only): the cycles every chip may run alone, one less than the shortest
  /// of its links' wire latencies (what a chip sends reaches no other chip sooner); 0 where a link
  /// has no wire (the RTL tops', whose chips meet every cycle).
  unsigned lookahead() const;
  /// Hooks of a window's cycle i of chip c: own() sets the chip's own inputs (its HBM's answers)
  /// after the system's; seen() takes its evaluated outputs; edge() follows its clock edge.
  struct Hooks {
    std::function<void(unsigned c, unsigned i, chip::Chip::In&)> own;
    std::function<void(unsigned c, unsigned i, const chip::Chip::Out&)> seen;
    std::function<void(unsigned c, unsigned i)> edge;
  };
  /// `cycles` cycles (1 to lookahead()) of every chip alone, the chips shared out over the team:
  /// each cycle of chip c is what eval() and tick() make of it, its links' inputs from its wires,
  /// its own from `in` (held for the window, no bit errors) and the hooks. The same run as as
  /// many cycles of eval() and tick() (collectives/cycle_level_windows_change_nothing); the system's
  /// outputs are those of an eval() after it.
  void run_window(unsigned cycles, const In& in, const Hooks& h);

 private:
  /// chip c's inputs from the system's and its neighbours' outputs; true if they changed.
  bool wire(const In& in, unsigned c) const;
  bool delayed(unsigned port) const { return p_.wire[port / 2].delayed(); }
  void move_wires();
  /// What a chip's port q answers on the wire it receives from (acknowledgements, credits).
  link::Wire::Back answers(const chip::Chip::Out& o, unsigned q) const;
  /// Those answers, off the wire, into a chip's port q (answers() the other way).
  void take_answers(chip::Chip::In& k, unsigned q, const link::Wire::Back& sd) const;
  /// per directed link l = c * LP + k (sender c, its port k): its wire when it is delayed
  std::vector<std::optional<link::Wire>> lines_;
  // the inputs of the last eval since the last edge (tick() then needs no other)
  mutable In last_in_;
  mutable bool evaluated_ = false;
  std::uint64_t now_ = 0;
  Params p_;
  unsigned n_, fb_;
  std::vector<chip::Chip> chips_;
  mutable std::vector<chip::Chip::In> ci_;
  mutable std::vector<chip::Chip::Out> co_;
  mutable std::vector<std::uint8_t> dirty_;  // one byte a chip: the chips are wired by several threads
  std::unique_ptr<common::Workers> team_;
};

}  // namespace trn::system

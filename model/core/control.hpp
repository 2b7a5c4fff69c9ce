// trn::core::Control — cycle-exact model of rtl/core/core_ctl.sv, the NeuronCore's control
// (docs/isa.md): five instruction streams (tensor, vector, scalar, sync, gpsimd), each with its instruction
// memory, a two-entry instruction queue (common::StreamFifo, as the RTL's stream_fifo), decode and
// in-order issue; 16 registers per stream with branches and loops; 32 hardware semaphores with every addition of a
// cycle counted; 16 tags per engine holding each issued instruction's pc and post until its unit reports it done, and
// one slot for the gpsimd stream's operator; the first error kept with its code, detail, stream and pc; a deadlock
// detector.
//
// Its ports face the core datapath (trn::core::Core): the engines' command ports and done/err
// reports, the GpSimd engine's start, status and semaphore additions, the DMA's descriptor port and
// queue idle flags, and the DMA's completion writes that
// the NeuronCore turns into semaphore additions (trn::core::NeuronCore).
#pragma once

#include <array>
#include <cstdint>
#include <vector>

#include "common/bits.hpp"
#include "common/ports.hpp"
#include "common/stream_fifo.hpp"
#include "dma/desc.hpp"
#include "isa/isa.hpp"
#include "isa_table.hpp"
#include "sv/dma_pkg.hpp"
#include "sv/gpsimd_pkg.hpp"
#include "sv/isa_pkg.hpp"
#include "sv/le_pkg.hpp"
#include "sv/ports/core_ctl.hpp"
#include "sv/te_pkg.hpp"
#include "vector/instr.hpp"

namespace trn::core {

class Control {
 public:
  static constexpr unsigned kStreams = isa::tbl::kStreams, kSems = 32, kTags = 16, kQueueDepth = 2, kPcBits = 16;
  enum Stream : unsigned { tensor = 0, vector = 1, scalar = 2, sync = 3, gpsimd = 4 };
  static_assert(kStreams == 5, "the streams of rtl/core/isa.toml");
  /// Stream states of the status (docs/isa.md): StIdle, StRun, StWait, StBusy, StEnd, StHalt.
  using State = sv::isa_pkg::ctl_state_e;
  /// One stream's status (st_o[s]): state, pc, and the semaphore and value its head waits for.
  using StreamStatus = sv::isa_pkg::stream_status_t;

  struct Params {
    unsigned parts = 4;
    std::uint32_t sbuf_bytes = 1024;  ///< per partition
    std::uint32_t psum_bytes = 512;   ///< per partition: banks x bank bytes
    unsigned queues = 2;
    std::uint32_t hbm_bytes = 65536;
    unsigned imem_depth = 256;
    std::uint32_t dma_max_len = 65536;
    unsigned dma_engines = 1;    ///< DMA engines, each with `queues` queues
    unsigned chips = 1;          ///< chips a descriptor may name (docs/chip.md)
    int dma_parts = -1;          ///< SBUF partitions the DMA reaches (-1: parts; 0: none, a collective core)
    unsigned streams_on = 0x1F;  ///< the streams built, a bit each (a collective core: the sync stream)
    unsigned gp_procs = 1;       ///< GpSimd processors whose sem.add come in (gp_sem_*)
    unsigned nq() const { return dma_engines * queues; }
  };
  using te_cmd_t = sv::te_pkg::te_cmd_t;
  using instr_t = sv::le_pkg::instr_t;
  using desc_t = sv::dma_pkg::desc_t;
  using te_cpl_t = sv::te_pkg::te_cpl_t;
  using le_cpl_t = sv::le_pkg::le_cpl_t;

  struct In {
    bool rst_ni = false;
    bool start_i = false;
    // instruction memories (before start)
    bool im_valid_i = false;
    unsigned im_stream_i = 0;
    std::uint32_t im_addr_i = 0;
    Bits im_data_i;
    // the engines
    bool te_cmd_ready_i = false;
    te_cpl_t te_cpl_i;
    bool ve_cmd_ready_i = false;
    le_cpl_t ve_cpl_i;
    bool se_cmd_ready_i = false;
    le_cpl_t se_cpl_i;
    // the DMA
    bool dma_desc_ready_i = false;
    Bits dma_q_idle_i;             ///< engine e's queue q at bit e * queues + q
    bool sem_add_valid_i = false;  ///< a descriptor's completion write: add sem_add_val_i to sem_add_idx_i
    unsigned sem_add_idx_i = 0;
    std::uint32_t sem_add_val_i = 0;
    bool sem_add_reg_i = false;     ///< ... or a register load's word: to register sem_add_idx_i % 16
    unsigned sem_add_stream_i = 0;  ///< ... of this stream
    // the GpSimd engine
    bool gp_ready_i = false;  ///< not busy: a start is taken
    bool gp_done_i = false, gp_err_i = false;
    sv::gpsimd_pkg::gp_err_e gp_code_i{};
    std::uint64_t gp_sem_add_i = 0;   ///< bit i: processor i's sem.add ...
    Bits gp_sem_idx_i, gp_sem_val_i;  ///< ... to semaphore [5 i +: 5], of [32 i +: 32]
    // semaphore additions from outside the unit (another unit's, another chip's)
    bool sem_ext_en_i = false;  ///< they may come: a wait with nothing in flight is no deadlock
    bool sem_ext_valid_i = false;
    unsigned sem_ext_idx_i = 0;
    std::uint32_t sem_ext_val_i = 0;
    bool operator==(const In&) const = default;
  };
  struct Out {
    bool te_cmd_valid_o = false;
    te_cmd_t te_cmd_o;
    bool ve_cmd_valid_o = false;
    instr_t ve_cmd_o;
    bool se_cmd_valid_o = false;
    instr_t se_cmd_o;
    bool gp_start_o = false;
    std::uint32_t gp_entry_o = 0, gp_args_o = 0;
    bool dma_desc_valid_o = false;
    unsigned dma_desc_engine_o = 0, dma_desc_queue_o = 0;
    desc_t dma_desc_o;
    bool running_o = false, done_o = false, err_o = false;
    unsigned err_code_o = 0, err_detail_o = 0, err_stream_o = 0;
    std::uint32_t err_pc_o = 0;
    std::array<StreamStatus, kStreams> st_o{};
    std::array<std::uint32_t, kSems> sem_o{};
    // observation (for traces and figures; not RTL ports)
    std::array<bool, kStreams> issue{};  ///< the stream's head issues this cycle
    std::array<std::uint32_t, kStreams> issue_pc{};
    std::array<unsigned, kStreams> issue_tag{};
  };

  explicit Control(Params p);
  const Params& params() const { return p_; }
  In make_in() const;
  Out make_out() const { return Out{}; }
  void eval(const In& in, Out& out) const;
  /// The edge; false if it moved no register (a model-only answer, for skipping waiting units:
  /// the outputs of the last eval on the same input hold).
  bool tick(const In& in);
  /// Word `addr` of stream s's instruction memory, as an instruction write (im_*) leaves it, at
  /// once: a program loaded without its cycles (a harness's backdoor, for a control that is not
  /// running; the memories are not part of the state an edge moves otherwise).
  void write_imem(unsigned s, std::uint32_t addr, const Bits& word);
  /// The last eval()'s decision (on the current state) fetches, issues, adds to a semaphore, fails
  /// and finishes nothing: a tick on the same inputs, without an instruction write, a start or an
  /// engine's completion, changes no state (a model-only query, for skipping waiting units; tick()
  /// answers the same of its own edge).
  bool quiet() const;

  /// The wiring every unit built around a control shares (core::NeuronCore, chip::CcCore): the
  /// top's program, start and semaphore-addition inputs go to the control, and the control's
  /// status comes out on the top's ports of the same names.
  template <class TopIn>
  static void from_top(In& c, const TopIn& in) {
    c.rst_ni = in.rst_ni;
    c.start_i = in.start_i;
    c.im_valid_i = in.im_valid_i, c.im_stream_i = in.im_stream_i, c.im_addr_i = in.im_addr_i;
    c.im_data_i = in.im_data_i;
    c.sem_ext_en_i = in.sem_ext_en_i;
    c.sem_ext_valid_i = in.sem_add_valid_i, c.sem_ext_idx_i = in.sem_add_idx_i, c.sem_ext_val_i = in.sem_add_val_i;
  }
  template <class TopOut>
  static void to_top(const Out& co, TopOut& out) {
    out.running_o = co.running_o, out.done_o = co.done_o, out.err_o = co.err_o;
    out.err_code_o = co.err_code_o, out.err_detail_o = co.err_detail_o, out.err_stream_o = co.err_stream_o;
    out.err_pc_o = co.err_pc_o;
    out.st_o = co.st_o;
    out.sem_o = co.sem_o;
  }

  /// The unit commands of an instruction word (docs/isa.md, "The instruction format").
  static te_cmd_t te_cmd(const Bits& w, unsigned tag);
  static instr_t lane_cmd(const Bits& w, unsigned tag);
  static desc_t dma_desc(const Bits& w);
  /// reg_load's descriptor: 4 bytes from its source to register rd of stream s.
  static desc_t reg_desc(const Bits& w, unsigned s);

  /// The ports of rtl/core/core_ctl.sv, generated from its header; the module's parameters from this model's.
  sv::ports::core_ctl::Params sv_params() const {
    return {.Parts = p_.parts,
            .SbufBytes = p_.sbuf_bytes,
            .Queues = p_.queues,
            .HbmBytes = p_.hbm_bytes,
            .ImemDepth = p_.imem_depth,
            .DmaMaxLen = p_.dma_max_len,
            .DmaEngines = p_.dma_engines,
            .Chips = p_.chips,
            .DmaParts = p_.dma_parts < 0 ? p_.parts : static_cast<unsigned>(p_.dma_parts),
            .StreamsOn = p_.streams_on,
            .GpProcs = p_.gp_procs};
  }
  TRN_MODULE_PORTS(core_ctl)

 private:
  struct Slot {
    bool busy = false;
    std::uint32_t pc = 0;
    bool post_en = false;
    unsigned post_sem = 0, post_val = 0;
  };
  struct Head {
    bool valid = false;
    std::uint32_t pc = 0;
    Bits word;
  };
  struct Decoded;
  /// What the control decides this cycle (eval's work, shared with tick).
  struct Step {
    std::array<Head, kStreams> head;
    std::array<bool, kStreams> fetch{}, issue{}, valid{}, wait_ok{};
    std::array<bool, kStreams> pop{};       ///< the head leaves the queue: issued, or stale and dropped
    std::array<bool, kStreams> redirect{};  ///< a taken branch or loop issues
    std::array<bool, kStreams> stale{};     ///< ... with a word behind it in the queue
    std::array<bool, kStreams> reg_we{};    ///< the issuing instruction writes register rd
    std::array<std::uint32_t, kStreams> reg_wv{};
    bool reg_in = false;                         ///< a register load's word comes in
    std::array<const Decoded*, kStreams> dec{};  ///< each stream's head word, decoded
    bool err_now = false;
    unsigned err_code = 0, err_detail = 0, err_stream = 0;
    std::uint32_t err_pc = 0;
    std::array<std::uint64_t, kSems> add{};
    bool any_add = false;
    bool done = false;
  };
  void decide(const In& in, Step& st, Out* out) const;
  /// A Step for decide(): every field cleared but the head words, whose storage is reused (the
  /// model's per-cycle allocations), as are the queues' port structs.
  Step& fresh_step() const;
  mutable Step step_;
  mutable std::array<common::StreamFifo::In, kStreams> qi_;
  mutable std::array<common::StreamFifo::Out, kStreams> qo_;
  mutable bool q_ports_ = false;
  /// An instruction write (im_* or write_imem): a stream that is off, or an address past the
  /// memory, writes nothing.
  void put_imem(unsigned s, std::uint32_t addr, const Bits& word);
  // the step of the last eval() and its input: a tick() on the same input (since no edge) reuses it
  mutable In step_in_;
  mutable bool step_fresh_ = false;
  std::array<common::StreamFifo::In, kStreams> tq_;  // the queues' inputs at the edge
  bool tq_made_ = false;
  unsigned unit_check(unsigned s, const Bits& w, unsigned& detail) const;
  /// What decide() reads from a stream's head word (the decode check: illegal, then unit_check;
  /// the wait key; the op; the command it would issue with `tag`) is a function of the word, the
  /// tag and the constant parameters: remembered per stream for the last word and tag.
  /// The control's own operations (the registers and control flow).
  enum class Ctl : std::uint8_t { none, reg_set, reg_add, reg_mul, branch, loop };
  struct Decoded {
    Bits word;
    unsigned tag = ~0u;
    bool illegal = false;
    unsigned code = 0, detail = 0;
    Ctl ctl = Ctl::none;
    unsigned rd = 0, ra = 0, rb = 0, cond = 0;
    bool rl = false;         ///< reg_load
    std::uint16_t regs = 0;  ///< the registers it names (isa::regs_named)
    std::uint32_t imm0 = 0, target = 0;
    bool wait_en = false;
    unsigned wait_sem = 0;
    std::uint64_t wait_val = 0;
    const isa::table::Op* op = nullptr;
    te_cmd_t te;
    instr_t lane;
    std::uint32_t gp_entry = 0, gp_args = 0;
    desc_t desc;
    unsigned engine = 0, queue = 0;
  };
  const Decoded& decoded(unsigned s, const Bits& word, unsigned tag) const;
  mutable std::array<Decoded, kStreams> decoded_;
  mutable std::array<Bits, kStreams> eff_;  // the heads as they issue (isa::substitute), when they name a register
  void reset();

  Params p_;
  std::array<std::vector<Bits>, kStreams> imem_;
  std::array<common::StreamFifo, kStreams> q_;
  std::array<std::uint32_t, kStreams> pc_q_{};
  std::array<bool, kStreams> fetched_end_q_{}, ended_q_{};
  std::array<std::array<Slot, kTags>, 3> slot_q_{};  ///< tensor, vector, scalar
  Slot gp_slot_q_;                                   ///< the gpsimd stream's operator in flight
  std::array<unsigned, 3> tag_q_{};
  std::array<std::uint32_t, kSems> sem_q_{};
  std::array<isa::Regs, kStreams> reg_q_{};
  std::array<std::uint16_t, kStreams> pend_q_{};  ///< registers a reg_load has yet to write
  std::array<bool, kStreams> stale_q_{};          ///< the queue's head was fetched behind a taken branch
  bool running_q_ = false, err_q_ = false;
  unsigned err_code_q_ = 0, err_detail_q_ = 0, err_stream_q_ = 0;
  std::uint32_t err_pc_q_ = 0;
  vector::Shape vshape_, sshape_;
  dma::Geometry geo_;
};

}  // namespace trn::core

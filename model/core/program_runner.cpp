#include "core/program_runner.hpp"

#include <fmt/format.h>

#include <stdexcept>

#include "core/runner.hpp"
#include "dma/desc.hpp"
#include "vector/ops.hpp"

namespace trn::core {

namespace {
namespace tbl = isa::tbl;

const char* const kStateNames[] = {"idle", "run", "wait", "busy", "end", "halt"};
const char* const kTeErr[] = {"none", "shape", "range", "type", "no weights", "kind"};
const char* const kLeErr[] = {"none", "pattern", "partitions", "type", "op"};
// gpsimd_pkg::gp_err_e (docs/gpsimd.md "The processor")
const char* const kGpErr[] = {"none", "illegal", "fetch", "misaligned", "access", "partition", "sem"};

std::string detail_name(unsigned code, unsigned detail) {
  switch (code) {
    case 2:
      return detail < 6 ? kTeErr[detail] : fmt::format("{}", detail);
    case 3:
    case 4:
      return detail < 5 ? kLeErr[detail] : fmt::format("{}", detail);
    case 5:
      return std::string(dma::err_name(static_cast<dma::Err>(detail)));
    case 10:
      return detail < std::size(kGpErr) ? kGpErr[detail] : fmt::format("{}", detail);
    default:
      return "";
  }
}
}  // namespace

std::array<std::vector<Bits>, Control::kStreams> imem_words(const isa::Program& p, unsigned imem_depth) {
  std::array<std::vector<Bits>, Control::kStreams> w;
  for (unsigned s = 0; s < Control::kStreams; ++s) {
    w[s] = p.streams[s];
    if (w[s].empty()) {
      Bits e = isa::blank();
      isa::set(e, tbl::kF_op, isa::find_op(std::string("end"))->code);
      w[s].push_back(e);
    }
    if (w[s].size() > imem_depth)
      throw isa::Error(fmt::format("the {} stream has {} instructions; its instruction memory holds {}",
                                   tbl::kStreamNames[s], w[s].size(), imem_depth));
  }
  return w;
}

std::string describe(const isa::Program& p, bool err, unsigned code, unsigned detail, unsigned stream, std::uint32_t pc,
                     const std::array<Control::StreamStatus, Control::kStreams>& st) {
  std::string s;
  if (err) {
    const std::string d = detail_name(code, detail);
    s = fmt::format("error {}{} on the {} stream at {}", code < std::size(tbl::kErrors) ? tbl::kErrors[code].name : "?",
                    d.empty() ? "" : " (" + d + ")", tbl::kStreamNames[stream % Control::kStreams],
                    p.where(stream, pc));
    if (code == 1 && stream < Control::kStreams && pc < p.streams[stream].size())
      s += ": " + isa::illegal(p.streams[stream][pc], stream);
    s += "; ";
  }
  s += "streams:";
  for (unsigned i = 0; i < Control::kStreams; ++i) {
    const auto& x = st[i];
    s += fmt::format(" {} {} at {}", tbl::kStreamNames[i], kStateNames[static_cast<unsigned>(x.state)],
                     p.where(i, x.pc));
    if (x.state == Control::State::StWait) {
      auto it = p.sem_names.find(x.wait_sem);
      s += fmt::format(" for {}>={}", it != p.sem_names.end() ? it->second : fmt::format("{}", x.wait_sem), x.wait_val);
    }
    s += i + 1 < Control::kStreams ? "," : "";
  }
  return s;
}

ProgramRunner::ProgramRunner(const NeuronCore::Params& p, dma::MemSystem::Params mp, std::uint64_t seed, bool strong)
    : nc_(p),
      hbm_(dma::Geometry::make(p.core.hbm_bytes, p.core.parts, p.core.sbuf_bytes, p.core.beat_bytes), mp, seed),
      in_(nc_.make_in()),
      out_(nc_.make_out()),
      beat_(p.core.beat_bytes) {
  in_.dma_cfg_strong_i = strong ? Bits::ones(p.core.nq()) : Bits(p.core.nq());
  in_.dma_cfg_max_outst_i = p.core.slots / p.core.dma_engines;
  in_.rst_ni = false;
  for (int i = 0; i < 2; ++i) {
    nc_.eval(in_, out_);
    nc_.tick(in_);
  }
  in_.rst_ni = true;
}

void ProgramRunner::step() {
  hbm_port_inputs(hbm_, beat_, in_);
  nc_.eval(in_, out_);
  if (on_cycle) on_cycle(nc_, out_, cycle_);
  const std::optional<dma::ReadReq> rd = hbm_port_read(in_, out_);
  std::optional<dma::Write> wr;
  if (out_.hbm_wr_valid_o && in_.hbm_wr_ready_i) {
    Core::Out o = nc_.core_out();
    wr = Core::hbm_write(o, beat_);
  }
  hbm_.observe(cycle_, rd, wr, out_.hbm_r_ready_o);
  nc_.tick(in_);
  ++cycle_;
  hbm_.advance(cycle_);
}

void ProgramRunner::load(const isa::Program& p) {
  prog_ = p;
  const auto words = imem_words(p, nc_.params().imem_depth);
  for (unsigned s = 0; s < Control::kStreams; ++s)
    for (std::size_t pc = 0; pc < words[s].size(); ++pc) {
      in_.im_valid_i = true;
      in_.im_stream_i = s;
      in_.im_addr_i = static_cast<std::uint32_t>(pc);
      in_.im_data_i = words[s][pc];
      step();
    }
  in_.im_valid_i = false;
}

void ProgramRunner::load_gpsimd(int proc, std::uint32_t addr, const std::vector<std::uint8_t>& bytes) {
  const Core::Params& c = nc_.params().core;
  if (c.gp_procs == 0) throw std::invalid_argument("this NeuronCore has no GpSimd engine");
  if (addr % 4 || static_cast<std::uint64_t>(addr) + bytes.size() > c.gp_tcm_bytes)
    throw std::invalid_argument(
        fmt::format("{} bytes at {:#x} do not fit a GpSimd local memory of {} bytes (or {:#x} "
                    "is not a multiple of 4)",
                    bytes.size(), addr, c.gp_tcm_bytes, addr));
  if (proc >= static_cast<int>(c.gp_procs))
    throw std::invalid_argument(fmt::format("GpSimd processor {} of {}", proc, c.gp_procs));
  in_.gp_host_all_i = proc < 0;
  in_.gp_host_proc_i = proc < 0 ? 0 : static_cast<std::uint32_t>(proc);
  for (std::size_t i = 0; i < bytes.size(); i += 4) {
    std::uint32_t w = 0;
    for (std::size_t k = 0; k < 4 && i + k < bytes.size(); ++k) w |= std::uint32_t{bytes[i + k]} << (8 * k);
    in_.gp_host_we_i = true;
    in_.gp_host_addr_i = static_cast<std::uint32_t>((addr + i) / 4);
    in_.gp_host_wdata_i = w;
    step();
  }
  in_.gp_host_we_i = in_.gp_host_all_i = false;
}

RunResult ProgramRunner::run(std::uint64_t limit) {
  in_.start_i = true;
  step();
  in_.start_i = false;
  const std::uint64_t c0 = cycle_;
  RunResult r;
  for (;;) {
    step();
    if (out_.done_o || out_.err_o || cycle_ - c0 >= limit) break;
  }
  r.cycles = cycle_ - c0;
  r.ok = out_.done_o;
  r.code = out_.err_code_o;
  r.detail = out_.err_detail_o;
  r.stream = out_.err_stream_o;
  r.pc = out_.err_pc_o;
  r.what = describe(prog_, out_.err_o, r.code, r.detail, r.stream, r.pc, out_.st_o);
  if (!out_.done_o && !out_.err_o) r.what = fmt::format("not done after {} cycles; {}", limit, r.what);
  return r;
}

}  // namespace trn::core

#include "core/timeline.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <cstdio>
#include <fstream>

namespace trn::core {

namespace tbl = isa::tbl;

Timeline::Timeline(const isa::Program& p, unsigned queues, unsigned engines)
    : p_(p),
      words_(imem_words(p, ~0u)),
      queues_(queues * engines),
      per_engine_(queues),
      dq_(queues * engines),
      done_q_(queues * engines, 0) {
  wait_from_.fill(-1);
}

std::string Timeline::inst_name(unsigned s, std::uint32_t pc) const {
  if (pc >= words_[s].size()) return "?";
  const tbl::Op* o = isa::find_op(static_cast<unsigned>(isa::get(words_[s][pc], tbl::kF_op)));
  return o ? o->name : "?";
}

void Timeline::observe(const NeuronCore& nc, const NeuronCore::Out& o, std::uint64_t cycle) {
  const Control::Out& co = nc.ctl_out();
  const Control::In& ci = nc.ctl_in();
  if (!co.running_o) return;
  // SBUF refusals per unit at its engine ports (Core::Port), and the DMA's two ports
  const auto& w = nc.core().wires();
  const std::uint64_t refused = w.sb_in.e_valid_i & ~w.sb_out.e_ready_o;
  auto bit = [](unsigned port) { return std::uint64_t{1} << port; };
  counts_[0].sbuf += (refused & (bit(Core::kTeSt) | bit(Core::kTeMv))) != 0;
  counts_[1].sbuf += (refused & (bit(Core::kVeRd0) | bit(Core::kVeRd1) | bit(Core::kVeWr))) != 0;
  counts_[2].sbuf += (refused & (bit(Core::kSeRd0) | bit(Core::kSeRd1) | bit(Core::kSeWr))) != 0;
  counts_[3].sbuf += (w.sb_in.dw_valid_i && !w.sb_out.dw_ready_o) || (w.sb_in.dr_valid_i && !w.sb_out.dr_ready_o);
  counts_[Control::gpsimd].sbuf += (refused & bit(Core::kGp)) != 0;
  // completions reported this cycle (before this cycle's issues take their tags)
  auto done = [&](unsigned e, bool v, unsigned tag) {
    if (!v) return;
    const auto [pc, t0] = fly_[e][tag % Control::kTags];
    slices_.push_back({e, inst_name(e, pc), "inst", t0, cycle + 1, e, pc});
    --in_flight_[e];
  };
  done(0, ci.te_cpl_i.ls_done, ci.te_cpl_i.ls_tag);
  done(0, ci.te_cpl_i.mm_done, ci.te_cpl_i.mm_tag);
  done(1, ci.ve_cpl_i.done, ci.ve_cpl_i.tag);
  done(2, ci.se_cpl_i.done, ci.se_cpl_i.tag);
  if (ci.gp_done_i && in_flight_[Control::gpsimd] > 0) {
    const auto [pc, t0] = gp_fly_;
    slices_.push_back({Control::gpsimd, inst_name(Control::gpsimd, pc), "inst", t0, cycle + 1, Control::gpsimd, pc});
    --in_flight_[Control::gpsimd];
  }
  for (unsigned s = 0; s < Control::kStreams; ++s) {
    const auto& st = o.st_o[s];
    // semaphore waits
    const bool waiting = st.state == Control::State::StWait;
    if (waiting && wait_from_[s] < 0) {
      wait_from_[s] = static_cast<std::int64_t>(cycle);
      wait_pc_[s] = st.pc;
    }
    if (!waiting && wait_from_[s] >= 0) {
      const Bits& ww = words_[s][wait_pc_[s]];
      const unsigned sem = static_cast<unsigned>(isa::get(ww, tbl::kF_wait_sem));
      auto it = p_.sem_names.find(sem);
      const std::string name =
          fmt::format("wait {}>={}", it != p_.sem_names.end() ? it->second : fmt::format("{}", sem),
                      isa::get(ww, tbl::kF_wait_val));
      slices_.push_back({s, name, "wait", static_cast<std::uint64_t>(wait_from_[s]), cycle, s, wait_pc_[s]});
      wait_from_[s] = -1;
    }
    counts_[s].wait += waiting;
    counts_[s].busy += st.state == Control::State::StBusy;
    if (!co.issue[s]) {
      counts_[s].active += in_flight_[s] > 0;
      continue;
    }
    ++counts_[s].issued;
    counts_[s].active += 1;
    const std::uint32_t pc = co.issue_pc[s];
    const Bits& w = words_[s][pc];
    const tbl::Op* op = isa::find_op(static_cast<unsigned>(isa::get(w, tbl::kF_op)));
    const bool unit = op && op->unit != tbl::Unit::ctl;
    if (s < 3 && unit) {
      fly_[s][co.issue_tag[s] % Control::kTags] = {pc, cycle};
      ++in_flight_[s];
    } else if (s == Control::gpsimd && unit) {
      gp_fly_ = {pc, cycle};
      ++in_flight_[s];
    } else {
      slices_.push_back({s, inst_name(s, pc), "inst", cycle, cycle + 1, s, pc});
    }
    if (s == 3 && unit)
      dq_[(co.dma_desc_engine_o * per_engine_ + co.dma_desc_queue_o % per_engine_) % queues_].emplace_back(pc, cycle);
  }
  // descriptors completed: the DMA's per-queue done counters
  const Bits& qd = nc.core_out().dma_q_done_o;
  for (unsigned q = 0; q < queues_; ++q) {
    const std::uint64_t d = qd.slice(16 * q, 16);
    while (done_q_[q] != d && !dq_[q].empty()) {
      const auto [pc, t0] = dq_[q].front();
      dq_[q].pop_front();
      slices_.push_back({Control::kStreams + q, fmt::format("{}", p_.where(3, pc)), "dma", t0, cycle + 1, 3, pc});
      done_q_[q] = (done_q_[q] + 1) & 0xFFFF;
    }
    done_q_[q] = d;
  }
}

void Timeline::finish(std::uint64_t cycle) {
  for (unsigned s = 0; s < Control::kStreams; ++s)
    if (wait_from_[s] >= 0) {
      slices_.push_back({s, "wait (never satisfied)", "wait", static_cast<std::uint64_t>(wait_from_[s]),
                         std::max<std::uint64_t>(cycle, wait_from_[s] + 1), s, wait_pc_[s]});
      wait_from_[s] = -1;
    }
}

std::string Timeline::json(const std::string& title) const {
  // sub-tracks: a slice goes to the first lane of its track whose last slice has ended
  std::vector<Slice> order = slices_;
  std::stable_sort(order.begin(), order.end(), [](const Slice& a, const Slice& b) { return a.begin < b.begin; });
  std::vector<std::vector<std::uint64_t>> lanes(Control::kStreams + queues_);
  std::string ev;
  auto track_name = [&](unsigned t) {
    if (t < Control::kStreams) return std::string(tbl::kStreamNames[t]);
    const unsigned e = (t - Control::kStreams) / per_engine_, q = (t - Control::kStreams) % per_engine_;
    return e == 0 ? fmt::format("dma queue {}", q) : fmt::format("dma engine {} queue {}", e, q);
  };
  std::vector<std::string> meta;
  for (const auto& s : order) {
    auto& ln = lanes[s.track];
    unsigned lane = 0;
    while (lane < ln.size() && ln[lane] > s.begin) ++lane;
    if (lane == ln.size()) {
      ln.push_back(0);
      const unsigned tid = 100 * s.track + lane;
      meta.push_back(fmt::format(R"({{"ph":"M","name":"thread_name","pid":1,"tid":{},"args":{{"name":"{}{}"}}}})", tid,
                                 track_name(s.track), lane ? fmt::format(" ({})", lane + 1) : ""));
      meta.push_back(fmt::format(
          R"({{"ph":"M","name":"thread_sort_index","pid":1,"tid":{},"args":{{"sort_index":{}}}}})", tid, tid));
    }
    ln[lane] = s.end;
    ev += fmt::format(R"(,
{{"ph":"X","pid":1,"tid":{},"ts":{},"dur":{},"name":"{}","cat":"{}","args":{{"stream":"{}","pc":{},"where":"{}"}}}})",
                      100 * s.track + lane, s.begin, s.end - s.begin, s.name, s.cat, tbl::kStreamNames[s.stream], s.pc,
                      p_.where(s.stream, s.pc));
  }
  std::string out =
      fmt::format(R"({{"displayTimeUnit":"ns","otherData":{{"clock":"1 us = 1 core cycle"}},"traceEvents":[
{{"ph":"M","name":"process_name","pid":1,"args":{{"name":"{}"}}}})",
                  title);
  for (const auto& m : meta) out += ",\n" + m;
  out += ev;
  out += "\n]}\n";
  return out;
}

void Timeline::write_json(const std::string& path, const std::string& title) const {
  const std::string tmp = path + ".tmp";
  {
    std::ofstream f(tmp);
    if (!f) throw std::runtime_error(fmt::format("{}: cannot write", path));
    f << json(title);
    if (!f) throw std::runtime_error(fmt::format("{}: write failed", path));
  }
  if (std::rename(tmp.c_str(), path.c_str()) != 0) throw std::runtime_error(fmt::format("{}: cannot replace", path));
}

}  // namespace trn::core

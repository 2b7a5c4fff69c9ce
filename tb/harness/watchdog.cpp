#include "harness/watchdog.hpp"

#include <algorithm>

#include "harness/env.hpp"

namespace trn::tb {

Watchdog::Watchdog(Clock& clk, std::uint64_t limit) : clk_(clk), limit_(limit ? limit : options().watchdog_cycles) {
  hook_ = clk_.add_pre_edge_hook([this] { on_edge(); });
}

Watchdog::~Watchdog() { clk_.remove_hook(hook_); }

Watchdog::Id Watchdog::add_interface(std::string name, std::function<bool()> stalled, std::function<bool()> pending) {
  ifaces_.push_back(Iface{std::move(name), std::move(stalled), std::move(pending)});
  return ifaces_.size() - 1;
}

void Watchdog::on_edge() {
  if (progressed_) {
    progressed_ = false;
    idle_ = 0;
  }
  bool waiting = false;
  for (auto& f : ifaces_) {
    const bool st = f.stalled && f.stalled();
    if (!st)
      f.stalled_since = UINT64_MAX;
    else if (f.stalled_since == UINT64_MAX)
      f.stalled_since = clk_.cycle();
    waiting = waiting || st || (f.pending && f.pending());
  }
  if (!waiting) {
    idle_ = 0;
    return;
  }
  if (++idle_ < limit_) return;
  std::vector<const Iface*> st;
  for (auto& f : ifaces_)
    if (f.stalled_since != UINT64_MAX) st.push_back(&f);
  std::sort(st.begin(), st.end(), [](auto* a, auto* b) { return a->stalled_since < b->stalled_since; });
  std::string first = st.empty() ? std::string() : st.front()->name;
  std::string msg = fmt::format("hang: no progress for {} cycles (cycle {}), ", idle_, clk_.cycle());
  if (st.empty()) {
    std::string pend;
    for (auto& f : ifaces_)
      if (f.pending && f.pending()) pend += (pend.empty() ? "" : ", ") + f.name;
    msg += "nothing stalled but work pending on: " + pend;
    first = pend.substr(0, pend.find(','));
  } else {
    msg += "stalled interface " + first + " (valid high, ready low since cycle " +
           std::to_string(st.front()->stalled_since) + ")";
    for (std::size_t i = 1; i < st.size(); ++i)
      msg += fmt::format("; also {} since cycle {}", st[i]->name, st[i]->stalled_since);
  }
  msg += "\n  reproduce: " + reproduce_command(current_test_name()) + "\n";
  throw Hang(msg, first, clk_.cycle());
}

}  // namespace trn::tb

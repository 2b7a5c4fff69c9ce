#include "harness/lockstep.hpp"

#include <algorithm>

namespace trn::tb {

namespace {
/// Interface of a port: its name up to the first '_' ("push_valid_i" -> "push"); a probed port
/// keeps its instance path ("core.u_te.st_req_valid_o" -> "core.u_te.st").
std::string iface_name(const std::string& port) {
  const auto dot = port.rfind('.');
  const std::size_t from = dot == std::string::npos ? 0 : dot + 1;
  return port.substr(0, port.find('_', from));
}
bool has_role(const std::string& path, const char* role) {
  // <iface>_<role>_i / _o
  const auto dot = path.rfind('.');
  const std::string port = dot == std::string::npos ? path : path.substr(dot + 1);
  auto a = port.find('_');
  if (a == std::string::npos) return false;
  auto b = port.rfind('_');
  return b > a && port.substr(a + 1, b - a - 1) == role;
}
std::string show(const Bits& b) {
  if (b.width() <= 64) return fmt::format("0x{} ({})", b.hex(), b.to_u64());
  return "0x" + b.hex();
}
}  // namespace

LockstepCore::LockstepCore(Env& env, Clock& clk, std::string name)
    : env_(env), clk_(clk), name_(std::move(name)), use_model_(options().lockstep) {
  hook_ = clk_.add_pre_edge_hook([this] { on_edge(); });
}

LockstepCore::~LockstepCore() { clk_.remove_hook(hook_); }

void LockstepCore::set_decoder(const std::string& port, std::function<std::string(const Bits&)> fn) {
  decoders_.emplace_back(port, std::move(fn));
}

void LockstepCore::bind(const char* port, const std::string& name, unsigned port_width, unsigned lsb, unsigned width,
                        Dir dir) {
  Signal* s = env_.ports().find(port);
  const char* what = dir == Dir::In ? "input" : "output";
  if (!s) throw HarnessError(fmt::format("{}: the model's {} '{}' is not a port of the DUT", name_, what, port));
  if (s->dir() != dir)
    throw HarnessError(fmt::format("{}: '{}' is an {} of the model but not of the DUT", name_, port, what));
  if (s->width() != port_width)
    throw HarnessError(
        fmt::format("{}: '{}' is {} bits in the model and {} in the DUT", name_, port, port_width, s->width()));
  const bool compared = !(dir == Dir::In && !probe_);
  (compared ? out_ : in_).push_back(Bound{name, Field(s, lsb, width)});
  if (compared) inject_record().names.insert(name);
  auto& ports = iface_of(port).ports;
  if (std::find(ports.begin(), ports.end(), s) == ports.end()) ports.push_back(s);
}

LockstepCore::Iface& LockstepCore::iface_of(const std::string& port) {
  std::string n = iface_name(port);
  auto it = std::find_if(ifaces_.begin(), ifaces_.end(), [&](const Iface& f) { return f.name == n; });
  if (it != ifaces_.end()) return *it;
  ifaces_.push_back(Iface{n, {}, nullptr, nullptr, {}, {}, 0});
  return ifaces_.back();
}

void LockstepCore::finish_binding() {
  for (auto& p : env_.ports().all()) {
    auto is_p = [&](const Bound& b) { return &b.field.signal() == &p; };
    const bool bound = std::any_of(in_.begin(), in_.end(), is_p) || std::any_of(out_.begin(), out_.end(), is_p);
    // a lockstep describes the top's own ports; a probe the ports of its instance (not those of the
    // instances inside it, which other probes may describe)
    const bool mine = scope_.empty()
                          ? p.name().find('.') == std::string::npos
                          : p.name().rfind(scope_, 0) == 0 && p.name().find('.', scope_.size()) == std::string::npos;
    if (bound || !mine || &p == &clk_.signal() || (!scope_.empty() && p.name() == scope_ + "clk_i")) continue;
    throw HarnessError(fmt::format("{}: the DUT's {} '{}' is not described by the model", name_,
                                   p.dir() == Dir::In ? "input" : "output", p.name()));
  }
  for (auto& f : ifaces_) {
    for (Signal* s : f.ports) {
      if (has_role(s->name(), "valid")) f.valid = s;
      if (has_role(s->name(), "ready")) f.ready = s;
    }
    f.last.resize(f.ports.size());
    if (f.valid && f.ready && f.valid->width() == 1 && f.ready->width() == 1) {
      const std::string n = options().top + "." + f.name;
      f.cov_state = &cover_point(n + ".handshake", {"idle", "transfer", "stall", "ready_idle"});
      f.cov_stall = &cover_point(n + ".stall_cycles", {"1-15", "16+", "256+"});
    }
  }
  // Waves: each DUT output the model describes (a probe: each port of its instance), as expected
  // and as sampled, beside the DUT's.
  auto& mw = ModelWaves::get();
  if (!use_model_ || !mw.enabled()) return;
  for (const Bound& b : out_) {
    const Signal* s = &b.field.signal();
    auto it = std::find_if(wave_ports_.begin(), wave_ports_.end(), [&](const WavePort& w) { return w.sig == s; });
    if (it == wave_ports_.end()) {
      wave_ports_.push_back(WavePort{s, mw.declare("model", s->name(), s->width()),
                                     mw.declare("sampled", s->name(), s->width()), Bits(s->width())});
      it = wave_ports_.end() - 1;
    }
    out_wave_.push_back(static_cast<std::size_t>(it - wave_ports_.begin()));
  }
  mismatch_id_ = mw.declare("", "mismatch", 1);
  mw.set(mismatch_id_, 0);
  waves_ = true;
}

void LockstepCore::wave_commit(bool mismatch) {
  auto& mw = ModelWaves::get();
  for (auto& w : wave_ports_) {
    mw.set(w.model_id, w.model);
    mw.set(w.sampled_id, w.sig->bits());
  }
  mw.set(mismatch_id_, mismatch ? 1 : 0);
}

bool LockstepCore::injecting_now(const std::string& name) const {
  const RunOptions& o = options();
  if (!o.inject) return false;
  InjectRecord& rec = inject_record();
  rec.cycle = std::max(rec.cycle, clk_.cycle());
  const bool now = clk_.cycle() == o.inject_cycle && o.inject_signal == name;
  if (now) rec.flipped = true;
  return now;
}

void LockstepCore::record_history() {
  constexpr std::size_t kKeep = 8;  // transactions kept per interface for a mismatch report
  for (auto& f : ifaces_) {
    bool take;
    if (f.cov_state) {
      const bool v = f.valid->get() & 1, r = f.ready->get() & 1;
      f.cov_state->hit_index(v ? (r ? 1 : 2) : (r ? 3 : 0));
      if (v && !r) {
        ++f.stall_run;
        if (f.stall_run == 16) f.cov_stall->hit_index(1);
        if (f.stall_run == 256) f.cov_stall->hit_index(2);
      } else {
        if (f.stall_run > 0 && f.stall_run < 16) f.cov_stall->hit_index(0);
        f.stall_run = 0;
      }
    }
    if (f.valid && f.ready) {
      take = (f.valid->get() & f.ready->get()) != 0;
      if (take)
        for (std::size_t i = 0; i < f.ports.size(); ++i) f.ports[i]->get(f.last[i]);
    } else {  // no handshake: every change of value is a transaction
      take = false;
      for (std::size_t i = 0; i < f.ports.size(); ++i)
        if (!f.ports[i]->equals(f.last[i])) {
          take = true;
          f.ports[i]->get(f.last[i]);
        }
    }
    if (!take) continue;
    if (f.history.size() < kKeep) {
      f.history.emplace_back(clk_.cycle(), f.last);
    } else {  // overwrite the oldest in place
      f.history[f.oldest].first = clk_.cycle();
      f.history[f.oldest].second = f.last;
      f.oldest = (f.oldest + 1) % kKeep;
    }
  }
}

void LockstepCore::report(std::size_t out_index, const Bits& expected) {
  const Bound& b = out_[out_index];
  const Signal& s = b.field.signal();
  const Bits actual = b.field.bits();
  auto& sched = Scheduler::get();
  const std::uint64_t cyc = clk_.cycle();
  const double t_ns = sched.now() / 1000.0;
  const RunOptions& o = options();
  std::string dec_e = show(expected), dec_a = show(actual);
  for (auto& [port, fn] : decoders_)
    if (port == b.name) {
      dec_e += " = " + fn(expected);
      dec_a += " = " + fn(actual);
    }
  std::string msg = fmt::format(
      "lockstep mismatch on {} at cycle {} ({} ns): expected 0x{}, actual 0x{}\n"
      "  test {}  seed {}  config {}  top {}  checker {}\n"
      "  cycle {}, sim time {:.3f} ns, signal {}\n"
      "    expected (model) {}\n"
      "    actual   (DUT)   {}\n",
      b.name, cyc, t_ns, expected.hex(), actual.hex(), env_.test(), o.seed, o.config, o.top, name_, cyc, t_ns, b.name,
      dec_e, dec_a);
  Iface& f = iface_of(s.name());
  msg += fmt::format("  last transactions on '{}' ({}, oldest first):\n", f.name,
                     f.valid && f.ready ? "handshakes" : "changes of value");
  if (f.history.empty()) msg += "    (none)\n";
  for (std::size_t k = 0; k < f.history.size(); ++k) {
    const auto& [c, vals] = f.history[(f.oldest + k) % f.history.size()];
    msg += fmt::format("    cycle {}:", c);
    for (std::size_t i = 0; i < f.ports.size(); ++i) {
      // a typed port shows its fields, a plain one its value
      bool fields = false;
      for (const auto* list : {&in_, &out_})
        for (const Bound& fb : *list)
          if (&fb.field.signal() == f.ports[i] && !fb.field.whole()) {
            Bits v(fb.field.width());
            v.copy(0, vals[i], fb.field.lsb(), fb.field.width());
            msg += fmt::format(" {}=0x{}", fb.name, v.hex());
            fields = true;
          }
      if (!fields) msg += fmt::format(" {}=0x{}", f.ports[i]->name(), vals[i].hex());
    }
    msg += "\n";
  }
  msg += o.waves ? fmt::format("  waveform: {} (marker at the mismatch)\n", o.wave_file)
                 : std::string("  waveform: not written (rerun with WAVES=1, or make wave)\n");
  msg += "  reproduce: " + reproduce_command(env_.test()) + "\n";
  active_ = false;
  // The values compared were settled in the previous time step: put the marker there.
  sched.set_failure_marker(sched.previous_step());
  throw LockstepMismatch(msg, b.name, cyc, sched.now());
}

}  // namespace trn::tb

// trn::tb::Lockstep — the cycle-by-cycle comparison of a DUT with its C++ model.
//
// A model describes its ports with visit_in / visit_out (name, field, width); the lockstep binds
// each to the DUT port of the same name and checks that directions and widths agree, that every
// DUT output is compared and every DUT input but the clock reaches the model. A port whose field
// is a typed interface (a packed struct of a unit's package, generated into trn::sv by
// scripts/gen_pkg.py), or a packed array of them (a std::vector of the struct in the model), is bound
// field by field, so a mismatch names the field ("wr_req_o.addr", "e_i[3].idx"). Then, before every
// rising edge of the clock (the settled values of the cycle that ends):
//   1. the DUT's inputs are copied into the model's inputs,
//   2. the model computes this cycle's outputs (eval) and every DUT output is compared with them,
//   3. the model takes the edge (tick) with the same inputs.
// The first difference fails the test with a LockstepMismatch naming test, seed, cycle, time,
// signal, expected and actual values, the last transactions on that interface, the waveform and
// the command that reproduces it. LOCKSTEP=0 leaves the model out (to measure its cost).
//
// A composed top (the core) also has Probes: one per unit instance, comparing the ports of the
// unit model inside the composed model (its wired inputs and its outputs) with the RTL instance's
// ports (made public by a .vlt, bound by scripts/gen_ports.py --probes as "core.u_te.<port>").
// The lockstep runs its probes after the composed model's eval and before it compares the top's
// outputs, so the first mismatch names the unit and its port.
#pragma once

#include <array>
#include <chrono>
#include <cstdint>
#include <deque>
#include <functional>
#include <memory>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "harness/clock.hpp"
#include "harness/cover.hpp"
#include "harness/env.hpp"
#include "harness/model_waves.hpp"
#include "harness/replay.hpp"

namespace trn::tb {

/// The parts of the lockstep that do not depend on the model type.
class LockstepCore {
 public:
  LockstepCore(Env& env, Clock& clk, std::string name);
  virtual ~LockstepCore();
  LockstepCore(const LockstepCore&) = delete;
  LockstepCore& operator=(const LockstepCore&) = delete;

  /// Compare from the next rising edge on.
  void start() { active_ = true; }
  void stop() { active_ = false; }
  bool active() const { return active_; }
  std::uint64_t cycles_compared() const { return compared_; }
  /// Decode an output for reports (e.g. a floating-point value); hex and decimal otherwise.
  void set_decoder(const std::string& port, std::function<std::string(const Bits&)> fn);

 protected:
  /// Bind bits [lsb, lsb + width) of the DUT port `port` (of port_width bits), under `name`.
  void bind(const char* port, const std::string& name, unsigned port_width, unsigned lsb, unsigned width, Dir dir);
  void finish_binding();
  void record_history();
  [[noreturn]] void report(std::size_t out_index, const Bits& expected);
  bool injecting_now(const std::string& name) const;
  virtual void on_edge() = 0;
  /// Waves (WAVES=1, a top's lockstep only): the model's value of output leaf i this cycle, then
  /// the cycle's model and sampled ports and the mismatch flag (model_waves.hpp).
  bool waves_ = false;
  void wave_leaf(std::size_t i, const Bits& v) {
    wave_ports_[out_wave_[i]].model.copy(out_[i].field.lsb(), v, 0, v.width());
  }
  void wave_commit(bool mismatch);
  /// A probe: inputs are compared like outputs, names carry the scope.
  bool probe_ = false;
  /// The ports this checker must describe: "" the top's own (no '.'), else those under this prefix.
  std::string scope_;

  Env& env_;
  Clock& clk_;
  std::string name_;
  struct Bound {
    std::string name;  ///< the port, or port.field of a typed port
    Field field;
  };
  std::vector<Bound> in_, out_;
  bool active_ = false;
  bool use_model_;
  std::uint64_t compared_ = 0;

 private:
  struct Iface {
    std::string name;
    std::vector<Signal*> ports;
    Signal* valid = nullptr;
    Signal* ready = nullptr;
    std::vector<Bits> last;
    /// The last transactions: a ring of up to kKeep entries whose storage is reused (no
    /// allocation per cycle), the oldest at `oldest`.
    std::vector<std::pair<std::uint64_t, std::vector<Bits>>> history;
    std::size_t oldest = 0;
    /// Functional coverage of a valid/ready interface (cover.hpp): each cycle's handshake state,
    /// and how long its stalls (valid without ready) last.
    CoverPoint* cov_state = nullptr;
    CoverPoint* cov_stall = nullptr;
    std::uint64_t stall_run = 0;
  };
  Iface& iface_of(const std::string& port);
  std::vector<Iface> ifaces_;
  struct WavePort {
    const Signal* sig;
    int model_id, sampled_id;
    Bits model;
  };
  std::vector<WavePort> wave_ports_;
  std::vector<std::size_t> out_wave_;  ///< out_[i]'s entry in wave_ports_
  int mismatch_id_ = -1;
  std::vector<std::pair<std::string, std::function<std::string(const Bits&)>>> decoders_;
  Clock::HookId hook_;
};

namespace detail {
/// A typed interface: a packed struct generated from a unit's package (scripts/gen_pkg.py).
template <class F>
concept PackedStruct = requires(F f) {
  F::kWidth;
  f.pack();
};

/// A packed array of typed interfaces (`input s_t [N-1:0] x`): element i at bits [i*W, (i+1)*W).
template <class F>
struct IsStructArray : std::false_type {};
template <class S>
struct IsStructArray<std::vector<S>> : std::bool_constant<PackedStruct<S>> {};
template <class S, std::size_t N>
struct IsStructArray<std::array<S, N>> : std::bool_constant<PackedStruct<S>> {};
template <class F>
concept StructArray = IsStructArray<std::remove_const_t<F>>::value;

/// A packed array of integers (`output logic [N-1:0][W-1:0] x` as std::array<uint32_t, N>, the
/// port's width given for the whole array): element i at bits [i*W, (i+1)*W), named x[i].
template <class F>
struct IsIntArray : std::false_type {};
template <class T, std::size_t N>
struct IsIntArray<std::array<T, N>> : std::bool_constant<std::is_integral_v<T>> {};
template <class F>
concept IntArray = IsIntArray<std::remove_const_t<F>>::value;

/// The width of a typed port (a packed struct or an array of them); `width` otherwise.
template <class F>
unsigned typed_width(const F& f, unsigned width) {
  if constexpr (PackedStruct<F>)
    return F::kWidth;
  else if constexpr (StructArray<F>)
    return static_cast<unsigned>(f.size()) * F::value_type::kWidth;
  else
    return width;
}

/// cb(path, leaf, width, lsb) for every leaf field of f (f itself unless it is a packed struct or
/// an array of them; an array's element i is named path[i]).
template <class F, class CB>
void leaves(const std::string& path, F& f, unsigned width, unsigned lsb, CB& cb) {
  if constexpr (PackedStruct<std::remove_const_t<F>>) {
    f.visit([&](const char* n, auto& g, unsigned w, unsigned l) { leaves(path + "." + n, g, w, lsb + l, cb); });
  } else if constexpr (StructArray<F>) {
    constexpr unsigned ew = std::remove_const_t<F>::value_type::kWidth;
    for (std::size_t i = 0; i < f.size(); ++i)
      leaves(path + "[" + std::to_string(i) + "]", f[i], ew, lsb + static_cast<unsigned>(i) * ew, cb);
  } else if constexpr (IntArray<F>) {
    const unsigned ew = width / static_cast<unsigned>(f.size());
    for (std::size_t i = 0; i < f.size(); ++i)
      cb(path + "[" + std::to_string(i) + "]", f[i], ew, lsb + static_cast<unsigned>(i) * ew);
  } else {
    cb(path, f, width, lsb);
  }
}
/// The same walk without names, for every cycle.
template <class F, class CB>
void leaves(F& f, CB& cb) {
  if constexpr (PackedStruct<std::remove_const_t<F>>)
    f.visit([&](const char*, auto& g, unsigned, unsigned) { leaves(g, cb); });
  else if constexpr (StructArray<F> || IntArray<F>)
    for (auto& e : f) leaves(e, cb);
  else
    cb(f);
}
/// A typed port packed into one vector, and back.
template <class F>
Bits pack_typed(const F& f) {
  if constexpr (PackedStruct<F>) {
    return f.pack();
  } else {
    Bits b(typed_width(f, 0));
    for (std::size_t i = 0; i < f.size(); ++i) f[i].pack(b, static_cast<unsigned>(i) * F::value_type::kWidth);
    return b;
  }
}
template <class F>
void unpack_typed(const Bits& b, F& f) {
  if constexpr (PackedStruct<F>)
    f = F::unpack(b);
  else
    for (std::size_t i = 0; i < f.size(); ++i)
      f[i] = F::value_type::unpack(b, static_cast<unsigned>(i) * F::value_type::kWidth);
}

template <class F>
void read_field(const Field& s, F& f) {
  if constexpr (std::is_same_v<F, Bits>)
    s.get(f);
  else if constexpr (std::is_same_v<F, bool>)
    f = s.get() & 1;
  else
    f = static_cast<F>(s.get());
}
template <class F>
bool equal_field(const Field& s, const F& f) {
  if constexpr (std::is_same_v<F, Bits>) {
    if (s.width() <= 64) return s.get() == f.to_u64();
    return s.equals(f);
  } else {
    return s.get() == static_cast<std::uint64_t>(f);
  }
}
template <class F>
Bits to_bits(const F& f, unsigned width) {
  if constexpr (std::is_same_v<F, Bits>)
    return f;
  else
    return Bits(width, static_cast<std::uint64_t>(f));
}
template <class F>
void flip(F& f, unsigned bit) {
  if constexpr (std::is_same_v<F, Bits>)
    f.flip_bit(bit);
  else if constexpr (std::is_same_v<F, bool>)
    f = !f;
  else if constexpr (std::is_enum_v<F>)
    f = static_cast<F>(static_cast<std::underlying_type_t<F>>(f) ^ (std::underlying_type_t<F>{1} << bit));
  else
    f ^= F{1} << bit;
}
}  // namespace detail

/// Drive the DUT inputs whose names start with `prefix` (all but `except`) from a model's In, by
/// the model's port list: how a bench offers a command or descriptor it encoded with the model.
template <class Model>
void drive_inputs(Env& env, const Model& m, typename Model::In& in, std::string_view prefix,
                  std::string_view except = {}) {
  m.visit_in(in, [&](const char* name, auto& v, unsigned w) {
    const std::string_view n(name);
    if (n.substr(0, prefix.size()) != prefix || n == except) return;
    using F = std::decay_t<decltype(v)>;
    if constexpr (std::is_same_v<F, Bits>)
      env.sig(name).set(v);
    else if constexpr (detail::PackedStruct<F> || detail::StructArray<F>)
      env.sig(name).set(detail::pack_typed(v));
    else if constexpr (detail::IntArray<F>) {
      Bits b(w);
      const unsigned ew = w / static_cast<unsigned>(v.size());
      for (std::size_t i = 0; i < v.size(); ++i)
        b.set_slice(static_cast<unsigned>(i) * ew, ew, static_cast<std::uint64_t>(v[i]));
      env.sig(name).set(b);
    } else
      env.sig(name).set(static_cast<std::uint64_t>(v));
  });
}

/// Read the DUT outputs whose names start with `prefix` into a model's Out (the same port list).
template <class Model>
void read_outputs(Env& env, const Model& m, typename Model::Out& out, std::string_view prefix) {
  m.visit_out(out, [&](const char* name, auto& f, unsigned w) {
    if (std::string_view(name).substr(0, prefix.size()) != prefix) return;
    using F = std::decay_t<decltype(f)>;
    if constexpr (detail::PackedStruct<F> || detail::StructArray<F>)
      detail::unpack_typed(env.sig(name).bits(), f);
    else if constexpr (detail::IntArray<F>) {
      const Bits b = env.sig(name).bits();
      const unsigned ew = w / static_cast<unsigned>(f.size());
      for (std::size_t i = 0; i < f.size(); ++i)
        f[i] = static_cast<typename F::value_type>(b.slice(static_cast<unsigned>(i) * ew, ew));
    } else
      detail::read_field(Field(&env.sig(name)), f);
  });
}

template <class Model>
class Lockstep : public LockstepCore {
 public:
  Lockstep(Env& env, Clock& clk, Model& model, std::string name = "lockstep")
      : LockstepCore(env, clk, std::move(name)), m_(model), inp_(model.make_in()), outp_(model.make_out()) {
    bind_all(Dir::In);
    bind_all(Dir::Out);
    finish_binding();
  }
  /// Run `f` every compared cycle after the model's eval, before the outputs are compared (the probes).
  void after_eval(std::function<void()> f) { after_eval_.push_back(std::move(f)); }

 private:
  /// What a replay needs (replay.hpp): the model before the first recorded edge, every cycle's In,
  /// and the outputs of the last.
  struct Recording {
    Model initial;
    std::vector<typename Model::In> ins;
    typename Model::Out last;
  };
  static std::vector<Bits> flat(const Model& m, typename Model::Out& o) {
    std::vector<Bits> v;
    m.visit_out(o, [&](const char* n, auto& f, unsigned w) {
      auto leaf = [&](const std::string&, auto& g, unsigned lw, unsigned) { v.push_back(detail::to_bits(g, lw)); };
      detail::leaves(std::string(n), f, w, 0, leaf);
    });
    return v;
  }
  void begin_recording() {
    if constexpr (std::is_copy_constructible_v<Model>) {
      rec_ = std::make_shared<Recording>(Recording{m_, {}, m_.make_out()});
      replay_log().begin(env_.ports(), clk_.signal());
      replay_log().model_replay = [rec = rec_] {
        Model m = rec->initial;
        typename Model::Out out = m.make_out();
        const auto t0 = std::chrono::steady_clock::now();
        for (const auto& in : rec->ins) {
          m.eval(in, out);
          m.tick(in);
        }
        const double s = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
        return std::make_pair(s, flat(m, out) == flat(m, rec->last));
      };
    } else {
      replay_log().clear();  // this model cannot be copied: no replay
    }
  }

  void on_edge() override {
    if (!active_ || !use_model_) return;
    std::size_t i = 0;
    auto read = [&](auto& f) { detail::read_field(in_[i++].field, f); };
    m_.visit_in(inp_, [&](const char*, auto& f, unsigned) { detail::leaves(f, read); });
    if (options().replay) {
      if (compared_ == 0) begin_recording();
      if (rec_) {
        replay_log().record();
        rec_->ins.push_back(inp_);
      }
    }
    m_.eval(inp_, outp_);
    if (rec_) rec_->last = outp_;
    for (auto& f : after_eval_) f();
    std::size_t bad = SIZE_MAX;
    Bits expected;
    i = 0;
    auto compare = [&](auto& f) {
      const Bound& b = out_[i];
      if (injecting_now(b.name)) detail::flip(f, options().inject_bit);
      if (waves_) wave_leaf(i, detail::to_bits(f, b.field.width()));
      if (bad == SIZE_MAX && !detail::equal_field(b.field, f)) {
        bad = i;
        expected = detail::to_bits(f, b.field.width());
      }
      ++i;
    };
    m_.visit_out(outp_, [&](const char*, auto& f, unsigned) { detail::leaves(f, compare); });
    record_history();
    if (waves_) wave_commit(bad != SIZE_MAX);
    if (bad != SIZE_MAX) report(bad, expected);
    m_.tick(inp_);
    ++compared_;
  }

  void bind_all(Dir dir) {
    auto each = [&](const char* port, auto& f, unsigned w) {
      const unsigned port_width = detail::typed_width(f, w);
      auto leaf = [&](const std::string& path, auto&, unsigned lw, unsigned lsb) {
        bind(port, path, port_width, lsb, lw, dir);
      };
      detail::leaves(std::string(port), f, w, 0, leaf);
    };
    if (dir == Dir::In)
      m_.visit_in(inp_, each);
    else
      m_.visit_out(outp_, each);
  }

  Model& m_;
  typename Model::In inp_;
  typename Model::Out outp_;
  std::vector<std::function<void()>> after_eval_;
  std::shared_ptr<Recording> rec_;
};

/// The lockstep at one unit boundary inside a composed top: the unit model's ports, as the composed
/// model wired and evaluated them, against the RTL instance's ports under `scope` ("core.u_te.").
/// compare() (from Lockstep::after_eval) checks every input and output, field by field.
template <class Unit>
class Probe : public LockstepCore {
 public:
  Probe(Env& env, Clock& clk, const Unit& unit, std::string scope)
      : LockstepCore(env, clk, "probe " + scope.substr(0, scope.size() - 1)), u_(unit) {
    probe_ = true;
    scope_ = std::move(scope);
    active_ = true;
    auto in = unit.make_in();
    auto out = unit.make_out();
    auto each = [&](Dir dir) {
      return [&, dir](const char* port, auto& f, unsigned w) {
        const std::string full = scope_ + port;
        const unsigned port_width = detail::typed_width(f, w);
        auto leaf = [&](const std::string& path, auto&, unsigned lw, unsigned lsb) {
          bind(full.c_str(), path, port_width, lsb, lw, dir);
        };
        detail::leaves(full, f, w, 0, leaf);
      };
    };
    unit.visit_in(in, each(Dir::In));
    unit.visit_out(out, each(Dir::Out));
    finish_binding();
  }
  /// Compare the unit's wired inputs and its outputs with the instance's; a mismatch fails the test.
  void compare(const typename Unit::In& in, const typename Unit::Out& out) {
    std::size_t i = 0, bad = SIZE_MAX;
    Bits expected;
    auto cmp = [&](const auto& f) {
      const Bound& b = out_[i];
      bool same;
      if (injecting_now(b.name)) {
        auto g = f;
        detail::flip(g, options().inject_bit);
        same = detail::equal_field(b.field, g);
        if (!same && bad == SIZE_MAX) expected = detail::to_bits(g, b.field.width());
        if (waves_) wave_leaf(i, detail::to_bits(g, b.field.width()));
      } else {
        same = detail::equal_field(b.field, f);
        if (!same && bad == SIZE_MAX) expected = detail::to_bits(f, b.field.width());
        if (waves_) wave_leaf(i, detail::to_bits(f, b.field.width()));
      }
      if (!same && bad == SIZE_MAX) bad = i;
      ++i;
    };
    // visit_in/visit_out take mutable ports; the walk only reads them
    auto& min = const_cast<typename Unit::In&>(in);
    auto& mout = const_cast<typename Unit::Out&>(out);
    u_.visit_in(min, [&](const char*, auto& f, unsigned) { detail::leaves(f, cmp); });
    u_.visit_out(mout, [&](const char*, auto& f, unsigned) { detail::leaves(f, cmp); });
    record_history();
    if (waves_) wave_commit(bad != SIZE_MAX);
    if (bad != SIZE_MAX) report(bad, expected);
    ++compared_;
  }

 private:
  void on_edge() override {}
  const Unit& u_;
};

}  // namespace trn::tb

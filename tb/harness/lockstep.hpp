// trn::tb::Lockstep — the cycle-by-cycle comparison of a DUT with its C++ model.
//
// A model describes its ports with visit_in / visit_out (name, field, width); the lockstep binds
// each to the DUT port of the same name and checks that directions and widths agree, that every
// DUT output is compared and every DUT input but the clock reaches the model. Then, before every
// rising edge of the clock (the settled values of the cycle that ends):
//   1. the DUT's inputs are copied into the model's inputs,
//   2. the model computes this cycle's outputs (eval) and every DUT output is compared with them,
//   3. the model takes the edge (tick) with the same inputs.
// The first difference fails the test with a LockstepMismatch naming test, seed, cycle, time,
// signal, expected and actual values, the last transactions on that interface, the waveform and
// the command that reproduces it. LOCKSTEP=0 leaves the model out (to measure its cost).
#pragma once

#include <cstdint>
#include <deque>
#include <functional>
#include <string>
#include <string_view>
#include <type_traits>
#include <vector>

#include "harness/clock.hpp"
#include "harness/env.hpp"

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
  void bind(const char* name, unsigned width, Dir dir);
  void finish_binding();
  void record_history();
  [[noreturn]] void report(std::size_t out_index, const Bits& expected);
  bool injecting_now(const char* name) const;
  virtual void on_edge() = 0;

  Env& env_;
  Clock& clk_;
  std::string name_;
  std::vector<Signal*> in_, out_;
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
    std::deque<std::pair<std::uint64_t, std::vector<Bits>>> history;
  };
  Iface& iface_of(const std::string& port);
  std::vector<Iface> ifaces_;
  std::vector<std::pair<std::string, std::function<std::string(const Bits&)>>> decoders_;
  Clock::HookId hook_;
};

namespace detail {
template <class F>
void read_field(const Signal& s, F& f) {
  if constexpr (std::is_same_v<F, Bits>)
    s.get(f);
  else if constexpr (std::is_same_v<F, bool>)
    f = s.get() & 1;
  else
    f = static_cast<F>(s.get());
}
template <class F>
bool equal_field(const Signal& s, const F& f) {
  if constexpr (std::is_same_v<F, Bits>) {
    if (!s.wide()) return s.get() == f.to_u64();
    return s.bits() == f;
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
  else
    f ^= F{1} << bit;
}
}  // namespace detail

/// Drive the DUT inputs whose names start with `prefix` (all but `except`) from a model's In, by
/// the model's port list: how a bench offers a command or descriptor it encoded with the model.
template <class Model>
void drive_inputs(Env& env, const Model& m, typename Model::In& in, std::string_view prefix,
                  std::string_view except = {}) {
  m.visit_in(in, [&](const char* name, auto& v, unsigned) {
    const std::string_view n(name);
    if (n.substr(0, prefix.size()) != prefix || n == except) return;
    if constexpr (std::is_same_v<std::decay_t<decltype(v)>, Bits>)
      env.sig(name).set(v);
    else
      env.sig(name).set(static_cast<std::uint64_t>(v));
  });
}

/// Read the DUT outputs whose names start with `prefix` into a model's Out (the same port list).
template <class Model>
void read_outputs(Env& env, const Model& m, typename Model::Out& out, std::string_view prefix) {
  m.visit_out(out, [&](const char* name, auto& f, unsigned) {
    if (std::string_view(name).substr(0, prefix.size()) == prefix) detail::read_field(env.sig(name), f);
  });
}

template <class Model>
class Lockstep : public LockstepCore {
 public:
  Lockstep(Env& env, Clock& clk, Model& model, std::string name = "lockstep")
      : LockstepCore(env, clk, std::move(name)), m_(model), inp_(model.make_in()), outp_(model.make_out()) {
    m_.visit_in(inp_, [&](const char* n, auto&, unsigned w) { bind(n, w, Dir::In); });
    m_.visit_out(outp_, [&](const char* n, auto&, unsigned w) { bind(n, w, Dir::Out); });
    finish_binding();
  }

 private:
  void on_edge() override {
    if (!active_ || !use_model_) return;
    std::size_t i = 0;
    m_.visit_in(inp_, [&](const char*, auto& f, unsigned) { detail::read_field(*in_[i++], f); });
    m_.eval(inp_, outp_);
    std::size_t bad = SIZE_MAX;
    Bits expected;
    i = 0;
    m_.visit_out(outp_, [&](const char* n, auto& f, unsigned w) {
      if (injecting_now(n)) detail::flip(f, options().inject_bit);
      if (bad == SIZE_MAX && !detail::equal_field(*out_[i], f)) {
        bad = i;
        expected = detail::to_bits(f, w);
      }
      ++i;
    });
    record_history();
    if (bad != SIZE_MAX) report(bad, expected);
    m_.tick(inp_);
    ++compared_;
  }

  Model& m_;
  typename Model::In inp_;
  typename Model::Out outp_;
};

}  // namespace trn::tb

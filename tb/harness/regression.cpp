#include "harness/regression.hpp"

#include <fmt/format.h>
#include <sys/resource.h>
#include <unistd.h>

#include <algorithm>
#include <chrono>
#include <climits>
#include <cstdlib>
#include <cstring>
#include <filesystem>
#include <optional>

#include "harness/cover.hpp"
#include "harness/gtkw.hpp"
#include "harness/model_waves.hpp"
#include "harness/replay.hpp"
#include "harness/xunit.hpp"

namespace trn::tb {

namespace {
RunOptions g_opts;
std::string g_test;
std::function<void(const TestFailure&)> g_validate;

struct UsageError : std::runtime_error {
  using std::runtime_error::runtime_error;
};

/// NAME from the environment, or +NAME=value among the plusargs (the plusarg wins).
std::optional<std::string> setting(const std::vector<std::string>& plusargs, const std::string& name) {
  std::optional<std::string> v;
  if (const char* e = std::getenv(name.c_str())) v = e;
  for (const auto& p : plusargs)
    if (p.rfind("+" + name + "=", 0) == 0) v = p.substr(name.size() + 2);
  return v;
}

std::uint64_t parse_uint(const std::string& what, const std::string& s, std::uint64_t max) {
  if (s.empty() || s.find_first_not_of("0123456789") != std::string::npos)
    throw UsageError(fmt::format("{}='{}' is not a non-negative integer", what, s));
  errno = 0;
  unsigned long long v = std::strtoull(s.c_str(), nullptr, 10);
  if (errno == ERANGE || v > max) throw UsageError(fmt::format("{}={} is out of range (0..{})", what, s, max));
  return v;
}

std::vector<std::string> split(const std::string& s, char sep) {
  std::vector<std::string> out;
  std::size_t a = 0;
  for (;;) {
    std::size_t b = s.find(sep, a);
    std::string part = s.substr(a, b == std::string::npos ? std::string::npos : b - a);
    if (!part.empty()) out.push_back(part);
    if (b == std::string::npos) break;
    a = b + 1;
  }
  return out;
}

std::string shell_quote(const std::string& s) {
  if (!s.empty() && s.find_first_not_of("abcdefghijklmnopqrstuvwxyzABCDEFGHIJKLMNOPQRSTUVWXYZ0123456789_-+=./,@:") ==
                        std::string::npos)
    return s;
  std::string o = "'";
  for (char c : s) o += c == '\'' ? std::string("'\\''") : std::string(1, c);
  return o + "'";
}

const char* kHelp = R"(usage: {exe} [--list] [--help] [+NAME=value ...]

Runs the tests of the {top} bench ({config} configuration) against the Verilated DUT.
Settings come from the environment or from +NAME=value plusargs:
  TESTCASE=a,b           run only these tests (default: all, in definition order)
  RANDOM_SEED=n          the run's seed, 0..4294967295 (default: from the clock, printed first)
  WAVES=1                write an FST waveform (WAVES_FILE, default dump.fst) and a .gtkw beside it
  WAVES_FROM_NS=t, WAVES_TO_NS=t  dump only this window of time
  WAVES_SCOPE=a,b        dump only these scopes of the DUT (and the top's ports), e.g. chip_torus.g_chip[2]
  COCOTB_RESULTS_FILE=f  the xUnit results file (default results.xml)
  FCOV_FILE=f            write the functional cover points' counts (JSON) after every test
  TOPLEVEL=name          must be '{top}' if given
  LOCKSTEP=0             run without the C++ model (to measure its cost)
  LOCKSTEP_INJECT=sig@cycle[:bit]  flip one bit of the model's output (shows the checker failing)
  WATCHDOG_CYCLES=n      cycles without progress before a test fails with 'hang' (default 10000)
  TRN_LENGTH=n           random tests run n times longer, time limits scaled alike, 1..100 (default 1)
Other plusargs are passed to Verilator. Exit status: 0 all passed, 1 a test failed, 2 bad usage.
)";
}  // namespace

bool wave_traced(const RunOptions& o, const std::string& name) {
  if (o.wave_scopes.empty()) return true;
  if (name.rfind("TOP.", 0) != 0) return false;
  std::string n = name.substr(4);
  const auto bracket = n.find(' ');  // a sized name ("x [3:0]")
  if (bracket != std::string::npos) n = n.substr(0, bracket);
  for (const char* copy : {"model.", "sampled."})
    if (n.rfind(copy, 0) == 0 && n.find('.', std::string(copy).size()) != std::string::npos)
      n = n.substr(std::strlen(copy));
  if (n.find('.') == std::string::npos) return true;  // a port of the top, or the harness's own flag
  for (const std::string& s : o.wave_scopes)
    if (n.rfind(s, 0) == 0 && (n.size() == s.size() || n[s.size()] == '.')) return true;
  return false;
}

const RunOptions& options() { return g_opts; }
InjectRecord& inject_record() {
  static InjectRecord r;
  return r;
}
RunOptions& mutable_options() { return g_opts; }
const std::string& current_test_name() { return g_test; }

std::string reproduce_command(const std::string& test) {
  const RunOptions& o = g_opts;
  std::string c = fmt::format("TESTCASE={} RANDOM_SEED={}", shell_quote(test), o.seed);
  if (!o.lockstep) c += " LOCKSTEP=0";
  if (o.inject)
    c += fmt::format(" LOCKSTEP_INJECT={}@{}:{}", shell_quote(o.inject_signal), o.inject_cycle, o.inject_bit);
  if (o.watchdog_cycles != 10000) c += fmt::format(" WATCHDOG_CYCLES={}", o.watchdog_cycles);
  if (o.length != 1) c += fmt::format(" TRN_LENGTH={}", o.length);
  c += " " + shell_quote(o.exe);
  for (const auto& p : o.plusargs) c += " " + shell_quote(p);
  return c;
}

void expect_failure(std::function<void(const TestFailure&)> validate) { g_validate = std::move(validate); }

void expect_mismatch(std::string signal, std::uint64_t cycle) {
  expect_failure([signal = std::move(signal), cycle](const TestFailure& e) {
    auto* m = dynamic_cast<const LockstepMismatch*>(&e);
    check(m != nullptr, "not a lockstep mismatch: {}", e.what());
    check(m->signal == signal && m->cycle == cycle, "reported {} at cycle {}, injected {} at cycle {}", m->signal,
          m->cycle, signal, cycle);
  });
}

InjectGuard::InjectGuard(std::string signal, std::uint64_t cycle, unsigned bit) : saved_(g_opts) {
  g_opts.inject = true;
  g_opts.inject_signal = std::move(signal);
  g_opts.inject_cycle = cycle;
  g_opts.inject_bit = bit;
}
InjectGuard::~InjectGuard() { g_opts = saved_; }

std::vector<TestInfo>& test_registry() {
  static std::vector<TestInfo> r;
  return r;
}

bool register_test(const char* name, const char* file, int line, TestFn fn, TestOptions opts) {
  test_registry().push_back(TestInfo{name, std::filesystem::path(file).filename().string(), line, fn, opts});
  return true;
}

namespace {

void parse_options(int argc, char** argv, const std::string& top, const std::string& config, bool& list) {
  RunOptions& o = g_opts;
  std::error_code ec;
  auto exe = std::filesystem::canonical("/proc/self/exe", ec);
  o.exe = ec ? std::string(argv[0]) : exe.string();
  o.top = top;
  o.config = config;
  for (int i = 1; i < argc; ++i) {
    std::string a = argv[i];
    if (a == "--help" || a == "-h") {
      std::string h = kHelp;
      for (auto [k, v] : {std::pair<std::string, std::string>{"{exe}", o.exe}, {"{top}", top}, {"{config}", config}})
        for (std::size_t p; (p = h.find(k)) != std::string::npos;) h.replace(p, k.size(), v);
      fmt::print("{}", h);
      std::exit(0);
    }
    if (a == "--list") {
      list = true;
      continue;
    }
    if (a.empty() || a[0] != '+') throw UsageError(fmt::format("unknown argument '{}' (see --help)", a));
    o.plusargs.push_back(a);
  }
  if (auto v = setting(o.plusargs, "TOPLEVEL"); v && !v->empty() && *v != top)
    throw UsageError(fmt::format("TOPLEVEL={} but this bench's top is {}", *v, top));
  if (auto v = setting(o.plusargs, "TESTCASE")) o.testcases = split(*v, ',');
  if (auto v = setting(o.plusargs, "RANDOM_SEED"))
    o.seed = static_cast<std::uint32_t>(parse_uint("RANDOM_SEED", *v, UINT32_MAX));
  else if (auto n = setting(o.plusargs, "ntb_random_seed"))
    o.seed = static_cast<std::uint32_t>(parse_uint("ntb_random_seed", *n, UINT32_MAX));
  else
    o.seed = static_cast<std::uint32_t>(std::chrono::system_clock::now().time_since_epoch().count() ^
                                        (static_cast<std::uint64_t>(getpid()) << 16));
  if (auto v = setting(o.plusargs, "WAVES")) o.waves = *v == "1";
  o.wave_file = std::filesystem::absolute(setting(o.plusargs, "WAVES_FILE").value_or("dump.fst")).string();
  if (auto v = setting(o.plusargs, "WAVES_FROM_NS"))
    o.wave_from_ps = parse_uint("WAVES_FROM_NS", *v, UINT64_MAX / 1000) * 1000;
  if (auto v = setting(o.plusargs, "WAVES_TO_NS"))
    o.wave_to_ps = parse_uint("WAVES_TO_NS", *v, UINT64_MAX / 1000) * 1000;
  if (o.wave_to_ps < o.wave_from_ps)
    throw UsageError(
        fmt::format("WAVES_TO_NS ({}) is before WAVES_FROM_NS ({})", o.wave_to_ps / 1000, o.wave_from_ps / 1000));
  if (auto v = setting(o.plusargs, "WAVES_SCOPE"); v && !v->empty()) o.wave_scopes = split(*v, ',');
  if (auto v = setting(o.plusargs, "COCOTB_RESULTS_FILE"); v && !v->empty()) o.results_file = *v;
  if (auto v = setting(o.plusargs, "FCOV_FILE")) o.fcov_file = *v;
  if (auto v = setting(o.plusargs, "LOCKSTEP")) {
    if (*v != "0" && *v != "1") throw UsageError(fmt::format("LOCKSTEP={} must be 0 or 1", *v));
    o.lockstep = *v == "1";
  }
  if (auto v = setting(o.plusargs, "BENCH_REPLAY")) {
    if (*v != "0" && *v != "1") throw UsageError(fmt::format("BENCH_REPLAY={} must be 0 or 1", *v));
    o.replay = *v == "1";
    if (o.replay && !o.lockstep) throw UsageError("BENCH_REPLAY=1 records the lockstep: it needs LOCKSTEP=1");
  }
  if (auto v = setting(o.plusargs, "WATCHDOG_CYCLES"))
    o.watchdog_cycles = parse_uint("WATCHDOG_CYCLES", *v, UINT64_MAX);
  if (auto v = setting(o.plusargs, "TRN_LENGTH")) {
    o.length = parse_uint("TRN_LENGTH", *v, 100);
    if (o.length == 0) throw UsageError("TRN_LENGTH=0: a test's length scale must be 1..100");
  }
  if (auto v = setting(o.plusargs, "LOCKSTEP_INJECT"); v && !v->empty()) {
    auto at = v->find('@');
    if (at == std::string::npos || at == 0)
      throw UsageError(fmt::format("LOCKSTEP_INJECT={} is not <signal>@<cycle>[:<bit>]", *v));
    if (!o.lockstep)
      throw UsageError(fmt::format("LOCKSTEP_INJECT={}: it makes the model wrong, and LOCKSTEP=0 runs no model", *v));
    o.inject = true;
    o.inject_signal = v->substr(0, at);
    std::string rest = v->substr(at + 1);
    auto colon = rest.find(':');
    o.inject_cycle = parse_uint("LOCKSTEP_INJECT cycle", rest.substr(0, colon), UINT64_MAX);
    if (colon != std::string::npos)
      o.inject_bit = static_cast<unsigned>(parse_uint("LOCKSTEP_INJECT bit", rest.substr(colon + 1), 4095));
  }
}

/// Verilator keeps temporaries of very wide signals on the stack (the full SBUF's bank rows are
/// 64 Kbit, and its evaluation needs more than the usual 8 MiB). Run every bench with a stack of
/// 256 MiB (or the hard limit): raise the soft limit and re-execute once, before anything runs.
void ensure_stack(char** argv) {
  constexpr rlim_t want = rlim_t{256} << 20;
  rlimit rl{};
  if (std::getenv("TRN_STACK_RAISED") || getrlimit(RLIMIT_STACK, &rl) != 0) return;
  if (rl.rlim_cur == RLIM_INFINITY || rl.rlim_cur >= want) return;
  const rlim_t target = rl.rlim_max == RLIM_INFINITY ? want : std::min(want, rl.rlim_max);
  if (target <= rl.rlim_cur) return;
  rl.rlim_cur = target;
  if (setrlimit(RLIMIT_STACK, &rl) != 0) return;
  setenv("TRN_STACK_RAISED", "1", 1);
  execv("/proc/self/exe", argv);  // returns only on failure: go on with the smaller stack
}

/// Edit distance (insertions, deletions, substitutions) between two names.
std::size_t distance(const std::string& a, const std::string& b) {
  std::vector<std::size_t> row(b.size() + 1);
  for (std::size_t j = 0; j <= b.size(); ++j) row[j] = j;
  for (std::size_t i = 1; i <= a.size(); ++i) {
    std::size_t diag = row[0];
    row[0] = i;
    for (std::size_t j = 1; j <= b.size(); ++j) {
      const std::size_t up = row[j];
      row[j] = std::min({row[j] + 1, row[j - 1] + 1, diag + (a[i - 1] == b[j - 1] ? 0 : 1)});
      diag = up;
    }
  }
  return row[b.size()];
}

/// What is wrong with the run's LOCKSTEP_INJECT after test `test` (passed or not): "" when the
/// flip happened, or when the test failed before the cycle (its failure says more).
std::string inject_problem(const RunOptions& o, const std::string& test, bool passed) {
  const InjectRecord& rec = inject_record();
  const std::string given = fmt::format("LOCKSTEP_INJECT={}@{}", o.inject_signal, o.inject_cycle);
  if (!rec.names.count(o.inject_signal)) {
    if (rec.names.empty()) return fmt::format("{}: test {} compares no model outputs", given, test);
    const std::string* best = nullptr;
    std::size_t d = SIZE_MAX;
    for (const std::string& n : rec.names)
      if (const std::size_t k = distance(n, o.inject_signal); k < d) d = k, best = &n;
    return fmt::format("{}: '{}' is not an output the model or a probe compares on {} (the closest: '{}')", given,
                       o.inject_signal, o.top, *best);
  }
  if (!rec.flipped && passed)
    return fmt::format("{}: test {} ended at cycle {}, before cycle {}: nothing was injected", given, test, rec.cycle,
                       o.inject_cycle);
  return "";
}
}  // namespace

int bench_main(int argc, char** argv, const std::string& top, const std::string& config,
               const std::function<std::unique_ptr<Bench>(const std::vector<std::string>&, bool)>& make) {
  ensure_stack(argv);
  bool list = false;
  try {
    parse_options(argc, argv, top, config, list);
  } catch (const UsageError& e) {
    fmt::print(stderr, "{}: error: {}\n", top, e.what());
    return 2;
  }
  const RunOptions& o = g_opts;
  auto& reg = test_registry();
  if (list) {
    for (const auto& t : reg) fmt::print("{}\n", t.name);
    return 0;
  }
  const cfg::Config* cfg = cfg::find(config);
  if (!cfg) {
    fmt::print(stderr, "{}: error: configuration '{}' is not in rtl/configs.toml\n", top, config);
    return 2;
  }
  std::vector<const TestInfo*> selected;
  if (o.testcases.empty()) {
    for (const auto& t : reg) selected.push_back(&t);
  } else {
    for (const auto& want : o.testcases) {
      auto it = std::find_if(reg.begin(), reg.end(), [&](const TestInfo& t) { return t.name == want; });
      if (it == reg.end()) {
        std::string names;
        for (const auto& t : reg) names += (names.empty() ? "" : ", ") + t.name;
        fmt::print(stderr, "{}: error: TESTCASE names no test '{}' of this bench (tests: {})\n", top, want, names);
        return 2;
      }
      selected.push_back(&*it);
    }
  }

  // The seed first, as cocotb prints it.
  fmt::print("     0.00ns INFO     trn.regression     Seeding with RANDOM_SEED={}\n", o.seed);
  fmt::print("     0.00ns INFO     trn.regression     top {} config {} tests {}{}{}\n", top, config, selected.size(),
             o.lockstep ? "" : " (LOCKSTEP=0: no model)", o.waves ? fmt::format(" waves {}", o.wave_file) : "");
  std::fflush(stdout);

  std::vector<std::string> vargs{fmt::format("+verilator+seed+{}", o.seed % 2147483647u + 1),
                                 "+verilator+rand+reset+2"};
  for (const auto& p : o.plusargs) vargs.push_back(p);
  ModelWaves::get().enable(o.waves);
  std::unique_ptr<Bench> bench = make(vargs, o.waves);
  auto& sched = Scheduler::get();
  sched.attach(bench.get());
  if (o.waves) bench->open_waves(o.wave_file);

  std::vector<TestResult> results;
  std::optional<WaveFocus> focus;
  int failed = 0;
  for (std::size_t i = 0; i < selected.size(); ++i) {
    const TestInfo& t = *selected[i];
    g_test = t.name;
    TestResult r;
    r.name = t.name;
    r.classname = top;
    r.file = t.file;
    r.line = t.line;
    const double t0_ns = sched.now() / 1000.0;
    fmt::print("{:>11.2f}ns INFO     trn.regression     running {}.{} ({}/{})\n", t0_ns, top, t.name, i + 1,
               selected.size());
    std::fflush(stdout);
    if (t.opts.skip) {
      r.status = TestResult::Status::Skip;
      fmt::print("{:>11.2f}ns INFO     trn.regression     {}.{} skipped\n", t0_ns, top, t.name);
      results.push_back(r);
      continue;
    }
    Env env(bench->ports(), *cfg, t.name);
    inject_record().flipped = false;
    inject_record().cycle = 0;
    const auto w0 = std::chrono::steady_clock::now();
    std::exception_ptr exc;
    std::string what;
    bool is_failure = false;
    g_validate = nullptr;
    try {
      Task<> main = t.fn(env);
      exc = sched.run_test(std::move(main),
                           static_cast<std::uint64_t>(t.opts.timeout_ns * 1000.0 * static_cast<double>(g_opts.length)));
    } catch (...) {
      exc = std::current_exception();
    }
    if (exc) {
      try {
        std::rethrow_exception(exc);
      } catch (const TestFailure& e) {
        is_failure = true;
        what = e.what();
        if (t.opts.expect_fail && g_validate) {
          try {
            g_validate(e);
          } catch (const std::exception& v) {
            is_failure = false;  // the wrong failure: not what the test expects
            what = fmt::format("the expected failure was not the intended one: {}\nthe failure was: {}", v.what(),
                               e.what());
          }
        }
      } catch (const std::exception& e) {
        what = fmt::format("error: {}", e.what());
      } catch (...) {
        what = "error: unknown exception";
      }
    }
    r.wall_s = std::chrono::duration<double>(std::chrono::steady_clock::now() - w0).count();
    r.sim_ns = sched.now() / 1000.0 - t0_ns;
    const double now_ns = sched.now() / 1000.0;
    bool pass;
    if (t.opts.expect_fail) {
      pass = exc && is_failure;
      r.message = !exc ? "expected to fail a check, but passed" : (is_failure ? "" : what);
    } else if (t.opts.expect_error) {
      pass = exc && !is_failure;
      r.message = !exc ? "expected an error, but passed" : (is_failure ? what : "");
    } else {
      pass = !exc;
      r.message = what;
    }
    if (exc && !pass && !focus) {
      focus = WaveFocus{sched.failure_marker_time(), "", 0};
      try {
        std::rethrow_exception(exc);
      } catch (const LockstepMismatch& m) {
        focus->port = m.signal;  // a port, or a field of one ("wr_req_o.addr", "core.u_te.st_req_o.idx")
        if (m.cycle) focus->period_ps = m.time_ps / m.cycle;
      } catch (...) {
      }
      // The failing edge ended its time step early: write what the lockstep saw there.
      if (o.waves) bench->dump(sched.now());
    }
    // LOCKSTEP_INJECT from the command line (a self-test's own injection is its own business): a
    // name no checker compares, or a cycle the test never reached, injected nothing
    if (o.inject && !t.opts.expect_fail && !t.opts.expect_error) {
      if (std::string why = inject_problem(o, t.name, pass); !why.empty()) {
        fmt::print(stderr, "{}: error: {}\n", top, why);
        return 2;
      }
    }
    if (pass && exc)
      fmt::print("{:>11.2f}ns INFO     trn.regression     {}.{} failed as expected:\n{}\n", now_ns, top, t.name, what);
    if (pass) {
      fmt::print("{:>11.2f}ns INFO     trn.regression     {}.{} passed\n", now_ns, top, t.name);
    } else {
      ++failed;
      r.status = TestResult::Status::Fail;
      fmt::print("{:>11.2f}ns ERROR    trn.regression     {}.{} failed\n{}\n", now_ns, top, t.name, r.message);
      if (r.message.find("reproduce:") == std::string::npos) fmt::print("  reproduce: {}\n", reproduce_command(t.name));
    }
    std::fflush(stdout);
    results.push_back(r);
    try {  // after every test: an interrupted run keeps what it did
      write_results_xml(o.results_file, o.seed, results);
      // A run of self-tests only (a wrong DUT or model on purpose) is no coverage of the design.
      if (std::any_of(selected.begin(), selected.end(),
                      [](const TestInfo* t) { return !t->opts.expect_fail && !t->opts.expect_error; }))
        write_coverage(o.fcov_file);
    } catch (const std::exception& e) {
      fmt::print(stderr, "{}: error: {}\n", top, e.what());
      return 2;
    }
  }
  if (o.waves && focus) {
    // When a failure ended the run its last values were dumped at the failing edge and would have
    // no width on screen: hold them for four more cycles (no evaluation, the same values).
    const std::uint64_t period = focus->period_ps ? focus->period_ps : 10000;
    bench->dump(sched.now() + 4 * period);
    focus->end_ps = sched.now() + 4 * period;
  }
  bench->close();
  if (o.waves) {
    std::string gtkw = std::filesystem::path(o.wave_file).replace_extension(".gtkw").string();
    write_gtkw(gtkw, o.wave_file, bench->ports(), focus);
    fmt::print("waveform: {}\ngtkwave save file: {}\n", o.wave_file, gtkw);
  }
  fmt::print("{}", summary_table(results));
  if (o.replay && !failed) {
    // one Verilated top at a time (its scopes belong to the thread's current context)
    bench.reset();
    print_replay(run_replay(*make(vargs, false)));
  }
  return failed ? 1 : 0;
}

}  // namespace trn::tb

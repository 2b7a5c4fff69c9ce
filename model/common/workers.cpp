#include "common/workers.hpp"

#include <algorithm>

namespace trn::common {

namespace {
// spins before a waiting thread sleeps (a phase of a system's cycle takes tens of microseconds;
// a sleeping thread's wake-up costs about as much)
constexpr unsigned kSpins = 1u << 11;

inline void relax() {
#if defined(__x86_64__) || defined(__i386__)
  __builtin_ia32_pause();
#endif
}
}  // namespace

unsigned Workers::machine() { return std::max(1u, std::thread::hardware_concurrency()); }

Workers::Workers(unsigned threads) {
  for (unsigned t = 1; t < threads; ++t) team_.emplace_back([this] { loop(); });
}

Workers::~Workers() {
  stop_.store(true);
  ticket_.fetch_add(std::uint64_t{1} << 32);  // a new run that has no calls: every member wakes and stops
  wake();
  for (auto& t : team_) t.join();
}

void Workers::wake() {
  // (a member that counted itself a sleeper checks the ticket under the mutex before it sleeps:
  // taking the mutex here puts this run's ticket before that check or the member on cv_)
  if (sleepers_.load() != 0) {
    std::lock_guard<std::mutex> lock(m_);
  }
  cv_.notify_all();
}

void Workers::work(std::uint32_t g) {
  const Job& job = job_[g % 2];
  for (;;) {
    // take call i of run g, unless run g is over (a member that woke late takes nothing of a later run)
    std::uint64_t t = ticket_.load(std::memory_order_acquire);
    std::uint32_t i;
    for (;;) {
      if (static_cast<std::uint32_t>(t >> 32) != g) return;
      i = static_cast<std::uint32_t>(t);
      if (i >= job.n.load(std::memory_order_relaxed)) return;
      if (ticket_.compare_exchange_weak(t, t + 1, std::memory_order_acq_rel, std::memory_order_acquire)) break;
    }
    // run g cannot end before this call has: its job is intact
    try {
      (*job.f.load(std::memory_order_relaxed))(i);
    } catch (...) {
      std::lock_guard<std::mutex> lock(err_m_);
      if (!err_) err_ = std::current_exception();
    }
    done_.fetch_add(1, std::memory_order_acq_rel);
  }
}

void Workers::loop() {
  // the run last seen: none yet (a member the OS starts late sees every run since, and a stop)
  std::uint32_t seen = 0;
  auto run_now = [&] { return stop_.load() || static_cast<std::uint32_t>(ticket_.load() >> 32) != seen; };
  for (;;) {
    for (unsigned k = 0; !run_now() && k < kSpins; ++k) relax();
    if (!run_now()) {
      std::unique_lock<std::mutex> lock(m_);
      sleepers_.fetch_add(1);
      cv_.wait(lock, run_now);
      sleepers_.fetch_sub(1);
    }
    if (stop_.load()) return;
    seen = static_cast<std::uint32_t>(ticket_.load(std::memory_order_acquire) >> 32);
    work(seen);
  }
}

void Workers::run(unsigned n, const std::function<void(unsigned)>& f) {
  if (team_.empty() || n < 2) {  // every call on the caller, as a team would make them
    std::exception_ptr first;
    for (unsigned i = 0; i < n; ++i) try {
        f(i);
      } catch (...) {
        if (!first) first = std::current_exception();
      }
    if (first) std::rethrow_exception(first);
    return;
  }
  const std::uint32_t g = ++gen_;
  Job& job = job_[g % 2];
  job.f.store(&f, std::memory_order_relaxed);
  job.n.store(n, std::memory_order_relaxed);
  done_.store(0, std::memory_order_relaxed);
  err_ = nullptr;
  ticket_.store(std::uint64_t{g} << 32);
  wake();
  work(g);
  // every call has been taken; wait for the ones still running (spinning, then yielding the core
  // to them)
  for (unsigned k = 0; done_.load(std::memory_order_acquire) != n; ++k)
    if (k < kSpins)
      relax();
    else
      std::this_thread::yield();
  if (err_) std::rethrow_exception(err_);
}

}  // namespace trn::common

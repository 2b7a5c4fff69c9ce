#include "dma/checker.hpp"

#include <fmt/format.h>

namespace trn::dma {

OrderingChecker::OrderingChecker(const Geometry& g, unsigned queues) : g_(g), q_(queues) {}

void OrderingChecker::program(unsigned q, const std::vector<Desc>& descs, bool strong) {
  Q& qu = q_.at(q);
  qu.strong = strong;
  for (const Desc& d : descs) {
    D x;
    x.d = d;
    x.legal = check(d, g_) == Err::none;
    x.nelem = x.legal ? d.len / type_size(d.stype) : 0;
    qu.descs.push_back(x);
  }
}

void OrderingChecker::fail(const char* promise, const Write& w, const std::string& why) const {
  throw OrderingViolation(
      promise, fmt::format("cycle {}: queue {} descriptor {} {} at element {} ({}:{:#x}, {} {}): {}", w.cycle, w.queue,
                           w.desc, w.sem ? "semaphore" : "write", w.elem, w.space == Space::hbm ? "hbm" : "sbuf",
                           w.addr, w.n, w.col ? "elements down partitions" : "bytes", why));
}

void OrderingChecker::on_write(const Write& w) {
  ++writes_;
  if (w.queue >= q_.size()) fail("monitor", w, "no such queue");
  Q& qu = q_[w.queue];
  if (w.desc >= qu.descs.size()) fail("monitor", w, fmt::format("the queue has {} descriptors", qu.descs.size()));
  D& d = qu.descs[w.desc];
  // the completion (a register load's one write is marked as a semaphore write too: it is data)
  const bool sem = w.sem && d.d.op != static_cast<unsigned>(Op::reg);
  if (!d.legal) fail("bad descriptor", w, fmt::format("descriptor fails its check ({})", err_name(check(d.d, g_))));
  const std::uint64_t cnt = sem ? 0 : w.elems();
  if (!sem && (cnt == 0 || w.elem + cnt > d.nelem))
    fail("monitor", w, fmt::format("elements {}..{} outside the descriptor's {}", w.elem, w.elem + cnt, d.nelem));
  if (sem && d.sem_seen) fail("semaphore", w, "written twice");

  // barrier: every earlier descriptor of the queue is complete
  if (d.d.barrier)
    for (unsigned e = 0; e < w.desc; ++e) {
      const D& p = qu.descs[e];
      if (p.seen != p.nelem || (p.legal && p.d.sem && !p.sem_seen))
        fail("barrier", w,
             fmt::format("descriptor {} before the barrier has {} of {} elements{} visible", e, p.seen, p.nelem,
                         p.d.sem && !p.sem_seen ? " and no semaphore" : ""));
    }
  // semaphore: all of this descriptor's data
  if (sem && d.seen != d.nelem) fail("semaphore", w, fmt::format("only {} of {} elements visible", d.seen, d.nelem));

  // strong order: exactly the next write of the queue
  const std::uint64_t k = key(w.desc, sem ? d.nelem : w.elem);
  if (qu.strong) {
    if (w.desc != qu.cur) {
      if (w.desc < qu.cur) fail("strong order", w, fmt::format("descriptor {} is already being written", qu.cur));
      for (unsigned e = qu.cur; e < w.desc; ++e) {
        const D& p = qu.descs[e];
        if (p.seen != p.nelem || (p.legal && p.d.sem && !p.sem_seen))
          fail("strong order", w, fmt::format("descriptor {} is incomplete ({} of {} elements)", e, p.seen, p.nelem));
      }
      qu.cur = w.desc;
      qu.next = 0;
    }
    if (sem ? qu.next != d.nelem : w.elem != qu.next)
      fail("strong order", w, fmt::format("expected element {} of descriptor {}", qu.next, qu.cur));
    qu.next += cnt;
  } else if (qu.any && k < qu.max_key) {
    ++out_of_order_;
  }
  if (!qu.any || k > qu.max_key) qu.max_key = k;
  qu.any = true;

  // same address: per byte, writers in issue order
  if (!sem) {
    const std::uint64_t base = key(w.desc, w.elem);
    const unsigned es = w.esize;
    w.for_each_byte(g_, [&](std::uint64_t a, unsigned i) {
      const std::uint64_t kk = base + i / es;
      auto [it, fresh] = qu.last.try_emplace(a, kk);
      if (!fresh) {
        if (it->second >= kk)
          fail("same address", w,
               fmt::format("byte {:#x} was last written by descriptor {} element {}", a & 0xFFFFFFFFu, it->second >> 32,
                           it->second & 0xFFFFFFFFu));
        it->second = kk;
      }
    });
    d.seen += cnt;
  } else {
    d.sem_seen = true;
  }
}

void OrderingChecker::check_complete() const {
  for (unsigned q = 0; q < q_.size(); ++q)
    for (unsigned e = 0; e < q_[q].descs.size(); ++e) {
      const D& d = q_[q].descs[e];
      if (d.seen != d.nelem || (d.legal && d.d.sem && !d.sem_seen))
        throw OrderingViolation(
            "completion", fmt::format("queue {} descriptor {}: {} of {} elements{} visible", q, e, d.seen, d.nelem,
                                      d.d.sem && !d.sem_seen ? ", no semaphore" : ""));
    }
}

}  // namespace trn::dma

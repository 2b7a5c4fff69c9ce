// trn::dma::OrderingChecker — the ordering promises of SPEC 5.5, checked on the visibility trace
// (every write the destination accepts, in order). It knows each queue's descriptors and mode and
// reports the first broken promise, naming it and where:
//   strong order   strong mode: a queue's writes become visible in descriptor and element order,
//                  each write continuing exactly where the previous one stopped
//   semaphore      both modes: a completion semaphore is visible only after all its descriptor's data
//   barrier        both modes: a write of a barrier descriptor is visible only after every earlier
//                  write of its queue (data and semaphores)
//   same address   both modes: two writes of one queue to one byte are visible in issue order
//   bad descriptor both modes: nothing of a descriptor that fails the check is written
#pragma once

#include <cstdint>
#include <map>
#include <stdexcept>
#include <string>
#include <unordered_map>
#include <vector>

#include "dma/desc.hpp"
#include "dma/memsys.hpp"

namespace trn::dma {

class OrderingViolation : public std::runtime_error {
 public:
  OrderingViolation(std::string promise, const std::string& what)
      : std::runtime_error(promise + ": " + what), promise_(std::move(promise)) {}
  const std::string& promise() const { return promise_; }

 private:
  std::string promise_;
};

class OrderingChecker {
 public:
  OrderingChecker(const Geometry& g, unsigned queues);
  /// The descriptors queue q executes, in order, and its mode (may be called again to append).
  void program(unsigned q, const std::vector<Desc>& descs, bool strong);
  /// One visible write; throws OrderingViolation on a broken promise.
  void on_write(const Write& w);
  /// Throws unless every legal descriptor's data and semaphore are visible.
  void check_complete() const;
  std::uint64_t writes() const { return writes_; }
  /// Writes of write-after-write queues that became visible before an earlier-issued write of
  /// their queue (out of descriptor/element order): what strong mode forbids.
  std::uint64_t out_of_order() const { return out_of_order_; }

 private:
  struct D {
    Desc d;
    bool legal = false;
    std::uint64_t nelem = 0, seen = 0;
    bool sem_seen = false;
  };
  struct Q {
    bool strong = false;
    std::vector<D> descs;
    unsigned cur = 0;           ///< strong: descriptor being written
    std::uint64_t next = 0;     ///< strong: its next element
    std::uint64_t max_key = 0;  ///< largest (desc, elem) key seen
    bool any = false;
    std::unordered_map<std::uint64_t, std::uint64_t> last;  ///< byte -> key of its last writer
  };
  static std::uint64_t key(unsigned desc, std::uint64_t elem) {
    return (static_cast<std::uint64_t>(desc) << 32) | elem;
  }
  [[noreturn]] void fail(const char* promise, const Write& w, const std::string& why) const;
  Geometry g_;
  std::vector<Q> q_;
  std::uint64_t writes_ = 0, out_of_order_ = 0;
};

}  // namespace trn::dma

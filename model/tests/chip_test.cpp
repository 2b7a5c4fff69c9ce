// Boost.Test units of the chip's model alone (docs/chip.md): the NIC's packets against hand-derived
// encodings and across a wire to a second NIC; kernels moved in HBM; the composed chip
// (trn::chip::Chip through trn::chip::ChipRunner) running two kernels at once on shared HBM, a tile
// handed from core to core with a semaphore, and a collective core's transfers.
#include "chip/chip.hpp"

#include <boost/test/unit_test.hpp>

#include "chip/nic.hpp"
#include "chip/runner.hpp"
#include "kernels/kernels.hpp"
#include "sv/router_pkg.hpp"

using namespace trn;

namespace {

const cfg::Arch& tiny() { return cfg::find("tiny")->arch; }

isa::Program assemble(const std::string& text) { return isa::assemble(text, "test.s", isa::config_defines(tiny())); }

chip::Nic::wr_req_t write_to(unsigned chip_field, std::uint32_t addr, unsigned n, bool acc = false,
                             unsigned esize = 1) {
  return chip::Nic::wr_req_t{.space = false,
                             .col = false,
                             .esize = static_cast<std::uint8_t>(esize),
                             .addr = chip_field << dma::kChipLsb | addr,
                             .n = static_cast<std::uint8_t>(n),
                             .acc = acc};
}

}  // namespace

BOOST_AUTO_TEST_SUITE(chip_units)

/// A write's packet, by hand from docs/chip.md: a head flit (head_t from bit 0, pkt_hdr_t above
/// it, kind FlitHead) and body flits of B = (W - 2) / 8 bytes each, the last a tail.
BOOST_AUTO_TEST_CASE(nic_encodes_a_write_as_docs_chip_says) {
  const chip::Nic nic({.w = 64, .v = 2, .d = 4, .beat_bytes = 16});
  BOOST_TEST(nic.body_bytes() == 7u);
  BOOST_TEST(nic.packet_flits(16) == 4u);  // 7 + 7 + 2 bytes
  Bits data(128);
  for (unsigned b = 0; b < 16; ++b) data.set_slice(8 * b, 8, 0x10 + b);
  const auto wr = write_to(2, 0x001234, 16, true, 4);  // chip 1, accumulate FP32
  const Bits head = nic.tx_flit(wr, false, data, 0, 4, 0);
  BOOST_TEST(head.slice(62, 2) == 1u);  // FlitHead
  BOOST_TEST(head.slice(0, 8) == 1u);   // dst: chip field - 1
  BOOST_TEST(head.slice(8, 8) == 0u);   // src
  BOOST_TEST(head.slice(16, 3) == 4u);  // PktAccWrite
  BOOST_TEST(head.slice(19, 8) == 4u);  // len
  BOOST_TEST(head.slice(29, 24) == 0x001234u);
  BOOST_TEST(head.slice(53, 8) == 16u);  // n
  BOOST_TEST(head.slice(61, 1) == 1u);   // esize4
  const Bits b1 = nic.tx_flit(wr, false, data, 1, 4, 0), b3 = nic.tx_flit(wr, false, data, 3, 4, 0);
  BOOST_TEST(b1.slice(62, 2) == 0u);  // FlitBody
  BOOST_TEST(b1.slice(0, 56) == 0x16151413121110ull);
  BOOST_TEST(b3.slice(62, 2) == 2u);  // FlitTail
  BOOST_TEST(b3.slice(0, 16) == 0x1f1eu);
}

/// Two NICs, the first's injection wired to the second's ejection (credits back): a write, an
/// accumulate and a semaphore arrive in order with their fields and data; a packet for another
/// chip id is dropped and counted.
BOOST_AUTO_TEST_CASE(nic_pair_delivers_writes_accumulates_and_semaphores_in_order) {
  const chip::Nic::Params p{.w = 64, .v = 2, .d = 4, .beat_bytes = 16};
  chip::Nic a(p), b(p);
  chip::Nic::In ai = a.make_in(), bi = b.make_in();
  chip::Nic::Out ao = a.make_out(), bo = b.make_out();
  a.tick(ai);
  b.tick(bi);
  ai.rst_ni = bi.rst_ni = true;
  ai.id_i = 0;
  bi.id_i = 1;
  struct Want {
    std::uint32_t addr;
    unsigned n;
    bool acc, sem;
    std::uint32_t first;
  };
  std::vector<std::pair<chip::Nic::wr_req_t, bool>> send = {{write_to(2, 0x100, 16), false},
                                                            {write_to(2, 0x200, 12, true, 2), false},
                                                            {write_to(3, 0x300, 8), false},
                                                            {write_to(2, 2u << 7 | 5u << 2, 4), true}};
  const std::vector<Want> want = {
      {0x100, 16, false, false, 0}, {0x200, 12, true, false, 1}, {2u << 7 | 5u << 2, 4, false, true, 3}};
  std::size_t next = 0;
  std::vector<Want> got;
  for (unsigned cycle = 0; cycle < 200 && got.size() < want.size(); ++cycle) {
    ai.tx_valid_i = next < send.size();
    if (ai.tx_valid_i) {
      ai.tx_i = send[next].first;
      ai.tx_sem_i = send[next].second;
      ai.tx_data_i = Bits(128);
      for (unsigned k = 0; k < 16; ++k) ai.tx_data_i.set_slice(8 * k, 8, next * 16 + k);
    }
    bi.rx_ready_i = cycle % 3 != 0;  // some back-pressure
    a.eval(ai, ao);
    b.eval(bi, bo);
    // the wire: a's injection into b's ejection, b's ejection credits back to a
    bi.ej_valid_i = ao.inj_valid_o;
    bi.ej_vc_i = ao.inj_vc_o;
    bi.ej_flit_i = ao.inj_flit_o;
    ai.inj_credit_i = bo.ej_credit_o;
    ai.inj_credit_vc_i = bo.ej_credit_vc_o;
    b.eval(bi, bo);
    if (bo.rx_valid_o && bi.rx_ready_i)
      got.push_back({bo.rx_o.addr, bo.rx_o.n, bo.rx_o.acc, bo.rx_sem_o,
                     static_cast<std::uint32_t>(bo.rx_data_o.slice(0, 8)) / 16});
    if (ai.tx_valid_i && ao.tx_ready_o) ++next;
    a.tick(ai);
    b.tick(bi);
  }
  BOOST_REQUIRE(got.size() == want.size());
  for (std::size_t i = 0; i < want.size(); ++i) {
    BOOST_TEST(got[i].addr == want[i].addr);
    BOOST_TEST(got[i].n == want[i].n);
    BOOST_TEST(got[i].acc == want[i].acc);
    BOOST_TEST(got[i].sem == want[i].sem);
    BOOST_TEST(got[i].first == want[i].first);
  }
  b.eval(bi, bo);
  BOOST_TEST(bo.drop_o == 1u);  // the packet for chip 2
}

BOOST_AUTO_TEST_CASE(relocate_moves_a_kernel_and_its_transfers) {
  const kernels::Kernel* k = kernels::find("matmul");
  kernels::Case c = k->make(tiny(), 1, {});
  isa::Program p = kernels::assemble(*k, c, tiny());
  const kernels::Case c0 = c;
  const isa::Program p0 = p;
  kernels::relocate(c, p, 0x8000);
  for (std::size_t i = 0; i < c.inputs.size(); ++i) BOOST_TEST(c.inputs[i].addr == c0.inputs[i].addr + 0x8000);
  for (std::size_t i = 0; i < c.outputs.size(); ++i) BOOST_TEST(c.outputs[i].addr == c0.outputs[i].addr + 0x8000);
  namespace tbl = isa::tbl;
  unsigned moved = 0;
  for (unsigned s = 0; s < 4; ++s)
    for (std::size_t i = 0; i < p.streams[s].size(); ++i) {
      const Bits &w = p.streams[s][i], &w0 = p0.streams[s][i];
      for (auto [space, addr] : {std::pair{tbl::kF_src_space, tbl::kF_src_addr}, {tbl::kF_dst_space, tbl::kF_dst_addr}})
        if (isa::get(w, tbl::kF_op) == 0x40 && isa::get(w, space) == 0) {
          BOOST_TEST(isa::get(w, addr) == isa::get(w0, addr) + 0x8000);
          ++moved;
        } else {
          BOOST_TEST(isa::get(w, addr) == isa::get(w0, addr));
        }
    }
  BOOST_TEST(moved > 0u);
  BOOST_CHECK_THROW(kernels::relocate(c, p, 0xFFFFF0), std::invalid_argument);
}

/// The composed chip alone: two kernels at once, one per core, each in its half of HBM.
BOOST_AUTO_TEST_CASE(two_kernels_run_at_once_on_shared_hbm) {
  const auto prm = chip::Chip::Params::of(tiny(), 1, 1, 1);
  chip::ChipRunner r(prm, dma::MemSystem::Params{4, 40, 2, 0.9, 0.9, 0}, 11);
  const std::uint32_t half = prm.core.core.hbm_bytes / 2;
  const char* names[2] = {"matmul", "softmax"};
  kernels::Case cases[2];
  for (unsigned u = 0; u < 2; ++u) {
    const kernels::Kernel* k = kernels::find(names[u]);
    cases[u] = k->make(tiny(), 7 + u, {});
    isa::Program p = kernels::assemble(*k, cases[u], tiny());
    kernels::relocate(cases[u], p, u * half);
    for (const auto& b : cases[u].inputs)
      std::copy(b.bytes.begin(), b.bytes.end(), r.hbm().image().hbm.begin() + b.addr);
    r.load(u, p);
  }
  r.run(0b11);
  for (unsigned u = 0; u < 2; ++u) {
    BOOST_TEST(kernels::compare(cases[u], r.hbm().image().hbm) == "", names[u]);
    for (const auto& [s, v] : cases[u].sems) BOOST_TEST(r.sem(u, s) == v);
  }
}

/// A tile from core 0 to core 1: core 0's store completes onto core 1's semaphore (dsem.unit = 2),
/// core 1 waits for it and copies the tile on; and the collective core (unit 2) moves bytes with
/// its completions on core 0's semaphore.
BOOST_AUTO_TEST_CASE(cores_and_the_collective_core_hand_data_on_with_semaphores) {
  const auto prm = chip::Chip::Params::of(tiny(), 1, 1, 1);
  chip::ChipRunner r(prm, dma::MemSystem::Params{4, 40, 2, 0.9, 0.9, 0}, 3);
  auto& h = r.hbm().image().hbm;
  for (unsigned i = 0; i < 256; ++i) h[0x1000 + i] = static_cast<std::uint8_t>(i * 7 + 1);
  r.load(0, assemble(".sem loaded\n.stream sync\n"
                     " dma_start queue=0 src=hbm:0x1000 dst=sbuf:sb(0, 0) len=256 dsem=loaded+=1\n"
                     " dma_start engine=1 queue=0 src=sbuf:sb(0, 0) dst=hbm:0x3000 len=256 dsem=0+=1 dsem.unit=2 "
                     "wait=loaded>=1\n end\n"));
  r.load(1, assemble(".sem handed, loaded, out\n.stream sync\n"
                     " dma_start queue=0 src=hbm:0x3000 dst=sbuf:sb(1, 0) len=256 dsem=loaded+=1 wait=handed>=1\n"
                     " dma_start queue=0 src=sbuf:sb(1, 0) dst=hbm:0x5000 len=256 dsem=out+=1 wait=loaded>=1\n"
                     " sem_wait wait=out>=1\n end\n"));
  r.in().sem_ext_en_i = true;
  r.run(0b11);
  for (unsigned i = 0; i < 256; ++i) BOOST_TEST_REQUIRE(h[0x5000 + i] == h[0x1000 + i]);
  BOOST_TEST(r.sem(1, 0) == 1u);
  r.load(2, assemble(".stream sync\n dma_start queue=0 src=hbm:0x1000 dst=hbm:0x7000 len=100 dsem=9+=2 dsem.unit=1\n"
                     " end\n"));
  r.run(0b100);
  for (unsigned i = 0; i < 100; ++i) BOOST_TEST_REQUIRE(h[0x7000 + i] == h[0x1000 + i]);
  BOOST_TEST(r.sem(0, 9) == 2u);
}

BOOST_AUTO_TEST_SUITE_END()

#include "gpsimd/operators.hpp"

#include <fmt/format.h>

#include <algorithm>
#include <bit>
#include <cstring>
#include <fstream>
#include <iterator>
#include <stdexcept>

#include "trn_config.hpp"

extern "C" {
// the host builds of kernels/gpsimd/*.c (kernels/gpsimd/CMakeLists.txt) and their memory image
extern std::uint8_t* gp_host_tcm;
void scan_main(std::uint32_t proc, std::uint32_t args);
void topk_main(std::uint32_t proc, std::uint32_t args);
void gather_main(std::uint32_t proc, std::uint32_t args);
void hardswish_main(std::uint32_t proc, std::uint32_t args);
void sbuf_hardswish_main(std::uint32_t proc, std::uint32_t args);
std::uint8_t* gp_host_tcm = nullptr;
std::uint8_t* gp_host_sbuf = nullptr;
std::uint32_t gp_host_sbuf_bytes = 0;
std::uint32_t gp_host_sems[32] = {};
}

namespace trn::gpsimd {

namespace {

constexpr std::uint32_t kStack = 512;  // bytes kept free below the top of local memory for the stack

/// A case's data area: after the code, 64-aligned, growing up; the stack's room kept free.
struct Layout {
  OperatorCase& c;
  std::uint32_t next;
  std::uint32_t take(std::uint32_t bytes) {
    const std::uint32_t at = next;
    next = (next + bytes + 63) / 64 * 64;
    if (next + kStack > c.tcm_bytes)
      throw std::invalid_argument(
          fmt::format("GpSimd operator {}: {} bytes of local memory are too few for its data", c.name, c.tcm_bytes));
    return at;
  }
  std::uint32_t room() const { return c.tcm_bytes > next + kStack ? c.tcm_bytes - next - kStack : 0; }
  void put32(std::uint32_t addr, std::uint32_t v) {
    for (unsigned i = 0; i < 4; ++i) c.image[addr + i] = static_cast<std::uint8_t>(v >> 8 * i);
  }
  void put_f32(std::uint32_t addr, float v) { put32(addr, std::bit_cast<std::uint32_t>(v)); }
  std::uint32_t args(const std::vector<std::uint32_t>& words) {
    const std::uint32_t at = take(4 * static_cast<std::uint32_t>(words.size()));
    for (std::size_t i = 0; i < words.size(); ++i) put32(at + 4 * static_cast<std::uint32_t>(i), words[i]);
    return at;
  }
};

/// A value in [lo, hi] on a grid of (hi - lo) / 1000: finite, exactly representable.
float grid(std::mt19937_64& rng, float lo, float hi) {
  return lo + (hi - lo) * static_cast<float>(rng() % 1001) / 1000.0f;
}

using HostFn = void (*)(std::uint32_t, std::uint32_t);
struct Op {
  const char* name;
  HostFn host;
  void (*build)(Layout&, std::mt19937_64&, std::uint32_t);
};

// rows x n and the largest n that fits `bytes_per` bytes an element (n a multiple of 4, rows <= 4)
std::pair<std::uint32_t, std::uint32_t> shape(const Layout& l, std::uint32_t bytes_per, std::uint32_t max_elements) {
  const std::uint32_t fit = std::min((l.room() - 128) / bytes_per, max_elements);
  const std::uint32_t rows = fit >= 64 ? 4 : 1, n = fit / rows / 4 * 4;
  if (n < 4) throw std::invalid_argument("GpSimd operator: no room for four elements");
  return {rows, n};
}

void build_scan(Layout& l, std::mt19937_64& rng, std::uint32_t max) {
  const auto [rows, n] = shape(l, 8, max);
  const std::uint32_t in = l.take(4 * rows * n), out = l.take(4 * rows * n);
  for (std::uint32_t i = 0; i < rows * n; ++i) l.put_f32(in + 4 * i, grid(rng, -2.0f, 2.0f));
  l.c.args = l.args({in, out, rows, n});
  l.c.elements = rows * n;
  l.c.outputs = {{"out", out, 4 * rows * n}};
}

void build_topk(Layout& l, std::mt19937_64& rng, std::uint32_t max) {
  const auto [rows, n0] = shape(l, 4 + 1, max);
  const std::uint32_t n = n0, k = std::min<std::uint32_t>(8, n);
  const std::uint32_t in = l.take(4 * rows * n), val = l.take(4 * rows * k), idx = l.take(4 * rows * k);
  // few distinct values, so that ties (equal values: the lower index first) come up
  for (std::uint32_t i = 0; i < rows * n; ++i)
    l.put_f32(in + 4 * i, static_cast<float>(static_cast<int>(rng() % 41) - 20) * 0.25f);
  l.c.args = l.args({in, val, idx, rows, n, k});
  l.c.elements = rows * n;
  l.c.outputs = {{"values", val, 4 * rows * k}, {"indices", idx, 4 * rows * k}};
}

void build_gather(Layout& l, std::mt19937_64& rng, std::uint32_t max) {
  const auto [rows, n] = shape(l, 12, max);
  const std::uint32_t m = n, in = l.take(4 * rows * n), ix = l.take(4 * rows * m), out = l.take(4 * rows * m);
  for (std::uint32_t i = 0; i < rows * n; ++i) l.put_f32(in + 4 * i, grid(rng, -100.0f, 100.0f));
  // an eighth of the indices past the row
  for (std::uint32_t i = 0; i < rows * m; ++i) l.put32(ix + 4 * i, static_cast<std::uint32_t>(rng() % (n + n / 8)));
  l.c.args = l.args({in, ix, out, rows, n, m, 0xFFFFFFFFu});
  l.c.elements = rows * m;
  l.c.outputs = {{"out", out, 4 * rows * m}, {"past the row", l.c.args + 24, 4}};
}

void build_hardswish(Layout& l, std::mt19937_64& rng, std::uint32_t max) {
  const auto [rows, n] = shape(l, 8, max);
  const std::uint32_t count = rows * n, in = l.take(4 * count), out = l.take(4 * count);
  // [-5, 5]: each of the three pieces, and -3 and 3 exactly
  for (std::uint32_t i = 0; i < count; ++i)
    l.put_f32(in + 4 * i, i % 16 == 0 ? -3.0f : i % 16 == 1 ? 3.0f : grid(rng, -5.0f, 5.0f));
  l.c.args = l.args({in, out, count});
  l.c.elements = count;
  l.c.outputs = {{"out", out, 4 * count}};
}

const std::vector<Op>& ops() {
  static const std::vector<Op> v{{"gather", gather_main, build_gather},
                                 {"hardswish", hardswish_main, build_hardswish},
                                 {"scan", scan_main, build_scan},
                                 {"topk", topk_main, build_topk}};
  return v;
}

}  // namespace

const std::vector<std::string>& operator_names() {
  static const std::vector<std::string> names = [] {
    std::vector<std::string> n;
    for (const Op& o : ops()) n.emplace_back(o.name);
    return n;
  }();
  return names;
}

std::vector<std::uint8_t> operator_code(const std::string& name, std::uint32_t tcm_bytes) {
  const char* cfg = nullptr;
  for (const auto& c : cfg::kConfigs)
    if (c.arch.gpsimd_tcm_bytes == tcm_bytes) cfg = c.name.data();
  if (!cfg)
    throw std::invalid_argument(
        fmt::format("GpSimd operator {}: no configuration has {} bytes of local memory", name, tcm_bytes));
  const std::string path = fmt::format("{}/{}/{}.bin", TRN_GPSIMD_DIR, cfg, name);
  std::ifstream f(path, std::ios::binary);
  if (!f)
    throw std::invalid_argument(
        fmt::format("GpSimd operator {}: {}: cannot read (build gpsimd_operators)", name, path));
  return {std::istreambuf_iterator<char>(f), std::istreambuf_iterator<char>()};
}

OperatorCase operator_case(const std::string& name, std::uint32_t tcm_bytes, std::mt19937_64& rng,
                           std::uint32_t max_elements) {
  const auto it = std::find_if(ops().begin(), ops().end(), [&](const Op& o) { return name == o.name; });
  if (it == ops().end())
    throw std::invalid_argument(
        fmt::format("GpSimd operator '{}': unknown (kernels/gpsimd has {})", name, fmt::join(operator_names(), ", ")));
  OperatorCase c;
  c.name = name;
  c.tcm_bytes = tcm_bytes;
  const std::vector<std::uint8_t> code = operator_code(name, tcm_bytes);
  if (code.size() + kStack > tcm_bytes)
    throw std::invalid_argument(fmt::format("GpSimd operator {}: its {} bytes of code leave no room in {} bytes", name,
                                            code.size(), tcm_bytes));
  c.image.assign(tcm_bytes, 0);
  std::copy(code.begin(), code.end(), c.image.begin());
  Layout l{c, static_cast<std::uint32_t>((code.size() + 63) / 64 * 64)};
  it->build(l, rng, max_elements);
  // the reference: the host build on a copy of the image
  c.expected = c.image;
  gp_host_tcm = c.expected.data();
  it->host(0, c.args);
  gp_host_tcm = nullptr;
  // every output region written (an operator that writes nothing would equal itself everywhere)
  for (const auto& o : c.outputs)
    if (std::equal(c.image.begin() + o.addr, c.image.begin() + o.addr + o.bytes, c.expected.begin() + o.addr))
      throw std::logic_error(fmt::format("GpSimd operator {}: the host build left its {} as it was", name, o.what));
  return c;
}

const std::vector<std::string>& sbuf_operator_names() {
  static const std::vector<std::string> names{"sbuf_hardswish"};
  return names;
}

SbufCase sbuf_operator_case(const std::string& name, std::uint32_t tcm_bytes, unsigned parts, std::uint32_t part_bytes,
                            unsigned procs, std::mt19937_64& rng, std::uint32_t max_elements, unsigned sem) {
  if (name != "sbuf_hardswish")
    throw std::invalid_argument(fmt::format("GpSimd SBUF operator '{}': unknown (kernels/gpsimd has {})", name,
                                            fmt::join(sbuf_operator_names(), ", ")));
  if (procs == 0 || parts % procs != 0 || sem >= 32)
    throw std::invalid_argument(
        fmt::format("GpSimd SBUF operator {}: {} processors on {} partitions, semaphore {}", name, procs, parts, sem));
  SbufCase c;
  c.name = name;
  c.parts = parts;
  c.procs = procs;
  c.part_bytes = part_bytes;
  c.sem = sem;
  const std::vector<std::uint8_t> code = operator_code(name, tcm_bytes);
  if (code.size() + kStack + 64 > tcm_bytes)
    throw std::invalid_argument(fmt::format("GpSimd operator {}: its {} bytes of code leave no room in {} bytes", name,
                                            code.size(), tcm_bytes));
  // the rows: BF16 inputs at 0 of each partition, outputs after them, 64-aligned
  const std::uint32_t count = std::min<std::uint32_t>(max_elements, part_bytes / 4 / 32 * 32);
  if (count == 0) throw std::invalid_argument(fmt::format("GpSimd operator {}: no room in SBUF", name));
  c.in = 0;
  c.out = (2 * count + 63) / 64 * 64;
  c.bytes = 2 * count;
  c.elements = count * parts;
  c.image.assign(tcm_bytes, 0);
  std::copy(code.begin(), code.end(), c.image.begin());
  c.args = static_cast<std::uint32_t>((code.size() + 63) / 64 * 64);
  const std::uint32_t words[] = {parts / procs, c.in, c.out, count, sem};
  for (unsigned i = 0; i < 5; ++i)
    for (unsigned k = 0; k < 4; ++k) c.image[c.args + 4 * i + k] = static_cast<std::uint8_t>(words[i] >> 8 * k);
  // BF16 inputs in [-5, 5] (each of the three pieces; -3 and 3 exactly), the rest of SBUF random
  c.sbuf.resize(static_cast<std::size_t>(parts) * part_bytes);
  for (auto& b : c.sbuf) b = static_cast<std::uint8_t>(rng());
  for (unsigned p = 0; p < parts; ++p)
    for (std::uint32_t i = 0; i < count; ++i) {
      const float x = i % 16 == 0 ? -3.0f : i % 16 == 1 ? 3.0f : grid(rng, -5.0f, 5.0f);
      const auto h = static_cast<std::uint16_t>(std::bit_cast<std::uint32_t>(x) >> 16);
      c.sbuf[p * part_bytes + c.in + 2 * i] = static_cast<std::uint8_t>(h);
      c.sbuf[p * part_bytes + c.in + 2 * i + 1] = static_cast<std::uint8_t>(h >> 8);
    }
  // the reference: the host build as each processor, on a copy of SBUF
  c.expected = c.sbuf;
  std::vector<std::uint8_t> tcm;
  gp_host_sbuf = c.expected.data();
  gp_host_sbuf_bytes = part_bytes;
  std::fill(std::begin(gp_host_sems), std::end(gp_host_sems), 0u);
  for (unsigned i = 0; i < procs; ++i) {
    tcm = c.image;
    gp_host_tcm = tcm.data();
    sbuf_hardswish_main(i, c.args);
  }
  gp_host_tcm = gp_host_sbuf = nullptr;
  // each processor adds 1 to the case's semaphore when done, and touches no other
  for (unsigned s = 0; s < 32; ++s)
    if (gp_host_sems[s] != (s == sem ? procs : 0u))
      throw std::logic_error(fmt::format("GpSimd operator {}: the host build added {} to semaphore {} ({} expected)",
                                         name, gp_host_sems[s], s, s == sem ? procs : 0u));
  for (unsigned p = 0; p < parts; ++p)
    if (std::equal(c.sbuf.begin() + p * part_bytes + c.out, c.sbuf.begin() + p * part_bytes + c.out + c.bytes,
                   c.expected.begin() + p * part_bytes + c.out))
      throw std::logic_error(fmt::format("GpSimd operator {}: the host build left partition {}'s output", name, p));
  return c;
}

std::string sbuf_program(const SbufCase& c, std::uint32_t hx, std::uint32_t hy) {
  if (c.sem != 1) throw std::invalid_argument(fmt::format("GpSimd operator {}: its semaphore is not 1", c.name));
  return fmt::format(R"(
.sem x_in, ops, g, out
.stream sync
.for p = 0, PARTS
    dma_start queue=0 src=hbm:{hx}+{n}*p dst=sbuf:sb(p, {in}) len={n} stype=bytes dtype=bytes dsem=x_in+=1
.endfor
.for p = 0, PARTS
    dma_start queue=1%QUEUES src=sbuf:sb(p, {out}) dst=hbm:{hy}+{n}*p len={n} stype=bytes dtype=bytes dsem=out+=1 wait=g>=1
.endfor
    sem_wait wait=out>=PARTS
    end
.stream gpsimd
    gpsimd_run entry=0 args={args} wait=x_in>=PARTS post=g+=1
    end
)",
                     fmt::arg("hx", hx), fmt::arg("hy", hy), fmt::arg("n", c.bytes), fmt::arg("in", c.in),
                     fmt::arg("out", c.out), fmt::arg("args", c.args));
}

}  // namespace trn::gpsimd

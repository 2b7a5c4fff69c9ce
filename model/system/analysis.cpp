// The graph analysis of a composed system (docs/system.md): its routes walked for length, latency
// and the channel-dependency check of deadlock freedom, and its bisection by max flow over the
// halvings its topology family names.
#include <fmt/format.h>

#include <algorithm>
#include <limits>
#include <queue>
#include <string>
#include <vector>

#include "system/family.hpp"
#include "system/system.hpp"

namespace trn::system {

// ---------------------------------------------------------------- routes and deadlock freedom

RouteStats route_stats(const System& s, unsigned max_all, unsigned sample, const RouteFn& fn) {
  RouteStats st;
  const unsigned n = s.chips();
  std::vector<unsigned> sources;
  if (n <= max_all) {
    for (unsigned c = 0; c < n; ++c) sources.push_back(c);
  } else {
    st.sampled = true;
    for (unsigned i = 0; i < sample; ++i) sources.push_back(static_cast<unsigned>(std::uint64_t{i} * n / sample));
  }
  st.sources = sources.size();
  // channel-dependency graph over (channel, VC class)
  const std::uint64_t nch = 2 * s.links().size();
  // adjacency of (channel, VC class) nodes, each list sorted: a node has at most the ports of the
  // node its channel enters as successors, found by binary search, inserted rarely
  std::vector<std::vector<std::uint32_t>> adj(2 * nch);
  std::uint64_t ndeps = 0;
  double links_sum = 0, sw_sum = 0, lat_sum = 0;
  st.keys = s.route_keys();
  for (unsigned a : sources)
    for (unsigned b = 0; b < n; ++b)
      for (unsigned key = 0; key < st.keys; ++key) {
        if (a == b) continue;
        const std::vector<Hop> r = fn ? fn(a, b, key) : s.route(a, b, key);
        ++st.pairs;
        st.diameter = std::max(st.diameter, static_cast<unsigned>(r.size()));
        links_sum += static_cast<double>(r.size());
        for (const Hop& h : r)
          if (!s.nodes()[s.channel_to(h.channel)].chip()) sw_sum += 1;
        lat_sum += s.route_latency_ns(r);
        for (std::size_t i = 1; i < r.size(); ++i) {
          const auto from = static_cast<std::uint32_t>(2 * r[i - 1].channel + r[i - 1].vc_class);
          const auto to = static_cast<std::uint32_t>(2 * r[i].channel + r[i].vc_class);
          auto& out = adj[from];
          const auto at = std::lower_bound(out.begin(), out.end(), to);
          if (at == out.end() || *at != to) {
            out.insert(at, to);
            ++ndeps;
          }
        }
      }
  if (st.pairs) {
    st.mean_links = links_sum / static_cast<double>(st.pairs);
    st.mean_switches = sw_sum / static_cast<double>(st.pairs);
    st.mean_latency_ns = lat_sum / static_cast<double>(st.pairs);
  }
  // cycle check: iterative depth-first search with colours
  std::vector<bool> used(2 * nch, false);
  for (std::uint32_t from = 0; from < 2 * nch; ++from)
    for (std::uint32_t to : adj[from]) used[from] = used[to] = true;
  st.dependencies = static_cast<unsigned>(ndeps);
  st.channels = static_cast<unsigned>(std::count(used.begin(), used.end(), true));
  std::vector<std::uint8_t> colour(2 * nch, 0);  // 0 new, 1 on the stack, 2 done
  std::vector<std::uint32_t> parent(2 * nch, 0);
  st.deadlock_free = true;
  auto name = [&](std::uint32_t v) {
    const unsigned ch = v / 2;
    const Link& l = s.links()[ch / 2];
    const unsigned from = ch % 2 ? l.b : l.a, to = ch % 2 ? l.a : l.b;
    return fmt::format("{}->{} vc{}", s.nodes()[from].label, s.nodes()[to].label, v % 2);
  };
  for (std::uint32_t root = 0; root < 2 * nch && st.deadlock_free; ++root) {
    if (colour[root] || !used[root]) continue;
    std::vector<std::pair<std::uint32_t, std::size_t>> stack{{root, 0}};
    colour[root] = 1;
    while (!stack.empty() && st.deadlock_free) {
      auto& [v, i] = stack.back();
      if (i < adj[v].size()) {
        const std::uint32_t w = adj[v][i++];
        if (colour[w] == 1) {  // a cycle: w .. v -> w
          st.deadlock_free = false;
          std::vector<std::string> names{name(w)};
          for (std::uint32_t x = v; x != w; x = parent[x]) names.insert(names.begin() + 1, name(x));
          for (const auto& nm : names) st.cycle += (st.cycle.empty() ? "" : " => ") + nm;
        } else if (colour[w] == 0) {
          colour[w] = 1;
          parent[w] = v;
          stack.emplace_back(w, 0);
        }
      } else {
        colour[v] = 2;
        stack.pop_back();
      }
    }
  }
  return st;
}

// ---------------------------------------------------------------- bisection (max flow)

namespace {

/// Dinic's max flow over the system's channels, from a super source feeding the chips of one half
/// to a super sink fed by the other half.
double max_flow(const System& s, const std::vector<bool>& in_a) {
  struct Arc {
    std::uint32_t to;
    double cap;
  };
  const unsigned nn = static_cast<unsigned>(s.nodes().size()), src = nn, snk = nn + 1;
  std::vector<Arc> arcs;
  std::vector<std::vector<std::uint32_t>> out(nn + 2);
  auto add = [&](unsigned a, unsigned b, double cap) {
    out[a].push_back(static_cast<std::uint32_t>(arcs.size()));
    arcs.push_back(Arc{b, cap});
    out[b].push_back(static_cast<std::uint32_t>(arcs.size()));
    arcs.push_back(Arc{a, 0});
  };
  for (const Link& l : s.links()) {
    const double g = s.link_classes()[l.cls].gbps;
    add(l.a, l.b, g);
    add(l.b, l.a, g);
  }
  const double inf = std::numeric_limits<double>::infinity();
  for (unsigned c = 0; c < s.chips(); ++c) {
    if (in_a[c])
      add(src, c, inf);
    else
      add(c, snk, inf);
  }
  double flow = 0;
  std::vector<int> level(nn + 2);
  std::vector<std::size_t> next(nn + 2);
  constexpr double eps = 1e-9;
  for (;;) {
    std::fill(level.begin(), level.end(), -1);
    std::queue<unsigned> q;
    level[src] = 0;
    q.push(src);
    while (!q.empty()) {
      const unsigned v = q.front();
      q.pop();
      for (std::uint32_t a : out[v])
        if (arcs[a].cap > eps && level[arcs[a].to] < 0) {
          level[arcs[a].to] = level[v] + 1;
          q.push(arcs[a].to);
        }
    }
    if (level[snk] < 0) break;
    std::fill(next.begin(), next.end(), 0);
    // augmenting paths by iterative depth-first search in the level graph
    for (;;) {
      std::vector<std::uint32_t> path;  // arcs
      unsigned v = src;
      while (v != snk) {
        bool moved = false;
        for (; next[v] < out[v].size(); ++next[v]) {
          const std::uint32_t a = out[v][next[v]];
          if (arcs[a].cap > eps && level[arcs[a].to] == level[v] + 1) {
            path.push_back(a);
            v = arcs[a].to;
            moved = true;
            break;
          }
        }
        if (moved) continue;
        if (path.empty()) break;
        level[v] = -1;  // dead end
        const std::uint32_t back = path.back();
        path.pop_back();
        v = arcs[back ^ 1].to;
        ++next[v];
      }
      if (v != snk) break;
      double push = inf;
      for (std::uint32_t a : path) push = std::min(push, arcs[a].cap);
      for (std::uint32_t a : path) {
        arcs[a].cap -= push;
        arcs[a ^ 1].cap += push;
      }
      flow += push;
    }
  }
  return flow;
}

}  // namespace

Bisection bisection(const System& s) {
  Bisection best{std::numeric_limits<double>::infinity(), ""};
  for (const Family::Halving& h : s.family().halvings()) {
    std::vector<bool> a(s.chips());
    for (unsigned c = 0; c < s.chips(); ++c) a[c] = h.in_a(s.nodes()[c].at);
    const double f = max_flow(s, a);
    if (f < best.gbps) best = Bisection{f, h.name};
  }
  return best;
}

}  // namespace trn::system

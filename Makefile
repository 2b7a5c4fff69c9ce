# trn-rtl — top-level commands. `make help` lists them.
SHELL := /bin/bash
BUILD  ?= build
LIST   ?= merge
CONFIG ?=
JOBS   ?= $(shell nproc)
SEEDS  ?=
TEST   ?=
SEED   ?=
COVERAGE ?=
LAUNCHER ?=
PY     ?= python3
UNIT   ?=
MAX    ?=

BOOTSTRAP := scripts/bootstrap
TOPS := $(shell sed -n 's/^trn_bench.\([a-z_0-9]*\) .*/\1/p' tb/CMakeLists.txt)
# the tops the smoke list runs: what make test builds
SMOKE_TOPS = $(shell $(PY) -c 'import sys; sys.path.insert(0, "scripts"); from trnlib import lists; from pathlib import Path; r = Path("."); print(" ".join(sorted({e.bench for e in lists.load(r / "regressions/smoke.toml", lists.known_benches(r), set(lists.known_configs(r)))})))')

# the tiny configuration made if the build directory lacks it; the named targets built (with ccache)
CONFIGURE_TINY = $(PY) -c 'import sys; sys.path.insert(0, "scripts"); from trnlib.build import ensure_configured; from pathlib import Path; ensure_configured(Path("$(BUILD)").resolve(), ["tiny"])'
BUILD_TARGETS = $(PY) -c 'import sys; sys.path.insert(0, "scripts"); from trnlib.build import build_targets; from pathlib import Path; build_targets(Path("$(BUILD)").resolve(), sys.argv[1:], $(JOBS))'

.PHONY: help bootstrap configure build test regress wave lint bench cocotb synth formal mutate clean

help:
	@echo "trn-rtl make targets"
	@echo "  make regress [LIST=merge|smoke|full] [CONFIG=tiny|small|full] [JOBS=n] [SEEDS=n] [COVERAGE=1]"
	@echo "                  build once per configuration, run every test of a list over many seeds (default: merge, small)"
	@echo "  make regress LAUNCHER=slurm  the same, each run a Slurm job (TRN_SLURM_PARTITION/TIME/MEM/CPUS; README)"
	@echo "  make test       what CI runs: Boost.Test units, the smoke regression (tiny), runner self-tests"
	@echo "  make wave TEST=<name> SEED=<n> [CONFIG=..]  rerun one test with FST waves, open GTKWave"
	@echo "  make lint       every RTL top through Verilator (-Wall; waivers rtl/lint.vlt) and slang (rtl/lint_slang.txt);"
	@echo "                  the C++ sources against .clang-format"
	@echo "  make cocotb [TEST=name]  the cocotb 1.8 suite (tb/cocotb) on Verilator, each test also on a wrong DUT"
	@echo "  make bench [TOP='a b']  simulation speed (lockstep/waves on/off), figures and build time per RTL top"
	@echo "  make synth [CONFIG=tiny|small] [TOP='a b']  Yosys synthesis of every RTL top: cells, flip-flops, memories,"
	@echo "                  transistors per unit (build/synth/report.md); fails on latches, loops, multiple drivers"
	@echo "  make formal [ONLY=a,b]  the RTL's key rules proved with SymbiYosys (k-induction, bmc), each also shown"
	@echo "                  failing on a mutated copy of its unit; then every RTL assertion shown catching a"
	@echo "                  mutant of its unit (builds the core and NeuronCore benches; not with ONLY) (docs/formal.md)"
	@echo "  make mutate [UNIT=a,b] [LIST=merge] [MAX=n]  mutants of the RTL (operators, constants, conditions,"
	@echo "                  enables, case arms) run against the list's tests in tiny: kill rate per unit, the"
	@echo "                  survivors with their diffs (build/mutate/report.md; docs/coverage.md)"
	@echo "  make build      configure and build everything (TRN_CONFIGS from the cache, default tiny;small)"
	@echo "  make clean      remove $(BUILD)/"
	@echo "  make bootstrap  check the toolchain; install missing Debian packages when root"

bootstrap:
	@$(BOOTSTRAP)

# the proofs, then every assertion shown catching its mutant (the core and NeuronCore cases too;
# not with ONLY, which names proofs)
formal: bootstrap
	$(PY) scripts/formal --self-test --build-dir $(BUILD) $(if $(ONLY),--only $(ONLY))
ifeq ($(ONLY),)
	@$(CONFIGURE_TINY)
	@$(BUILD_TARGETS) \
	  $$($(PY) scripts/tests/test_assertions.py --all --benches | sed 's/\(.*\)/tb_\1_tiny/')
	TRN_BUILD_DIR=$(abspath $(BUILD)) $(PY) scripts/tests/test_assertions.py --all
endif

# the tiny benches the units' tests run on, built first (scripts/mutate builds each again on its mutants)
mutate: bootstrap
	@$(CONFIGURE_TINY)
	@$(BUILD_TARGETS) \
	  $$($(PY) scripts/mutate --benches $(if $(UNIT),--unit $(UNIT)) | sed 's/\(.*\)/tb_\1_tiny/')
	$(PY) scripts/mutate --build-dir $(BUILD) -j $(JOBS) --list $(LIST) $(if $(UNIT),--unit $(UNIT)) $(if $(MAX),--max $(MAX))

$(BUILD)/CMakeCache.txt: | bootstrap
	cmake -S . -B $(BUILD) "-DTRN_CONFIGS=tiny;small"

configure: bootstrap $(BUILD)/CMakeCache.txt

build: configure
	cmake --build $(BUILD) -j $(JOBS) -- -k || cmake --build $(BUILD) -j $(JOBS)

# make test needs only the tiny benches: on a fresh build directory it configures tiny alone (each
# configuration's tops are verilated at configure time); make regress adds small when it needs it
test: bootstrap
	@$(CONFIGURE_TINY)
	@# one make for every target, a second build if Verilator's file list changed (scripts/trnlib/build.py)
	@$(BUILD_TARGETS) \
	  model_tests harness_tests trnsim $(addsuffix _tiny,$(addprefix tb_,$(SMOKE_TOPS)))
	@set -o pipefail; cd $(BUILD) && ctest -j $(JOBS) --output-on-failure 2>&1 | tee ctest.log; rc=$$?; \
	  p=$$(grep -cE '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .* Passed' ctest.log); \
	  f=$$(grep -cE '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .*(\*\*\*Failed|\*\*\*Exception|\*\*\*Timeout|Not Run)' ctest.log); \
	  k=$$(grep -cE '^ *[0-9]+/[0-9]+ Test +#[0-9]+: .*\*\*\*Skipped' ctest.log); \
	  s=$$(grep -h '^regress: .* passed' regress/ctest-smoke/report.md 2>/dev/null | tail -n1); \
	  [ -n "$$s" ] && echo "smoke regression runs: $${s#regress: }"; \
	  echo "make test: $$p passed, $$f failed, $$k skipped"; exit $$rc

regress: bootstrap
	$(PY) scripts/regress --list $(LIST) -j $(JOBS) --build-dir $(BUILD) $(if $(CONFIG),--config $(CONFIG)) $(if $(SEEDS),--seeds $(SEEDS)) $(if $(filter 1,$(COVERAGE)),--coverage) $(if $(LAUNCHER),--launcher $(LAUNCHER))

wave: bootstrap
	@if [ -z "$(TEST)" ] || [ -z "$(SEED)" ]; then echo "usage: make wave TEST=<name> SEED=<n> [CONFIG=..] [LIST=..]" >&2; exit 2; fi
	$(PY) scripts/wave --test $(TEST) --seed $(SEED) --build-dir $(BUILD) $(if $(CONFIG),--config $(CONFIG)) $(if $(filter-out smoke,$(LIST)),--list $(LIST))

lint: bootstrap
	$(PY) scripts/lint

cocotb: bootstrap
	$(PY) scripts/cocotb --selftest --build-dir $(BUILD) $(if $(TEST),--test $(TEST))

synth: configure
	$(PY) scripts/synth --build-dir $(BUILD) --config $(or $(CONFIG),tiny) $(foreach t,$(TOP),--top $(t)) -j $(JOBS)

bench: bootstrap
	$(PY) scripts/bench --build-dir $(BUILD) $(if $(CONFIG),--config $(CONFIG)) $(foreach t,$(TOP),--top $(t))

clean:
	rm -rf $(BUILD)

#!/usr/bin/env python3
"""Self-tests of scripts/regress and scripts/wave (run by CTest on the tiny benches).

- bad input (unknown list, malformed TOML, unknown bench / test / configuration, duplicate test)
  exits 2 with a one-line error naming the file and line;
- a deliberately wrong model (LOCKSTEP_INJECT) makes the regression exit 1 with a bucketed
  failure, a wave rerun that shows the same failure, and a reproduce command that, pasted into a
  shell, fails again with the same mismatch at the same cycle;
- make wave's script writes an FST that fst2vcd reads back, with a .gtkw whose signals exist.
"""
import os
import re
import subprocess
import sys
import tempfile
import unittest
from pathlib import Path

ROOT = Path(__file__).resolve().parents[2]
BUILD = Path(os.environ.get("TRN_BUILD_DIR", ROOT / "build"))
REGRESS = [sys.executable, str(ROOT / "scripts" / "regress"), "--no-build", "--build-dir", str(BUILD),
           "--config", "tiny", "-j", "2", "--seed", "7"]


def run(args, **kw):
    return subprocess.run(args, capture_output=True, text=True, **kw)


class RegressInput(unittest.TestCase):
    def setUp(self):
        self.tmp = tempfile.TemporaryDirectory()
        self.d = Path(self.tmp.name)

    def tearDown(self):
        self.tmp.cleanup()

    def regress_list(self, text):
        p = self.d / "t.toml"
        p.write_text(text)
        return run(REGRESS + ["--list", str(p), "--out", str(self.d / "out")])

    def assert_bad(self, r, *needles):
        self.assertEqual(r.returncode, 2, r.stdout + r.stderr)
        err = r.stderr.strip().splitlines()
        self.assertEqual(len(err), 1, r.stderr)
        for n in needles:
            self.assertIn(n, err[0])

    def test_unknown_list(self):
        self.assert_bad(run(REGRESS + ["--list", "no_such_list"]), "no test list 'no_such_list'")

    def test_malformed_toml(self):
        self.assert_bad(self.regress_list('[[test]]\nname = "x\n'), "t.toml", "malformed TOML", "line 2")

    def test_unknown_bench(self):
        r = self.regress_list('[[test]]\nname = "a"\nbench = "stream_fifo"\n\n[[test]]\nname = "b"\nbench = "nope"\n')
        self.assert_bad(r, "t.toml:5:", "unknown bench 'nope'")

    def test_unknown_testcase(self):
        r = self.regress_list('[[test]]\nname = "a.no_such_test"\nbench = "stream_fifo"\n')
        self.assert_bad(r, "t.toml:1:", "no test 'no_such_test'")

    def test_unknown_config(self):
        r = self.regress_list('[[test]]\nname = "a.random_traffic"\nbench = "stream_fifo"\nconfigs = ["huge"]\n')
        self.assert_bad(r, "t.toml:1:", "unknown configuration 'huge'")
        self.assert_bad(run(REGRESS + ["--config", "huge"]), "unknown configuration 'huge'")

    def test_duplicate_and_unknown_key(self):
        r = self.regress_list('[[test]]\nname = "a"\nbench = "stream_fifo"\n[[test]]\nname = "a"\nbench = "stream_fifo"\n')
        self.assert_bad(r, "t.toml:4:", "already defined")
        r = self.regress_list('[[test]]\nname = "a"\nbench = "stream_fifo"\nseed = 3\n')
        self.assert_bad(r, "t.toml:1:", "unknown key(s) ['seed']")

    def test_bench_rejects_bad_settings(self):
        exe = str(BUILD / "bin" / "tb_stream_fifo_tiny")
        for env, needle in [({"TESTCASE": "nope"}, "no test 'nope'"), ({"RANDOM_SEED": "x1"}, "RANDOM_SEED"),
                            ({"LOCKSTEP_INJECT": "pop_data_o"}, "LOCKSTEP_INJECT"),
                            # an injection that cannot happen is a usage error, not a pass
                            ({"TESTCASE": "random_traffic", "LOCKSTEP_INJECT": "pop_data_x@50"},
                             "is not an output the model or a probe compares on stream_fifo (the closest: 'pop_data_o')"),
                            ({"TESTCASE": "random_traffic", "LOCKSTEP_INJECT": "pop_data_o@99999999"},
                             "before cycle 99999999: nothing was injected"),
                            ({"LOCKSTEP": "0", "LOCKSTEP_INJECT": "pop_data_o@5"}, "LOCKSTEP=0 runs no model"),
                            ({"TOPLEVEL": "rr_arbiter"}, "TOPLEVEL"), ({"TRN_LENGTH": "0"}, "TRN_LENGTH"),
                            ({"TRN_LENGTH": "101"}, "TRN_LENGTH"), ({"TRN_LENGTH": "2x"}, "TRN_LENGTH")]:
            r = run([exe], env=dict(os.environ, **env), cwd=self.d)
            self.assertEqual(r.returncode, 2, (env, r.stdout, r.stderr))
            self.assertIn(needle, r.stderr)

    def test_length_scales_a_random_test(self):
        # TRN_LENGTH=3 runs the same random test three times as long: the lockstep compares about
        # three times the cycles (same seed; the rates are drawn before the length matters).
        exe = str(BUILD / "bin" / "tb_stream_fifo_tiny")
        cycles = {}
        for n in ("1", "3"):
            r = run([exe], env=dict(os.environ, TESTCASE="random_traffic", RANDOM_SEED="11", TRN_LENGTH=n), cwd=self.d)
            self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
            m = re.search(r"([0-9.]+)ns INFO .*random_traffic passed", r.stdout)
            self.assertTrue(m, r.stdout)
            cycles[n] = float(m.group(1))
        self.assertGreater(cycles["3"], 2.5 * cycles["1"], cycles)
        self.assertLess(cycles["3"], 3.5 * cycles["1"], cycles)


class FailureReproduces(unittest.TestCase):
    def test_injected_mismatch_is_caught_bucketed_and_reproduced(self):
        with tempfile.TemporaryDirectory() as t:
            d = Path(t)
            (d / "bad.toml").write_text(
                '[[test]]\nname = "fifo.wrong_model"\nbench = "stream_fifo"\ntestcase = "random_traffic"\n'
                'seeds = 2\nenv = { LOCKSTEP_INJECT = "pop_data_o@50:3" }\n')
            r = run(REGRESS + ["--list", str(d / "bad.toml"), "--out", str(d / "out")])
            self.assertEqual(r.returncode, 1, r.stdout + r.stderr)
            self.assertIn("regress: 0 passed, 2 failed", r.stdout)
            self.assertIn("Bucket 1: 2 run(s)", r.stdout)  # two seeds, one signature
            self.assertIn("lockstep mismatch on pop_data_o at cycle # (# ns)", r.stdout)
            self.assertIn("(rerun: same failure)", r.stdout)
            cmds = re.findall(r"reproduce: `(.*)`", r.stdout)
            self.assertEqual(len(cmds), 2)
            for c in cmds:
                seed = re.search(r"RANDOM_SEED=(\d+)", c).group(1)
                first = (d / "out" / "fifo.wrong_model" / "tiny" / f"seed{seed}" / "log.txt").read_text()
                want = re.search(r"lockstep mismatch on .*", first).group(0)
                self.assertIn("at cycle 50 ", want)
                again = run(["bash", "-c", c])
                self.assertEqual(again.returncode, 1, again.stdout)
                got = re.search(r"lockstep mismatch on .*", again.stdout).group(0)
                self.assertEqual(got, want)  # same signal, cycle, time, values


def load_wave():
    """scripts/wave as a module (it has no .py suffix)."""
    import importlib.machinery
    import importlib.util
    loader = importlib.machinery.SourceFileLoader("wave_script", str(ROOT / "scripts" / "wave"))
    spec = importlib.util.spec_from_loader("wave_script", loader)
    mod = importlib.util.module_from_spec(spec)
    loader.exec_module(mod)
    return mod


class SaveFileFit(unittest.TestCase):
    """A system top's packed array and struct ports are traced part by part: the save file names
    them by those parts; a signal the FST lacks stays for the check to name."""

    def test_parts_replace_the_vector(self):
        w = load_wave()
        have = dict.fromkeys(["TOP.clk_i", "TOP.im_unit_i[0:0]", "TOP.start_i[0][0:0]", "TOP.start_i[1][0:0]",
                              "TOP.start_ix[0][0:0]", "TOP.hbm_ar_o[0].addr[23:0]", "TOP.hbm_ar_o[0].id[7:0]",
                              "TOP.hbm_ar_o[1].addr[23:0]", "TOP.model.start_i[1:0]"])
        text = "\n".join(["[timestart] 0", "@28", "TOP.clk_i", "@28", "TOP.im_unit_i", "@22",
                          "+{start (DUT, live)} TOP.start_i[1:0]", "@22", "TOP.hbm_ar_o[63:0]", "@22",
                          "TOP.model.start_i[1:0]", "@22", "TOP.gone_o[3:0]"]) + "\n"
        got = w.fit_gtkw(text, have).splitlines()
        self.assertIn("TOP.im_unit_i[0:0]", got)
        i = got.index("-start_i")
        self.assertEqual(got[i + 1:i + 6], ["@22", "TOP.start_i[0][0:0]", "@22", "TOP.start_i[1][0:0]", "@1000200"])
        self.assertNotIn("TOP.start_ix[0][0:0]", got)
        j = got.index("-hbm_ar_o")
        self.assertEqual([x for x in got[j + 1:j + 8] if x.startswith("TOP.")],
                         ["TOP.hbm_ar_o[0].addr[23:0]", "TOP.hbm_ar_o[0].id[7:0]", "TOP.hbm_ar_o[1].addr[23:0]"])
        self.assertIn("TOP.model.start_i[1:0]", got)  # present as is: untouched
        self.assertIn("TOP.gone_o[3:0]", got)  # in no form in the FST: left for check_gtkw to name


class Waves(unittest.TestCase):
    def test_wave_fst_and_gtkw(self):
        r = run([sys.executable, str(ROOT / "scripts" / "wave"), "--test", "stream_fifo.random_traffic", "--seed",
                 "3", "--config", "tiny", "--no-open", "--build-dir", str(BUILD)])
        self.assertEqual(r.returncode, 0, r.stdout + r.stderr)
        self.assertIn("read back by fst2vcd", r.stdout)
        m = re.search(r"\((read back by fst2vcd; (\d+) signals)", r.stdout)
        self.assertGreaterEqual(int(m.group(2)), 9)

    def test_failure_marker_in_gtkw(self):
        with tempfile.TemporaryDirectory() as t:
            exe = str(BUILD / "bin" / "tb_stream_fifo_tiny")
            env = dict(os.environ, TESTCASE="random_traffic", RANDOM_SEED="4", WAVES="1",
                       LOCKSTEP_INJECT="usage_o@40:0")
            r = run([exe], env=env, cwd=t)
            self.assertEqual(r.returncode, 1)
            marker = int(re.search(r"^\*-[\d.]+ (-?\d+)", (Path(t) / "dump.gtkw").read_text(), re.M).group(1))
            ns = float(re.search(r"at cycle 40 \(([\d.]+) ns\)", r.stdout).group(1))
            # The marker sits in the time step where the compared values settled: before the edge.
            self.assertTrue(0 < marker < ns * 1000, (marker, ns))


if __name__ == "__main__":
    unittest.main(verbosity=2)

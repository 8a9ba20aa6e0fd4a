"""Every command in the docs is run (issue 5).

Fenced code blocks whose info string starts with `sh` are commands:
  ```sh        run here, each block as one script, from a scratch folder
               that sees the repository's examples/ and tests/, with
               `tlparse` and `build/tlparse` meaning the binary under test;
               every line must succeed
  ```sh ci     the README's set-up and test commands, which CI runs: they
               must be exactly the commands .ci/run runs
  ```sh torch  recording a trace, which needs PyTorch (not on this machine):
               each line must run python with TORCH_TRACE set, or be
               `tlparse run ... -- python` (or torchrun)
Any other fenced block is not a command (output, formats, source code)."""

import glob
import os
import re
import shutil
import subprocess
import tempfile
import unittest

ROOT = os.path.normpath(os.path.join(os.path.dirname(__file__), "..", ".."))
TLPARSE = os.environ.get("TLPARSE", "tlparse")
FENCE = re.compile(r"^```(\S*)(?: (\w+))?\s*$")


def doc_files():
    files = [os.path.join(ROOT, "README.md")]
    files += sorted(glob.glob(os.path.join(ROOT, "docs", "**", "*.md"),
                              recursive=True))
    files += sorted(glob.glob(os.path.join(ROOT, "examples", "**",
                                           "README.md"), recursive=True))
    return files


def command_blocks():
    """[(file, line, tag, [commands])] of every ```sh block."""
    blocks = []
    for path in doc_files():
        with open(path, encoding="utf-8") as f:
            lines = f.read().split("\n")
        i = 0
        while i < len(lines):
            m = FENCE.match(lines[i])
            if not m:
                i += 1
                continue
            start = i
            i += 1
            body = []
            while i < len(lines) and not lines[i].startswith("```"):
                body.append(lines[i])
                i += 1
            i += 1
            if m.group(1) == "sh":
                cmds = [l for l in body if l.strip()
                        and not l.lstrip().startswith("#")]
                blocks.append((os.path.relpath(path, ROOT), start + 1,
                               m.group(2) or "", cmds))
    return blocks


class DocCommands(unittest.TestCase):
    def test_every_command_block_is_run_or_accounted_for(self):
        blocks = command_blocks()
        self.assertTrue(blocks)
        with open(os.path.join(ROOT, ".ci", "run")) as f:
            ci_lines = [l.strip() for l in f
                        if l.strip() and not l.startswith("#")]
        ran = 0
        for doc, line, tag, cmds in blocks:
            where = "%s:%d" % (doc, line)
            if tag == "ci":
                for c in cmds:
                    self.assertIn(c, ci_lines, where)
                continue
            if tag == "torch":
                for c in cmds:
                    self.assertRegex(c, r"TORCH_TRACE=\S+ .*python|"
                                     r"^tlparse run .*-- (python|torchrun) ",
                                     where)
                continue
            self.assertEqual(tag, "", where)
            with self.subTest(where=where):
                self.run_command("set -e\n" + "\n".join(cmds), where)
                ran += len(cmds)
        self.assertGreater(ran, 0)

    def run_command(self, command, where):
        with tempfile.TemporaryDirectory() as tmp:
            for name in ("examples", "tests"):
                os.symlink(os.path.join(ROOT, name), os.path.join(tmp, name))
            bindir = os.path.join(tmp, "build")
            os.mkdir(bindir)
            os.symlink(os.path.abspath(shutil.which(TLPARSE) or TLPARSE),
                       os.path.join(bindir, "tlparse"))
            env = dict(os.environ, CI="1",
                       PATH=bindir + os.pathsep + os.environ["PATH"])
            r = subprocess.run(["bash", "-c", command], cwd=tmp, env=env,
                               capture_output=True, text=True, timeout=300)
            self.assertEqual(r.returncode, 0, "%s: %s\n%s" % (
                where, command, r.stderr))


if __name__ == "__main__":
    unittest.main(verbosity=2)

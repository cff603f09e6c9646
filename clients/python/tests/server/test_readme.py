"""The README's example, run as it is (a separate Python process) against the real server."""

import os
import re
import subprocess
import sys
import tempfile
import unittest

from . import harness

PACKAGE_ROOT = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))


def readme_example() -> str:
    with open(os.path.join(PACKAGE_ROOT, "README.md"), encoding="utf-8") as readme:
        match = re.search(r"```python\n(.*?)```", readme.read(), re.DOTALL)
    if not match:
        raise AssertionError("the README has no ```python example")
    return match.group(1)


class ReadmeTest(unittest.TestCase):
    def test_the_example_runs(self):
        tenant = harness.tenant("Exemplo do README Py, Lda")
        with tempfile.TemporaryDirectory() as work:
            script = os.path.join(work, "example.py")
            with open(script, "w", encoding="utf-8") as file:
                file.write(readme_example())
            env = dict(os.environ, PARTNER_API_KEY=tenant["key"], PARTNER_API_URL=harness.API_URL, PYTHONPATH=PACKAGE_ROOT)
            done = subprocess.run([sys.executable, script], cwd=work, env=env, capture_output=True, text=True, timeout=120)
        self.assertEqual(done.returncode, 0, done.stderr)
        visible = harness.client(tenant["key"]).customers.list()["pagination"]["total"]
        lines = done.stdout.strip().split("\n")
        self.assertEqual(lines[0], "empresa / company: Exemplo do README Py, Lda (live)")
        self.assertRegex(lines[1], r"^DRAFT-\S{8} draft total 2501\.00 MZN$")
        self.assertEqual(lines[2], f"clientes / customers: {visible}")
        self.assertRegex(lines[3], r"^não encontrada / not found \(pedido / request req_[0-9a-f]+\)$")
        self.assertRegex(lines[4], r"^pedidos restantes / requests left: \d+$")
        self.assertEqual(len(lines), 5)


if __name__ == "__main__":
    unittest.main()

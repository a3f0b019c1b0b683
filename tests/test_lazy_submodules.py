"""``import ddz`` alone gives access to the submodules the documentation names through the
package (``ddz.envs.register_rlcard()``, ``ddz.peers.RLCardRuleBot``, …): they load on first
access. Each check runs in a fresh interpreter, where no other test has imported them."""
import subprocess
import sys

import pytest

LAZY = ["envs", "peers", "openspiel_ids", "record", "draw"]
# the modules a plain ``import ddz`` loads anyway (the whole hand reads and writes records)
LOADED = {"record"}


@pytest.mark.parametrize("name", LAZY)
def test_submodule_loads_on_first_access(name):
    """Each loads on first access (or is loaded already), under its old path too; the module
    is the one at its path in the layered package (ddz.envs is ddz.learn.envs)."""
    from ddz._compat import OLD_PATHS
    absent = "" if name in LOADED else f"assert 'ddz.{name}' not in sys.modules; "
    code = (f"import sys, ddz; {absent}"
            f"m = ddz.{name}; assert m is sys.modules['ddz.{name}'], m; print(m.__name__)")
    r = subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=120)
    assert r.returncode == 0, r.stderr
    assert r.stdout.strip() == OLD_PATHS.get(f"ddz.{name}", f"ddz.{name}")


def test_register_rlcard_through_the_package_alone():
    r = subprocess.run([sys.executable, "-c", "import ddz; print(callable(ddz.envs.register_rlcard))"],
                       capture_output=True, text=True, timeout=120)
    assert r.returncode == 0 and r.stdout.strip() == "True", r.stderr


def test_an_unknown_attribute_is_still_an_attribute_error():
    import ddz
    with pytest.raises(AttributeError, match="no attribute 'no_such_thing'"):
        ddz.no_such_thing  # noqa: B018
    assert not hasattr(ddz, "server_x")

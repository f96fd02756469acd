"""setuptools' build of borders_sim (the metadata is in pyproject.toml) with one step added:
once the package is copied into the build directory, its kernels are compiled into it, so that
an installed package starts without compiling (borders_sim/cli/build_kernels.py says how, and
which environment variables choose the target or skip the step). A wheel holding them is
tagged for this Python and platform, not as pure Python: it holds machine code."""

import os
import subprocess
import sys

from setuptools import setup
from setuptools.command.bdist_wheel import bdist_wheel
from setuptools.command.build_py import build_py


def _kernels_wanted() -> bool:
    """Whether the build compiles the kernels (``BORDERS_SIM_BUILD_KERNELS`` not ``0``)."""
    return os.environ.get("BORDERS_SIM_BUILD_KERNELS", "").strip().lower() not in ("0", "false",
                                                                                 "no")


class build_py_with_kernels(build_py):
    """``build_py``, then ``python -m borders_sim.cli.build_kernels`` on the built package."""

    def run(self) -> None:
        super().run()
        if self.editable_mode or not _kernels_wanted() or self.dry_run:
            return
        package = os.path.join(os.path.abspath(self.build_lib), "borders_sim")
        # the build copy first on the path, and pip's build environment (on PYTHONPATH) kept
        path = [os.path.dirname(package)] + os.environ.get("PYTHONPATH", "").split(os.pathsep)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in path if p)}
        subprocess.run([sys.executable, "-m", "borders_sim.cli.build_kernels", package],
                       env=env, cwd=os.path.dirname(package), check=True)


class bdist_wheel_with_kernels(bdist_wheel):
    """``bdist_wheel``, tagged for this interpreter and platform when it holds kernels."""

    def finalize_options(self) -> None:
        super().finalize_options()
        if _kernels_wanted():
            self.root_is_pure = False


setup(cmdclass={"build_py": build_py_with_kernels, "bdist_wheel": bdist_wheel_with_kernels})

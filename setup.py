"""setuptools' build of borders_sim (the metadata is in pyproject.toml) with one step added:
once the package is copied into the build directory, its kernels are compiled into it, so that
an installed package starts without compiling (borders_sim/_compile/build.py says how, and
which environment variables choose the target or skip the step)."""

import os
import subprocess
import sys

from setuptools import setup
from setuptools.command.build_py import build_py


class build_py_with_kernels(build_py):
    """``build_py``, then ``python -m borders_sim._compile.build`` on the built package."""

    def run(self) -> None:
        super().run()
        skip = os.environ.get("BORDERS_SIM_BUILD_KERNELS", "").strip().lower() in ("0", "false",
                                                                                 "no")
        if self.editable_mode or skip or self.dry_run:
            return
        package = os.path.join(os.path.abspath(self.build_lib), "borders_sim")
        # the build copy first on the path, and pip's build environment (on PYTHONPATH) kept
        path = [os.path.dirname(package)] + os.environ.get("PYTHONPATH", "").split(os.pathsep)
        env = {**os.environ, "PYTHONPATH": os.pathsep.join(p for p in path if p)}
        subprocess.run([sys.executable, "-m", "borders_sim._compile.build", package],
                       env=env, cwd=os.path.dirname(package), check=True)


setup(cmdclass={"build_py": build_py_with_kernels})

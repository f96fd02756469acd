"""The numba cache guard (borders_sim._kernel_cache): an edit of any kernel file must invalidate
the cache of every kernel, since numba checks only the stamp of a kernel's own file."""

from __future__ import annotations

import os
from pathlib import Path

import borders_sim
from borders_sim._kernel_cache import kernel_files, sync_kernel_stamps


def _write(path: Path, text: str, mtime_ns: int) -> None:
    path.write_text(text)
    os.utime(path, ns=(mtime_ns, mtime_ns))


def test_kernel_files_get_the_newest_stamp(tmp_path):
    (tmp_path / "sub").mkdir()
    _write(tmp_path / "a.py", "@njit(cache=True)\ndef f(): pass\n", 1_000_000_000)
    _write(tmp_path / "sub" / "b.py", "@njit\ndef g(): pass\n", 3_000_000_000)
    _write(tmp_path / "c.py", "x = 1\n", 5_000_000_000)  # no kernel: left alone
    assert [p.name for p in kernel_files(tmp_path)] == ["a.py", "b.py"]
    assert sync_kernel_stamps(tmp_path) == 1
    assert (tmp_path / "a.py").stat().st_mtime_ns == 3_000_000_000
    assert (tmp_path / "c.py").stat().st_mtime_ns == 5_000_000_000
    assert sync_kernel_stamps(tmp_path) == 0  # nothing changed: nothing to do


def test_the_package_kernel_files_agree_after_import():
    files = kernel_files(Path(borders_sim.__file__).parent)
    assert len(files) > 10
    assert len({p.stat().st_mtime_ns for p in files}) == 1

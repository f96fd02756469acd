"""What machine a benchmark ran on, as the generated tables name it."""

from __future__ import annotations

import platform


def cpu_model() -> str:
    """The CPU's model name (``/proc/cpuinfo`` on Linux; else what ``platform`` says)."""
    try:
        with open("/proc/cpuinfo") as f:
            for line in f:
                if line.startswith("model name"):
                    return line.split(":", 1)[1].strip()
    except OSError:
        pass
    return platform.processor() or platform.machine()

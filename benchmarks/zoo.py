"""Makes the zoo of reference opponents (``borders_sim/policies/zoo/``, :mod:`borders_sim.
policies.zoo`): runs a member's command and stores its policy, or stores a policy file made
before.

    python benchmarks/zoo.py                          # list the members and their files
    python benchmarks/zoo.py --make notebook-s1 ...   # run each member's command, then store it
    python benchmarks/zoo.py --store e2 PATH          # store the policy file PATH as member e2

A member's file is its run's policy with the weights as float16 and, in its ``meta``, a ``zoo``
record (the name and the command). ``--make`` runs the command exactly as ``ZOO`` writes it
(its ``--out`` under ``runs/``, which must not hold another run), one member after the other:
its minutes are wall clock, so run it on an otherwise idle machine.
"""

from __future__ import annotations

import argparse
import shlex
import subprocess
import sys
from pathlib import Path

import numpy as np

from borders_sim.policies.network import load_policy, save_policy
from borders_sim.policies.zoo import PREFIX, ZOO, ZOO_DIR
from harness import add_shared, parse

def store(name: str, source: str | Path, directory: Path = ZOO_DIR) -> Path:
    """Write the policy file ``source`` as zoo member ``name`` into ``directory`` (the zoo's
    own by default); its path."""
    policy = load_policy(source)
    policy.meta = {**policy.meta, "zoo": {"name": PREFIX + name, "command": ZOO[name].command,
                                          "weights": "float16"}}
    directory.mkdir(exist_ok=True)
    return save_policy(directory / f"{name}.npz", policy, dtype=np.float16)


def make(name: str, quick_dir: Path | None = None) -> Path:
    """Run member ``name``'s command, then store the policy it wrote. With ``quick_dir``, the
    command runs one update into that directory and the policy is stored there, not in the
    zoo (``--quick``)."""
    argv = shlex.split(ZOO[name].command)
    where = argv.index("--out") + 1
    if quick_dir is not None:
        argv[where] = str(quick_dir / "run")
        argv += ["--max-updates", "1"]
    out = Path(argv[where])
    print(f"$ {shlex.join(argv)}", flush=True)
    subprocess.run(argv + ["--no-progress"], check=True)
    return store(name, out / "policy.npz", ZOO_DIR if quick_dir is None else quick_dir)


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(prog="python benchmarks/zoo.py",
                                     description=__doc__.split("\n\n")[0])
    parser.add_argument("--make", nargs="+", metavar="NAME", choices=list(ZOO),
                        help="run these members' commands and store their policies")
    parser.add_argument("--store", nargs=2, metavar=("NAME", "PATH"),
                        help="store the policy file PATH as member NAME")
    add_shared(parser)  # one update of the first member's command, stored apart from the zoo
    args = parse(parser, argv)
    if args.quick:
        import tempfile
        with tempfile.TemporaryDirectory() as tmp:
            path = make(next(iter(ZOO)), Path(tmp))
            print(f"made and stored {path.name} apart from the zoo: it loads with "
                  f"{load_policy(path).hidden} hidden units")
        return 0
    if args.store:
        name, path = args.store
        if name not in ZOO:
            parser.error(f"no member {name!r}; the zoo: {', '.join(ZOO)}")
        print(f"stored {store(name, path)}")
    for name in args.make or ():
        print(f"stored {make(name)}", flush=True)
    if not args.store and not args.make:
        for name, member in ZOO.items():
            path = ZOO_DIR / f"{name}.npz"
            size = f"{path.stat().st_size / 1e6:.1f} MB" if path.is_file() else "missing"
            print(f"{PREFIX}{name} ({size}): {member.command}")
    return 0


if __name__ == "__main__":
    sys.exit(main())

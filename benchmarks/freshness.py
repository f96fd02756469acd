"""Is every generated speed table newer than the code it measures?

A table that compares this library's speed with a peer's (or states a speed at all) is made by a
script of ``benchmarks/`` and says the commit it was measured at: ``measured at commit
abc1234``. :data:`TABLES` declares, once, what each table measures: the engine's code and the
peer harness that ran. A table is *stale* when a file it measures changed after its commit,
so its figures may no longer be the code's::

    python benchmarks/freshness.py            # exit 1 naming each stale table and its cause

``bash .ci/run`` runs it on the repository before anything else, so a change to the engine
fails CI until the tables that time it are made again (each table names its command). In a
shallow clone a table's commit may lie beyond the history: that table gets a note, not a
verdict (a full clone checks it).

A change counts when it changes code: a Python file is compared by its syntax tree with the
docstrings taken out, so a comment or a docstring edited after a table leaves the table fresh;
any other file byte for byte. A table made from a tree with uncommitted changes to what it
measures says so in its stamp (``with local changes``) and counts as stale: no commit holds
the code it timed.

The other generated sections measure play, not speed: the exploit matrix, the ladder, the
population and the recipe (stamped with the policy files' digest, which
``tests/test_readme_tables.py`` recomputes; the games themselves are pinned by
``tests/test_pinned_games.py``, which fails on any change to how a seeded game plays), the
algorithms' training figures (the same), and the README's first screen, which times an install
and the whole test suite, so every commit changes what it measures; it states its commit and
date as a record. :data:`NOT_BY_COMMIT` lists them with that reason, and the check fails on a
generated section that neither dict names.

Standard library only: CI runs it before it has made a virtual environment.
"""

from __future__ import annotations

import argparse
import ast
import re
import subprocess
import sys
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]

#: The state core: the rules' kernels, the batch loops, the compilation layer, the argument
#: checks, ``Game`` and its views (every module of ``borders_sim/game`` but the pictures,
#: :data:`PICTURES`).
ENGINE = ("borders_sim/rules", "borders_sim/batch", "borders_sim/_compile",
          "borders_sim/checks.py", "borders_sim/__init__.py", "borders_sim/game/__init__.py", "borders_sim/game/belief.py",
          "borders_sim/game/fastpath.py", "borders_sim/game/game.py",
          "borders_sim/game/invariants.py", "borders_sim/game/saved",
          "borders_sim/game/text_view.py", "borders_sim/game/turns.py",
          "borders_sim/game/views.py")
#: The drawings and the replay page that packs them.
PICTURES = ("borders_sim/game/drawing", "borders_sim/arena/viewer", "borders_sim/arena/records.py")
#: The trainer's side: its env, its network and update, the compiled opponents.
TRAINER = ("borders_sim/envs/training.py", "borders_sim/train", "borders_sim/agents",
           "borders_sim/policies")

#: Each generated speed table (a section of README.md or ``docs/*.md`` by its marker name, or
#: a whole generated page by its path) and the files whose code it times.
TABLES: dict[str, tuple[str, ...]] = {
    "performance": ENGINE + (
        "borders_sim/envs/borders.py", "borders_sim/envs/borders_v0.py",
        "borders_sim/envs/vector.py", "borders_sim/agents", "borders_sim/cli/warmup.py",
        "benchmarks/run_all.py", "benchmarks/rollouts.py", "benchmarks/envs.py",
        "benchmarks/bots.py", "benchmarks/startup.py"),
    "docs/performance.md": (),  # the same run as "performance": filled in below
    "scaling": ENGINE + TRAINER + (
        "benchmarks/scaling.py", "benchmarks/rollouts.py", "benchmarks/train.py"),
    "startup": ENGINE + TRAINER + (
        "borders_sim/envs", "borders_sim/openspiel", "borders_sim/cli/warmup.py",
        "borders_sim/cli/build_kernels.py", "benchmarks/startup.py"),
    "openspiel-costs": ENGINE + (
        "borders_sim/openspiel", "borders_sim/envs/borders.py", "benchmarks/openspiel.py",
        "benchmarks/rollouts.py"),
    "rllib-throughput": ENGINE + TRAINER + (
        "borders_sim/envs/rllib", "benchmarks/rllib.py"),
    "train-throughput": ENGINE + TRAINER + (
        "borders_sim/envs/single.py", "borders_sim/envs/sb3.py", "benchmarks/train.py"),
    "algorithm-speed": ENGINE + TRAINER + ("benchmarks/algorithms.py",),
    "replay-pages": ENGINE + PICTURES + ("benchmarks/replay.py",),
    "serve-load": ENGINE + ("borders_sim/serve", "borders_sim/agents", "borders_sim/policies",
                            "benchmarks/serve_load.py"),
}
TABLES["docs/performance.md"] = TABLES["performance"]

#: Generated sections that are not speed tables, and why a commit does not date them.
NOT_BY_COMMIT: dict[str, str] = {
    "exploit": "play of the shipped policy: its files' digest and the pinned games",
    "ladder": "play of the bots: the policy files' digest and the pinned games",
    "population": "play of the shipped policy and the zoo: their files' digest and the pinned "
                  "games",
    "recipe": "the shipped policy's training stages, read from its file",
    "algorithm-figures": "training results of a fixed command, evaluated on fixed seeds; the "
                         "pinned games",
    "first-screen": "an install and the whole test suite, which every commit changes",
}

STAMP = re.compile(r"measured at commit ([0-9a-f]{7,40})( with local changes)?")
MARKER = re.compile(r"<!-- ([a-z0-9-]+):start -->")


def git(*args: str, root: Path = ROOT, check: bool = True) -> str:
    out = subprocess.run(["git", "-C", str(root), *args], capture_output=True, text=True)
    if check and out.returncode:
        raise RuntimeError(f"git {' '.join(args)}: {out.stderr.strip()}")
    return out.stdout


def code_of(text: str, path: str) -> str:
    """What counts as a file's code: a Python file's syntax tree without its docstrings (a
    file that does not parse, its text); any other file, its text."""
    if not path.endswith(".py"):
        return text
    try:
        tree = ast.parse(text)
    except SyntaxError:
        return text
    for node in ast.walk(tree):
        if isinstance(node, (ast.Module, ast.ClassDef, ast.FunctionDef, ast.AsyncFunctionDef)):
            body = node.body
            if (body and isinstance(body[0], ast.Expr) and isinstance(body[0].value, ast.Constant)
                    and isinstance(body[0].value.value, str)):
                node.body = body[1:] or [ast.Pass()]
    return ast.dump(tree)


def changed_code(since: str | None, paths: tuple[str, ...], root: Path = ROOT) -> list[str]:
    """The files of ``paths`` whose code differs between commit ``since`` (``None``: HEAD) and
    the working tree, sorted."""
    base = since or "HEAD"
    names = set(git("diff", "--name-only", base, "--", *paths, root=root).split())
    names |= set(git("ls-files", "--others", "--exclude-standard", "--", *paths,
                     root=root).split())
    changed = []
    for name in sorted(names):
        old = subprocess.run(["git", "-C", str(root), "show", f"{base}:{name}"],
                             capture_output=True, text=True)
        before = old.stdout if old.returncode == 0 else None
        file = root / name
        after = file.read_text(encoding="utf-8", errors="replace") if file.exists() else None
        if (before is None) != (after is None) or (
                before is not None and code_of(before, name) != code_of(after, name)):
            changed.append(name)
    return changed


def measured_at(table: str, root: Path = ROOT) -> str:
    """The stamp a table's generator writes: ``measured at commit abc1234``, then ``with local
    changes`` when the working tree's code of what ``table`` measures differs from HEAD's;
    ``measured outside a git checkout`` where there is no commit to name (CI's copy of the
    tree: a table from there has no stamp, so the check refuses it)."""
    try:
        head = git("rev-parse", "--short", "HEAD", root=root).strip()
    except (OSError, RuntimeError):
        return "measured outside a git checkout"
    dirty = changed_code(None, TABLES[table], root)
    return f"measured at commit {head}" + (" with local changes" if dirty else "")


def generated_texts(root: Path = ROOT) -> dict[str, str]:
    """Every generated section of README.md and ``docs/*.md`` by marker name, and every page of
    :data:`TABLES`, by path: its text."""
    texts: dict[str, str] = {}
    for path in [root / "README.md", *sorted((root / "docs").glob("*.md"))]:
        text = path.read_text(encoding="utf-8")
        for name in MARKER.findall(text):
            texts[name] = text.split(f"<!-- {name}:start -->", 1)[1].split(
                f"<!-- {name}:end -->", 1)[0]
    for name in TABLES:
        if name.endswith(".md"):
            texts[name] = (root / name).read_text(encoding="utf-8")
    return texts


def problems(root: Path = ROOT) -> list[str]:
    """One line per stale, unstamped or undeclared table; empty when every table is fresh."""
    found = []
    texts = generated_texts(root)
    for name in sorted(set(texts) - set(TABLES) - set(NOT_BY_COMMIT)):
        found.append(f"{name}: a generated section that benchmarks/freshness.py does not declare "
                     f"(add it to TABLES with what it measures, or to NOT_BY_COMMIT with why)")
    for name, paths in TABLES.items():
        if name not in texts:
            found.append(f"{name}: declared in TABLES, but no file holds it")
            continue
        stamps = STAMP.findall(texts[name])
        if len(stamps) != 1:
            found.append(f"{name}: {len(stamps)} stamps 'measured at commit ...' (one expected); "
                         f"make it again with its command")
            continue
        commit, local = stamps[0]
        if local:
            found.append(f"{name}: measured with local changes at {commit}, which no commit "
                         f"holds; make it again from a clean tree")
            continue
        known = subprocess.run(["git", "-C", str(root), "merge-base", "--is-ancestor", commit,
                                "HEAD"], capture_output=True)
        if known.returncode and git("rev-parse", "--is-shallow-repository",
                                    root=root).strip() == "true":
            print(f"note: {name}: its commit {commit} is beyond this shallow clone's history, "
                  f"so it is not checked (a full clone checks it)")
            continue
        if known.returncode:
            found.append(f"{name}: its commit {commit} is not in this branch's history")
            continue
        changed = changed_code(commit, paths, root)
        if changed:
            shown = ", ".join(changed[:4]) + (f" and {len(changed) - 4} more"
                                              if len(changed) > 4 else "")
            found.append(f"{name}: measured at {commit}; the code it measures changed since: "
                         f"{shown}")
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--repo", type=Path, default=ROOT,
                        help="the repository to check (default: this one)")
    args = parser.parse_args(argv)
    found = problems(args.repo.resolve())
    for line in found:
        print(f"STALE {line}")
    if not found:
        print(f"every generated speed table is newer than the code it measures "
              f"({len(TABLES)} tables)")
    return 1 if found else 0


if __name__ == "__main__":
    sys.exit(main())

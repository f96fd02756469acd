"""Sphinx extension: the API reference, written from the package itself before each build.

The public API of ``borders_sim`` is what its packages export: ``borders_sim`` and every
subpackage with an ``__all__`` list it there. For each package this writes one page,
``docs/api/<package>.rst`` (generated, not committed): the package's docstring, then every name
of its ``__all__``, classes with their public members, functions, modules by their docstrings,
and constants with their values. A name exported by two packages (``borders_sim.Game`` and ``borders_sim.game.Game``) is
documented where it is first exported, top down, and the later page links to it. A package
without ``__all__`` (the internal layers: ``rules``, ``batch``, ``policies``) gets a page with its
docstring and the first sentence of each of its modules'.

Every public class, function, method and property must say what it is: one without a docstring
is a warning naming it (the build runs with ``-W``, so it fails), as is a package or module
without one. Packages whose optional extra is not installed here (Ray RLlib for
``borders_sim.envs.rllib``, Tianshou for ``borders_sim.envs.tianshou``) are imported with that extra's modules mocked, as autodoc does,
so the reference is whole on any machine.
"""

from __future__ import annotations

import importlib
import inspect
import pkgutil
import re
from collections.abc import Iterator
from pathlib import Path
from types import ModuleType

from sphinx.application import Sphinx
from sphinx.ext.autodoc.mock import mock
from sphinx.util import logging

PACKAGE = "borders_sim"
#: modules of optional extras, mocked where importing them fails (the extra is not installed)
OPTIONAL = {"ray.rllib": ["ray.rllib", "ray.tune"], "tianshou": ["tianshou"]}
OUT = "api"

logger = logging.getLogger(__name__)


def mocked_modules() -> list[str]:
    """The modules of :data:`OPTIONAL` extras that do not import here, with their top-level
    package where that does not import either (``ray`` itself where Ray is not installed, not
    only ``ray.rllib``: the import of ``ray.rllib`` imports ``ray`` first)."""
    missing = []
    for probe, modules in OPTIONAL.items():
        try:
            importlib.import_module(probe)
        except ImportError:
            top = probe.partition(".")[0]
            try:
                importlib.import_module(top)
            except ImportError:
                missing.append(top)
            missing += modules
    return list(dict.fromkeys(missing))


def packages(mocked: list[str]) -> list[ModuleType]:
    """``borders_sim`` and its public subpackages, top down (a private part, ``_compile``, is
    left out)."""
    root = importlib.import_module(PACKAGE)
    found = [root]
    with mock(mocked):
        for info in pkgutil.walk_packages(root.__path__, f"{PACKAGE}."):
            private = any(part.startswith("_") for part in info.name.split(".")[1:])
            if info.ispkg and not private:
                found.append(importlib.import_module(info.name))
    return sorted(found, key=lambda m: m.__name__)


def submodules(package: ModuleType) -> list[str]:
    """The public modules directly inside ``package``."""
    return sorted(f"{package.__name__}.{info.name}" for info in pkgutil.iter_modules(package.__path__)
                  if not info.name.startswith("_") and not info.ispkg)


def kind(obj: object) -> str:
    """The autodoc directive of ``obj``: module, class, function or data."""
    if inspect.ismodule(obj):
        return "module"
    if inspect.isclass(obj):
        return "class"
    if inspect.isroutine(obj) or hasattr(obj, "py_func"):  # numba's dispatchers are callables
        return "function"
    return "data"


def members(cls: type) -> Iterator[tuple[str, object]]:
    """The public methods and properties ``cls`` defines itself."""
    for name, value in vars(cls).items():
        if name.startswith("_"):
            continue
        if isinstance(value, property):
            yield name, value.fget
        elif isinstance(value, (staticmethod, classmethod)):
            yield name, value.__func__
        elif inspect.isfunction(value):
            yield name, value


def undocumented(package: ModuleType) -> Iterator[str]:
    """The public names of ``package`` (and their members) without a docstring of their own or
    inherited."""
    if not (package.__doc__ or "").strip():
        yield package.__name__
    for name in getattr(package, "__all__", ()):
        obj = getattr(package, name)
        qualified = f"{package.__name__}.{name}"
        if kind(obj) == "data":
            continue
        if not (inspect.getdoc(obj) or "").strip() or (inspect.isclass(obj) and obj.__doc__ is None):
            yield qualified
        if inspect.isclass(obj):
            for member, func in members(obj):
                if not (inspect.getdoc(getattr(obj, member, func)) or func.__doc__ or "").strip():
                    yield f"{qualified}.{member}"


def page(package: ModuleType, documented: dict[tuple[int, str], str]) -> str:
    """The reST page of ``package``; ``documented`` maps each object documented so far (its id,
    and its name for a constant) to its qualified name, and is updated."""
    name = package.__name__
    lines = [name, "=" * len(name), "", f".. automodule:: {name}", "   :no-members:", ""]
    exported = getattr(package, "__all__", None)
    if exported is None:
        lines += ["Modules", "-------", ""]
        for module in submodules(package):
            lines += [f"* ``{module}``: {summary(module)}"]
        return "\n".join(lines + [""])
    elsewhere = []
    for export in exported:
        obj = getattr(package, export)
        qualified = f"{name}.{export}"
        directive = kind(obj)
        key = (id(obj), export if directive == "data" else "")  # a constant: its object and name
        if key in documented:
            role = {"module": "mod", "class": "class", "function": "func", "data": "data"}[directive]
            elsewhere.append(f"* ``{export}``: :py:{role}:`{documented[key]}`")
            continue
        documented[key] = obj.__name__ if directive == "module" else qualified
        if directive == "data":
            lines += [f".. py:data:: {export}", f"   :value: {short_repr(obj)}", ""]
            continue
        if directive == "module":
            lines += [f".. automodule:: {obj.__name__}", "   :no-members:", "",
                      f".. currentmodule:: {name}", ""]
            continue
        lines += [f".. auto{directive}:: {qualified}"]
        if directive == "class":
            lines += ["   :members:"]
        lines += [""]
    if elsewhere:
        lines += ["Also exported here", "------------------", ""] + elsewhere + [""]
    return "\n".join(lines)


def summary(module: str) -> str:
    """The first sentence of ``module``'s docstring, as plain text."""
    doc = inspect.getdoc(importlib.import_module(module)) or ""
    first = " ".join(doc.split("\n\n")[0].split())
    sentence = first.split(". ")[0].rstrip(".")
    return re.sub(r"([*_|\\])", r"\\\1", sentence.replace("`", ""))


def short_repr(value: object) -> str:
    """``value``'s repr on one line, cut at 60 characters."""
    text = " ".join(repr(value).split())
    return text if len(text) <= 60 else text[:57] + "..."


def write_pages(app: Sphinx) -> None:
    """Write ``docs/api/*.rst`` and warn about every public name without a docstring."""
    mocked = mocked_modules()
    app.config.autodoc_mock_imports = list(app.config.autodoc_mock_imports) + mocked
    if mocked:
        logger.info(f"api_reference: {', '.join(mocked)} not installed, mocked")
    out = Path(app.srcdir) / OUT
    out.mkdir(exist_ok=True)
    documented: dict[tuple[int, str], str] = {}
    written = set()
    with mock(mocked):
        for package in packages(mocked):
            for name in undocumented(package):
                logger.warning(f"no docstring: {name} (the API reference needs one)")
            path = out / f"{package.__name__}.rst"
            text = page(package, documented)
            if not path.is_file() or path.read_text(encoding="utf-8") != text:
                path.write_text(text, encoding="utf-8")
            written.add(path.name)
    for stale in out.glob("*.rst"):
        if stale.name not in written:
            stale.unlink()


def setup(app: Sphinx) -> dict[str, object]:
    """Register the hook that writes the API pages before the sources are read."""
    app.connect("builder-inited", write_pages)
    return {"parallel_read_safe": True}

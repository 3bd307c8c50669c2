"""One installation run: choose, build the environment, write the launchers, drop what the last run added and
this one did not, save the manifest."""

from __future__ import annotations

import dataclasses
from collections.abc import Mapping
from dataclasses import dataclass, field
from pathlib import Path

from studio_installer.environment import DEFAULT_EXTRAS, PYTHON_REQUEST, Execute, Plan, build, execute, project_version
from studio_installer.launch_env import cache_folders, launch_environment
from studio_installer.launchers import write_launchers
from studio_installer.layout import Layout, check_prefix, layout_for
from studio_installer.machine import Machine
from studio_installer.manifest import Manifest, Recorder, load, save
from studio_installer.torch_choice import TorchChoice, choose
from studio_installer.uninstall import remove_listed

SOURCE = Path(__file__).resolve().parents[2]
"""The clone or release archive this installer sits in (``packaging/studio_installer`` is two levels down)."""


@dataclass(frozen=True, kw_only=True)
class Options:
    """The installer's options (see ``python -m studio_installer --help``).

    ``torch`` replaces the torch requirement and ``torch_index`` its index (``"none"``: the default index, with
    uv's ``UV_FIND_LINKS`` if set): for machines that cannot reach PyTorch's index, such as CI.
    """

    prefix: Path | None = None
    onnx_only: bool = False
    cpu: bool = False
    torch: str | None = None
    torch_index: str | None = None
    python: str = PYTHON_REQUEST
    source: Path = SOURCE
    desktop: Path | None = None
    start_menu: Path | None = None


@dataclass(kw_only=True)
class Report:
    """What a run did: the layout and plan used, the manifest saved, files left out and stale ones removed."""

    layout: Layout
    plan: Plan
    manifest: Manifest
    skipped: list[Path] = field(default_factory=list)
    removed: list[Path] = field(default_factory=list)


def plan_for(machine: Machine, options: Options) -> Plan:
    """What goes into the environment on ``machine`` with ``options``."""
    if options.onnx_only:
        torch = TorchChoice(kind="none", requirement=None, index_url=None, reason="--onnx-only: without training")
    else:
        torch = choose(machine, force_cpu=options.cpu)
    if torch.requirement and options.torch:
        torch = dataclasses.replace(torch, requirement=options.torch)
    if torch.requirement and options.torch_index:
        index = None if options.torch_index == "none" else options.torch_index
        torch = dataclasses.replace(torch, index_url=index)
    extras = () if torch.kind == "none" else DEFAULT_EXTRAS
    return Plan(source=options.source, extras=extras, torch=torch, python=options.python)


def install(options: Options, *, env: Mapping[str, str], machine: Machine, uv: str, run: Execute = execute) -> Report:
    """Install (or upgrade in place) the studio as ``options`` say, for the user whose environment is ``env``.

    Raises:
        InstallError: the app folder is unsafe (:func:`check_prefix`), or a step failed.
    """
    layout = layout_for(machine.os, env, prefix=options.prefix, desktop=options.desktop, start_menu=options.start_menu)
    check_prefix(layout)
    plan = plan_for(machine, options)
    previous = load(layout.manifest)
    manifest = Manifest(
        prefix=str(layout.prefix), source=str(plan.source), extras=list(plan.extras), torch=plan.record()
    )
    recorder = Recorder(manifest, previous)
    recorder.make_dirs(layout.prefix)
    recorder.tree(layout.venv)
    if previous is None:
        save(manifest, layout.manifest)  # from here on a failed first install can be run again, or uninstalled
    build(uv, layout, plan, previous, run)
    run([str(layout.python), "-c", "import studio.cli"])
    launch = launch_environment(layout, plan.torch)
    for folder in cache_folders(launch):
        recorder.tree(Path(folder))
    write_launchers(layout, recorder, launch, source=plan.source, version=project_version(plan.source), run=run)
    removed = remove_listed(previous, layout, keep=manifest) if previous else []
    save(manifest, layout.manifest)
    return Report(layout=layout, plan=plan, manifest=manifest, skipped=recorder.skipped, removed=removed)

"""The sdist and wheel of this checkout (built by ``uv build`` as ``python -m build`` does: the wheel from the
sdist) carry what an install needs, and the installed ``voice-studio --version`` says pyproject's version.

Uses the cached build of tests/onnx_only_install.py (9 s cold with uv's cache warm, nothing warm).
"""

from __future__ import annotations

import subprocess
import sys
import tarfile
import zipfile

import pytest
from onnx_only_install import ROOT, Install, environment, prepared

from studio.version import source_version


@pytest.fixture(scope="module")
def install() -> Install:
    """The cached sdist, wheel and ONNX-only venv of this checkout."""
    return prepared()


def tracked(folder: str) -> list[str]:
    """The files git tracks under ``folder`` of the checkout, as paths relative to the root."""
    listed = subprocess.run(["git", "ls-files", folder], cwd=ROOT, capture_output=True, text=True, check=True)
    return listed.stdout.split()


def sdist_files(install: Install) -> set[str]:
    with tarfile.open(install.sdist) as archive:
        return {name.split("/", 1)[1] for name in archive.getnames() if "/" in name}


def test_the_wheel_and_sdist_carry_every_asset_and_module():
    """Every tracked file of ``assets/`` and every module of the packages is in the wheel and in the sdist; the
    sdist has the README, the manual (docs/*.md and the screenshots) and the licence, the wheel the licence and the
    README as its description."""
    install = prepared()
    wheel = set(zipfile.ZipFile(install.wheel).namelist())
    modules = [p for package in ("engines", "studio", "trainer") for p in tracked(package) if p.endswith(".py")]
    assert tracked("assets") and modules
    assert set(tracked("assets")) | set(modules) <= wheel
    assert set(tracked("assets")) | set(modules) | {"README.md", "LICENSE", "pyproject.toml"} <= sdist_files(install)
    manual = [p for p in tracked("docs") if p.count("/") == 1 and p.endswith((".md", ".png"))]
    assert "docs/install.md" in manual and set(manual) <= sdist_files(install)
    info = next(name for name in wheel if name.endswith(".dist-info/METADATA"))
    metadata = zipfile.ZipFile(install.wheel).read(info).decode()
    title = (ROOT / "README.md").read_text(encoding="utf-8").splitlines()[0]  # README edits do not rebuild
    assert "Description-Content-Type: text/markdown" in metadata and f"\n\n{title}\n" in metadata
    assert any(name.endswith(".dist-info/licenses/LICENSE") for name in wheel)


def test_the_sdist_carries_the_installer_and_the_wheel_does_not():
    """Every tracked file of ``packaging/`` is in the sdist (no bytecode with it); the wheel holds none of it."""
    install = prepared()
    sdist = sdist_files(install)
    assert "packaging/install.sh" in tracked("packaging") and set(tracked("packaging")) <= sdist
    assert not [name for name in sdist if "__pycache__" in name or name.endswith(".pyc")]
    assert not [name for name in zipfile.ZipFile(install.wheel).namelist() if name.startswith("packaging")]


def test_an_unpacked_sdist_runs_its_installer(install, tmp_path):
    """Unpacked, the sdist is a release archive: its installer installs that folder (``SOURCE``, which holds
    ``pyproject.toml``) and ``install.sh --help`` runs there."""
    with tarfile.open(install.sdist) as archive:
        archive.extractall(tmp_path, **({"filter": "data"} if hasattr(tarfile, "data_filter") else {}))
    (root,) = tmp_path.iterdir()
    show = "from studio_installer.install import SOURCE; print(SOURCE)"
    env = {**environment(tmp_path / "imports.log"), "PYTHONPATH": str(root / "packaging")}
    source = subprocess.run([sys.executable, "-c", show], env=env, capture_output=True, text=True, check=True)
    assert source.stdout.strip() == str(root) and (root / "pyproject.toml").is_file()
    if sys.platform.startswith("linux"):
        helped = subprocess.run(["bash", "packaging/install.sh", "--help"], cwd=root, capture_output=True, text=True)
        assert helped.returncode == 0 and "--onnx-only" in helped.stdout, helped.stderr


def test_the_installed_command_says_the_pyproject_version(install, tmp_path):
    """``voice-studio --version`` in the venv prints ``voice-studio`` and pyproject's version (from the package's
    metadata: the wheel has no pyproject.toml)."""
    result = subprocess.run(
        [str(install.command), "--version"], cwd=tmp_path, env=environment(tmp_path / "imports.log"),
        capture_output=True, text=True, timeout=60,
    )  # fmt: skip
    assert result.returncode == 0, result.stderr
    assert result.stdout.strip() == f"voice-studio {source_version(ROOT / 'pyproject.toml')}"


def test_a_checkout_says_its_pyproject_version(tmp_path):
    """``python -m studio --version`` from the checkout says pyproject's version, marked as a source checkout;
    a pyproject.toml of another project is not read as ours."""
    result = subprocess.run([sys.executable, "-m", "studio", "--version"], cwd=ROOT, capture_output=True, text=True)
    version = source_version(ROOT / "pyproject.toml")
    assert version and result.stdout.strip() == f"voice-studio {version} (source checkout)"
    other = tmp_path / "pyproject.toml"
    other.write_text('[project]\nname = "other"\nversion = "9.9"\n', encoding="utf-8")
    assert source_version(other) is None and source_version(tmp_path / "missing.toml") is None

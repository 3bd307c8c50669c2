"""The Voice Studio installer: one logic for Windows, Linux and macOS, run by thin per-OS wrappers.

``packaging/install.sh`` (Linux, macOS) and ``packaging/install.ps1`` (Windows) install uv when it is missing
and run ``python -m studio_installer`` with ``packaging/`` on ``sys.path``. The installer reads the machine
(:mod:`.machine`), picks the torch build (:mod:`.torch_choice`), lays out its folders (:mod:`.layout`), builds
the app's own environment with uv (:mod:`.environment`), writes the launchers (:mod:`.launchers`) and records
everything it added in a manifest (:mod:`.manifest`), so re-running upgrades in place and ``--uninstall``
removes exactly that. It never writes into the studio's user data or settings folders.

Only the standard library is used: the installer runs before any of the project's dependencies exist. This
package must not be named ``packaging`` (that would shadow the PyPI library pip and setuptools import), and
``packaging/`` itself has no ``__init__.py``.
"""

__version__ = "1"

#!/usr/bin/env bash
# Install Voice Studio on Linux or macOS from this clone or release archive, or upgrade it in place (run it
# again), or remove it:
#   bash packaging/install.sh [--onnx-only] [--cpu] [--prefix DIR] [--uninstall] [--help]
# Installs uv when missing: astral's script (fetched with curl, else wget), else PyPI's uv package in a venv of
# its own in ~/.cache/voice-studio-installer/uv (kept after an uninstall, like uv itself). On Debian/Ubuntu it
# then checks the system libraries (packaging/linux-deps.sh): missing ones are installed with apt-get when run
# as root or with password-less sudo, else it prints the `sudo apt-get install` line to run. Then it runs the
# installer logic, packaging/studio_installer, under a Python uv finds (or fetches); other arguments go to it
# as they are. --help shows this and the options, and does nothing else.
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
bootstrap="${XDG_CACHE_HOME:-$HOME/.cache}/voice-studio-installer/uv"
export PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}"

find_uv() {
  command -v uv && return
  for candidate in "${XDG_BIN_HOME:-$HOME/.local/bin}/uv" "$HOME/.cargo/bin/uv" "$bootstrap/bin/uv"; do
    [ -x "$candidate" ] && { echo "$candidate"; return; }
  done
  return 1
}

fetch() {  # the text at URL $1 on stdout, by curl or else wget
  if command -v curl >/dev/null 2>&1 && curl -LsSf --connect-timeout 20 "$1"; then return; fi
  command -v wget >/dev/null 2>&1 && wget -q -T 20 -O - "$1"
}

uv_from_pypi() {  # uv in a venv of its own: `pip install --user` is refused where Python is the system's (PEP 668)
  command -v python3 >/dev/null 2>&1 || return 1
  rm -rf "$bootstrap"
  if python3 -m venv "$bootstrap" >/dev/null 2>&1; then
    "$bootstrap/bin/python" -m pip install --quiet --disable-pip-version-check uv >&2 && return
  fi
  rm -rf "$bootstrap"  # no venv module (Debian's python3-venv): the package alone, beside no Python's own
  python3 -m pip install --quiet --disable-pip-version-check --target "$bootstrap" uv >/dev/null 2>&1
}

install_uv() {
  echo "Installing uv..." >&2
  local script
  if script="$(fetch https://astral.sh/uv/install.sh)" && printf '%s\n' "$script" | UV_NO_MODIFY_PATH=1 sh >&2; then
    find_uv && return
  fi
  echo "astral's uv installer could not be fetched or failed; installing uv from PyPI into $bootstrap" >&2
  uv_from_pypi && find_uv && return
  echo "install: error: could not install uv: install it (https://docs.astral.sh/uv/getting-started/installation/," \
    "or \`pipx install uv\`, or \`sudo apt-get install python3-venv\` so this can), then run this again" >&2
  exit 2
}

show_help() {  # this file's header, then the installer's options from a Python 3.10+ or uv at hand, if any
  sed -n '2,/^set /{/^#/s/^# \{0,1\}//p}' "${BASH_SOURCE[0]}"
  echo
  if python3 -c 'import sys; sys.exit(sys.version_info < (3, 10))' 2>/dev/null; then
    PYTHONDONTWRITEBYTECODE=1 python3 -m studio_installer --help
  elif uv="$(find_uv)"; then
    "$uv" run --no-project --no-python-downloads --python ">=3.10" python -m studio_installer --help
  else
    echo "(the installer's options are listed in docs/install.md)"
  fi
}

for arg in "$@"; do case "$arg" in -h | --help) show_help; exit 0 ;; esac; done
uv="$(find_uv || install_uv)" || exit $?
case " $* " in *" --uninstall "*) ;; *) [ "$(uname -s)" = Linux ] && bash "$here/linux-deps.sh" ;; esac
exec "$uv" run --no-project --python ">=3.10" python -m studio_installer --uv "$uv" "$@"

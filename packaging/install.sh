#!/usr/bin/env bash
# Install Voice Studio on Linux or macOS from this clone or release archive, or upgrade it in place (run it
# again), or remove it:
#   bash packaging/install.sh [--onnx-only] [--cpu] [--prefix DIR] [--uninstall]
# Installs uv when missing (astral's script, else `python3 -m pip install --user uv`), then runs the installer
# logic, packaging/studio_installer, under a Python uv finds (or fetches). Other arguments go to it as they are
# (`--help` lists them). On Debian/Ubuntu it first checks the system libraries (packaging/linux-deps.sh).
set -euo pipefail
here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"

find_uv() {
  command -v uv && return
  for candidate in "${XDG_BIN_HOME:-$HOME/.local/bin}/uv" "$HOME/.cargo/bin/uv"; do
    [ -x "$candidate" ] && { echo "$candidate"; return; }
  done
  return 1
}

install_uv() {
  echo "Installing uv..." >&2
  if command -v curl >/dev/null 2>&1 && curl -LsSf https://astral.sh/uv/install.sh | UV_NO_MODIFY_PATH=1 sh >&2; then
    find_uv && return
  fi
  echo "uv's installer did not work; trying pip" >&2
  python3 -m pip install --user --quiet uv >&2
  python3 -c 'import uv; print(uv.find_uv_bin())'
}

uv="$(find_uv || install_uv)"
case " $* " in *" --uninstall "*) ;; *) [ "$(uname -s)" = Linux ] && bash "$here/linux-deps.sh" ;; esac
export PYTHONPATH="$here${PYTHONPATH:+:$PYTHONPATH}"
exec "$uv" run --no-project --python ">=3.10" python -m studio_installer --uv "$uv" "$@"

#!/usr/bin/env bash
# System libraries the studio needs on Debian/Ubuntu that pip cannot install:
# PortAudio (sound output through sounddevice) and the X11 libraries Qt's xcb
# platform plugin loads. Installs what is missing when run as root (or with
# password-less sudo); otherwise prints the command. Never fails the caller:
# the studio still starts without sound, and tests run Qt offscreen.
#   bash packaging/linux-deps.sh [--check]   (--check: only list the missing packages, install nothing)
set -u
check_only=false
[ "${1:-}" = --check ] && check_only=true
[ "$(uname -s)" = Linux ] || exit 0
if ! command -v apt-get >/dev/null 2>&1; then
  echo "note: install PortAudio and Qt's xcb libraries (xcb-cursor, xkbcommon-x11) with your package manager"
  exit 0
fi
# ldconfig lives in /sbin (Debian's libc-bin), which a normal user's PATH lacks there
ldconfig="$(command -v ldconfig || ls /sbin/ldconfig /usr/sbin/ldconfig 2>/dev/null | head -n 1)"
libraries="$(${ldconfig:-false} -p 2>/dev/null)"
have() { printf '%s\n' "$libraries" | grep -qF "$1"; }
need=()
have libportaudio.so.2 || need+=(libportaudio2)
have libasound.so.2 || need+=(libasound2)
have libxcb-cursor.so.0 || need+=(libxcb-cursor0)
have libxkbcommon-x11.so.0 || need+=(libxkbcommon-x11-0)
have libxcb-icccm.so.4 || need+=(libxcb-icccm4)
have libxcb-keysyms.so.1 || need+=(libxcb-keysyms1)
have libxcb-shape.so.0 || need+=(libxcb-shape0)
have libxcb-render-util.so.0 || need+=(libxcb-render-util0)
have libxcb-image.so.0 || need+=(libxcb-image0)
have libEGL.so.1 || need+=(libegl1)
have libGL.so.1 || need+=(libgl1)
have libfontconfig.so.1 || need+=(libfontconfig1)
[ -e /usr/share/alsa/alsa.conf ] || need+=(libasound2-data)
[ ${#need[@]} -eq 0 ] && exit 0
if $check_only; then
  echo "Missing system packages: ${need[*]}"
  exit 0
fi
if [ "$(id -u)" = 0 ]; then
  sudo=""
elif command -v sudo >/dev/null 2>&1 && sudo -n true 2>/dev/null; then
  sudo="sudo -n"
else
  echo "Missing system packages: ${need[*]}"
  echo "Install them with: sudo apt-get install ${need[*]}"
  exit 0
fi
echo "Installing system packages: ${need[*]}"
$sudo apt-get update -qq >/dev/null 2>&1 || true
DEBIAN_FRONTEND=noninteractive $sudo apt-get install -y -qq --no-install-recommends "${need[@]}" >/dev/null \
  || echo "warning: could not install ${need[*]}"
exit 0

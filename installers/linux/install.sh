#!/usr/bin/env bash
# Install the unpacked fieldstudio bundle for the current user (no root): a launcher in ~/.local/bin,
# the menu entry, the icon and the .fieldstudio file type. Run it from the unpacked folder.
set -euo pipefail
here="$(cd "$(dirname "$0")" && pwd)"
bin="${XDG_BIN_HOME:-$HOME/.local/bin}"
data="${XDG_DATA_HOME:-$HOME/.local/share}"
mkdir -p "$bin" "$data/applications" "$data/icons/hicolor/256x256/apps" "$data/icons/hicolor/scalable/apps" "$data/mime/packages"
ln -sf "$here/fieldstudio" "$bin/fieldstudio"
sed "s|^Exec=fieldstudio|Exec=$here/fieldstudio|" "$here/share/applications/fieldstudio.desktop" > "$data/applications/fieldstudio.desktop"
cp "$here/share/icons/fieldstudio.png" "$data/icons/hicolor/256x256/apps/fieldstudio.png"
cp "$here/share/icons/fieldstudio.svg" "$data/icons/hicolor/scalable/apps/fieldstudio.svg"
cp "$here/share/mime/fieldstudio-mime.xml" "$data/mime/packages/fieldstudio.xml"
command -v update-mime-database >/dev/null && update-mime-database "$data/mime" || true
command -v update-desktop-database >/dev/null && update-desktop-database "$data/applications" || true
echo "fieldstudio installed: run 'fieldstudio' or find it in the applications menu."
echo "Check it with: fieldstudio self-test"

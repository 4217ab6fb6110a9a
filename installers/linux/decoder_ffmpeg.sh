#!/usr/bin/env bash
# A decoder-only build of the FFmpeg that the build machine's libVLC decodes with (issue 19, item 8).
#
# Debian's libVLC decodes through the system's libavcodec, which links every encoder, network protocol and
# codec library Debian enables (x265, codec2, SVT-AV1, librsvg with cairo and pango, libxml2 with ICU,
# gnutls, zmq, ...): about 130 MB in the bundle that playback never touches. This script builds the same
# FFmpeg release (same sonames and symbol versions, so libVLC's plugins load it unchanged) from Debian's own
# source package, with every native decoder, demuxer, parser and bitstream filter and none of the encoders,
# muxers, devices, filters, network protocols or external libraries; slim_bundle.py --replace then puts it
# in the place of the system build, after checking it exports every symbol the bundle imports from it.
#
# Usage: vlc_ffmpeg.sh VLC_PLUGIN_DIR CACHE_DIR
# Prints the folder holding the built libraries as its last line (reused from CACHE_DIR when built before).
# Needs: dpkg, apt-get with the system's package sources (the source package is fetched and verified by apt
# from the same archive as the binaries, under a private state folder: the system's apt state is not
# touched), a C compiler, make and nasm. Exits non-zero with a message when any step fails.
set -euo pipefail

plugins="$1"
cache="$2"
plugin="$plugins/codec/libavcodec_plugin.so"
[ -f "$plugin" ] || { echo "vlc_ffmpeg.sh: $plugin not found" >&2; exit 1; }
command -v nasm >/dev/null || { echo "vlc_ffmpeg.sh: nasm is not installed (apt install nasm): without it FFmpeg's decoders run without their SIMD code" >&2; exit 1; }

soname="$(readelf -d "$plugin" | sed -n 's/.*(NEEDED).*\[\(libavcodec\.so\.[0-9]*\)\].*/\1/p')"
[ -n "$soname" ] || { echo "vlc_ffmpeg.sh: $plugin does not link libavcodec" >&2; exit 1; }
lib="$(ldconfig -p | awk -v n="$soname" '$1 == n { print $NF; exit }')"
[ -n "$lib" ] || { echo "vlc_ffmpeg.sh: $soname is not installed" >&2; exit 1; }
pkg="$(dpkg -S "$(readlink -f "$lib")" | head -n1 | cut -d: -f1)"
source_pkg="$(dpkg-query -W -f '${source:Package}' "$pkg")"
source_version="$(dpkg-query -W -f '${source:Version}' "$pkg")"
upstream="$(dpkg-query -W -f '${source:Upstream-Version}' "$pkg")"
out="$cache/$source_pkg-${source_version//:/_}-decoders"
if [ -f "$out/done" ]; then
  echo "vlc_ffmpeg.sh: reusing $out ($soname from $source_pkg $source_version)" >&2
  echo "$out/lib"
  exit 0
fi

work="$cache/work"
rm -rf "$work" "$out"
mkdir -p "$work/parts" "$work/lists/partial" "$work/cache/archives/partial" "$work/src"
chmod -R a+rX "$cache"  # apt fetches as its _apt user where it can
# the system's package sources, as source-package sources (deb822 .sources files and one-line .list files)
for f in /etc/apt/sources.list.d/*.sources; do
  if [ -f "$f" ]; then sed -E 's/^Types:.*/Types: deb-src/' "$f" > "$work/parts/$(basename "$f")"; fi
done
for f in /etc/apt/sources.list /etc/apt/sources.list.d/*.list; do
  if [ -f "$f" ]; then sed -nE 's/^deb (.*)/deb-src \1/p' "$f" > "$work/parts/$(basename "$f").src.list"; fi
done
apt_opts=(-o Dir::Etc::SourceList=/dev/null -o "Dir::Etc::SourceParts=$work/parts"
          -o "Dir::State::Lists=$work/lists" -o "Dir::Cache=$work/cache" -o Acquire::Languages=none)
echo "vlc_ffmpeg.sh: fetching the source of $source_pkg $source_version (for $soname)" >&2
apt-get -qq "${apt_opts[@]}" update >&2
(cd "$work/src" && apt-get -qq "${apt_opts[@]}" source --download-only "$source_pkg=$source_version" >&2)
tarball="$(ls "$work/src"/*.orig.tar.* | grep -v '\.asc$' | head -n1)"
tar -C "$work/src" -xf "$tarball"
tree="$work/src/ffmpeg-$upstream"
[ -d "$tree" ] || tree="$(find "$work/src" -mindepth 1 -maxdepth 1 -type d | head -n1)"

echo "vlc_ffmpeg.sh: building $(basename "$tree") with its decoders only ($(nproc) jobs; several minutes)" >&2
log="$cache/build.log"
if ! (
  cd "$tree"
  ./configure --prefix="$out" --enable-shared --disable-static --disable-programs --disable-doc \
    --disable-avdevice --disable-avfilter --disable-postproc --disable-encoders --disable-muxers \
    --disable-devices --disable-network --disable-hwaccels --disable-autodetect \
    --enable-zlib --enable-bzlib --enable-lzma --disable-debug
  make -j"$(nproc)"
  make install
) > "$log" 2>&1; then
  tail -n 20 "$log" >&2
  echo "vlc_ffmpeg.sh: the build failed; its log: $log" >&2
  exit 1
fi
rm -rf "$work"
touch "$out/done"
echo "$out/lib"

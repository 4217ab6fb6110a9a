#!/usr/bin/env bash
# A decoder-only build of an FFmpeg release that the bundle already carries (issue 19, item 8).
#
# Two FFmpeg builds travel in the Linux bundle, and both link far more than fieldstudio uses:
# - libVLC decodes through the system's libavcodec (Debian's 5.1), which links every encoder, network protocol
#   and codec library Debian enables (x265, codec2, SVT-AV1, librsvg with cairo and pango, libxml2 with ICU,
#   gnutls, zmq, ...): about 130 MB that playback never touches;
# - PyAV's wheel vendors FFmpeg 8 with x264, x265, SVT-AV1, libvpx, LAME, Opus, gnutls and Intel's VPL:
#   fieldstudio only ever decodes with it (exact frames and the frame index), never encodes or streams.
# This script builds the same release (same sonames and symbol versions, so what links it loads it unchanged)
# from Debian's own source package, with every native decoder, demuxer, parser and bitstream filter and none
# of the encoders, muxers, devices, network protocols or external libraries (PyAV's build keeps two native
# encoders and two muxers for `fieldstudio redact`, see below); slim_bundle.py --replace then puts
# it in the place of the bundled build, after checking that it exports every symbol the bundle imports from it.
#
# Usage:
#   decoder_ffmpeg.sh vlc VLC_PLUGIN_DIR CACHE_DIR   the release libVLC's avcodec plugin links (the system's)
#   decoder_ffmpeg.sh pyav VERSION CACHE_DIR         upstream release VERSION (PyAV's: av.ffmpeg_version_info),
#                                                    from the system's suites or Debian unstable; keeps
#                                                    libavfilter and libavdevice (PyAV links them) and decodes
#                                                    AV1 with the system's libdav1d
# Prints the folder holding the built libraries as its last line (reused from CACHE_DIR when built before).
# Needs: dpkg, apt-get with the system's package sources (the source package is fetched and verified by apt
# from Debian's archive, under a private state folder: the system's apt state is not touched), a C compiler,
# make, nasm, zlib1g-dev, libbz2-dev and liblzma-dev, and for pyav libdav1d-dev. Exits non-zero with a message
# when any step fails.
set -euo pipefail

me="decoder_ffmpeg.sh"
die() { echo "$me: $*" >&2; exit 1; }
[ $# -eq 3 ] || die "usage: $me vlc VLC_PLUGIN_DIR CACHE_DIR | $me pyav VERSION CACHE_DIR"
mode="$1"
cache="$3"
command -v nasm >/dev/null || die "nasm is not installed (apt install nasm): without it FFmpeg's decoders run without their SIMD code"

work="$cache/work"
rm -rf "$work"
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

# what both builds leave out: programs, documentation, encoders, muxers, devices, network protocols, hardware
# decoding and every library configure would pick up by itself
common=(--enable-shared --disable-static --disable-programs --disable-doc --disable-encoders --disable-muxers
        --disable-devices --disable-network --disable-hwaccels --disable-autodetect --disable-debug
        --enable-zlib --enable-bzlib --enable-lzma)
case "$mode" in
  vlc)
    plugin="$2/codec/libavcodec_plugin.so"
    [ -f "$plugin" ] || die "$plugin not found"
    soname="$(readelf -d "$plugin" | sed -n 's/.*(NEEDED).*\[\(libavcodec\.so\.[0-9]*\)\].*/\1/p')"
    [ -n "$soname" ] || die "$plugin does not link libavcodec"
    lib="$(ldconfig -p | awk -v n="$soname" '$1 == n { print $NF; exit }')"
    [ -n "$lib" ] || die "$soname is not installed"
    pkg="$(dpkg -S "$(readlink -f "$lib")" | head -n1 | cut -d: -f1)"
    source_pkg="$(dpkg-query -W -f '${source:Package}' "$pkg")"
    source_version="$(dpkg-query -W -f '${source:Version}' "$pkg")"
    why="for libVLC's $soname"
    flags=(--disable-avdevice --disable-avfilter)
    ;;
  pyav)
    wanted="$2"
    source_pkg=ffmpeg
    # Debian unstable carries the newer releases (and several at once): the same archive as the system's
    # sources, with the same signing keys
    awk 'BEGIN { RS = ""; ORS = "\n\n" }
         /(^|\n)URIs:[^\n]*\/debian\/?(\n|$)/ && !done {
           gsub(/(^|\n)Suites:[^\n]*/, "\nSuites: unstable"); gsub(/(^|\n)Components:[^\n]*/, "\nComponents: main")
           sub(/^\n/, ""); print; done = 1 }' "$work"/parts/*.sources > "$work/parts/unstable.sources" 2>/dev/null || true
    why="for PyAV's FFmpeg $wanted"
    dav1d_flag=(--enable-libdav1d)
    pkg-config --exists dav1d || die "libdav1d-dev is not installed (apt install libdav1d-dev): PyAV decodes AV1 with it"
    # libavfilter and libavdevice stay (PyAV links them) but hold only what PyAV's own graph code may ask for.
    # One exception to "decoders only": `fieldstudio redact` writes blurred copies of videos, so FFmpeg's own
    # MPEG-4 Part 2 and MJPEG encoders (LGPL, no external library) and the MP4 and Matroska muxers stay
    flags=(--disable-filters --enable-filter=buffer,buffersink,abuffer,abuffersink,format,aformat,null,anull,scale,aresample
           --enable-encoder=mpeg4,mjpeg --enable-muxer=mp4,matroska
           "${dav1d_flag[@]}")
    ;;
  *) die "unknown mode '$mode' (vlc or pyav)" ;;
esac

echo "$me: looking up the source of $source_pkg $why" >&2
apt-get -qq "${apt_opts[@]}" update >&2 || die "apt-get update failed for the source indexes ($work/parts)"
if [ "$mode" = pyav ]; then
  # the Debian version whose upstream part is the wanted release: 7:8.1.2-2 for 8.1.2
  source_version="$(apt-cache "${apt_opts[@]}" showsrc "$source_pkg" | sed -n 's/^Version: //p' \
                    | grep -E "^([0-9]+:)?${wanted//./\\.}(-|\+|$)" | sort -V | tail -n1 || true)"
  [ -n "$source_version" ] || die "no Debian source of $source_pkg $wanted in the system's suites or unstable"
fi
flags_hash="$(printf '%s\n' "${common[@]}" "${flags[@]}" | sha256sum | cut -c1-8)"
out="$cache/$source_pkg-${source_version//:/_}-$mode-decoders-$flags_hash"
if [ -f "$out/done" ]; then
  echo "$me: reusing $out ($source_pkg $source_version $why)" >&2
  rm -rf "$work"
  echo "$out/lib"
  exit 0
fi

rm -rf "$out"
echo "$me: fetching the source of $source_pkg $source_version ($why)" >&2
(cd "$work/src" && apt-get -qq "${apt_opts[@]}" source --download-only "$source_pkg=$source_version" >&2)
tarball="$(ls "$work/src"/*.orig.tar.* | grep -v '\.asc$' | head -n1)"
tar -C "$work/src" -xf "$tarball"
tree="$(find "$work/src" -mindepth 1 -maxdepth 1 -type d | head -n1)"
# libpostproc went away in FFmpeg 8: disable it only where configure still knows it
if grep -q -- '--disable-postproc' "$tree/configure"; then flags+=(--disable-postproc); fi

echo "$me: building $(basename "$tree") with its decoders only ($(nproc) jobs; several minutes)" >&2
log="$cache/build-$mode.log"
if ! (
  cd "$tree"
  ./configure --prefix="$out" "${common[@]}" "${flags[@]}"
  make -j"$(nproc)"
  make install
) > "$log" 2>&1; then
  tail -n 20 "$log" >&2
  die "the build failed; its log: $log"
fi
rm -rf "$work"
touch "$out/done"
echo "$out/lib"
